import { and, eq, gt, sql } from 'drizzle-orm'
import type { ChangeStamp } from '../../kernel/db/change-stamp'
import type { Db } from '../../kernel/db/database'
import { perHandle } from '../../kernel/db/per-handle'
import type { Deps } from '../../kernel/deps'
import { KeptBodies } from '../../kernel/http/kept-bodies'
import type { JsonBody } from '../../kernel/http/json-response'
import type { FoundPage, PageFinder } from './list'
import { productStockVersions } from './tables'
import { storeVersions } from './versions'

const MAX_PAGES = 10_000

/**
 * Serialized product reads (lists and details), kept per store while the store's catalog version
 * stays the same. Triggers raise that version on every change a read can show, whichever feature
 * makes it (migrations/0004_catalog_versions.sql), so an entry can never be stale: a shop front that
 * polls the same page gets the stored body instead of four to six queries and a stringify.
 *
 * A change of stock (an order, a receipt) does not raise the version: it raises the store's `stock`
 * version and records it as the product's own (migrations/0012_catalog_stock_versions.sql). Each body
 * is tagged with the products it shows, and a read that sees the store's `stock` version move first
 * drops the bodies of the products changed since, and only those (docs/caches.md).
 */
export class CatalogReadCache {
  private readonly bodies
  private pages = new Map<string, FoundPage>()
  /** Per store: the `stock` version its kept bodies are up to date with. */
  private stockSeen = new Map<string, number>()
  private readonly versionsOf
  private readonly stockChangedSince
  /** How many bodies were made (not served from the cache), for tests. */
  made = 0

  constructor(
    private readonly db: Db,
    changes: ChangeStamp,
    maxBytes = 32 * 1024 * 1024,
  ) {
    this.bodies = new KeptBodies(maxBytes)
    this.versionsOf = storeVersions(db, changes)
    const p = sql.placeholder
    this.stockChangedSince = db
      .select({ productId: productStockVersions.productId })
      .from(productStockVersions)
      .where(and(eq(productStockVersions.storeId, p('storeId')), gt(productStockVersions.version, p('since'))))
      .prepare()
  }

  /**
   * The page a list `find`s (its rows and total), kept while the store's `matches` version stays: an
   * order makes the bodies that show its products again, but the search over 100,000 products is not.
   * At most `MAX_PAGES` are kept, the least recently used going first.
   */
  private found(storeId: string, key: string, find: () => FoundPage): FoundPage {
    const pageKey = `${storeId}\u0000${this.versionsOf(storeId).matches}\u0000${key}`
    const hit = this.pages.get(pageKey)
    if (hit !== undefined) {
      this.pages.delete(pageKey)
      this.pages.set(pageKey, hit)
      return hit
    }
    const page = find()
    this.pages.set(pageKey, page)
    if (this.pages.size > MAX_PAGES) this.pages.delete(this.pages.keys().next().value!)
    return page
  }

  /**
   * The body for `key` in this store, with its URLs on `urlBase`: from the cache, or made by `render`
   * (which may throw) and kept with the ids of the products it `shows`. A body is kept per URL base, so
   * an answer never carries the URLs of another Host's request; the page a list's `render` finds through
   * `remember` holds no URL, and is kept (`found`) for every base at once.
   */
  read(storeId: string, urlBase: string, key: string, render: (remember: PageFinder) => { body: unknown; shows: readonly string[] }): JsonBody {
    // Inside a transaction the versions and rows read could still be rolled back: the cache stays out.
    if (this.db.$client.inTransaction) return JSON.stringify(render((find) => find()).body)
    const versions = this.versionsOf(storeId)
    this.followStock(storeId, versions.stock)
    return this.bodies.read(storeId, versions.version, `${key}\u0000${urlBase}`, () => {
      this.made++
      const { body, shows } = render((find) => this.found(storeId, key, find))
      return { body, tags: shows }
    })
  }

  /**
   * Drops the bodies of the products whose stock changed since the store's bodies were last brought
   * up to date. Every stock change raises `stock` and writes it as its product's version, in the
   * change's transaction; the bodies are read and made synchronously, so none can fall in between.
   */
  private followStock(storeId: string, stock: number) {
    const seen = this.stockSeen.get(storeId)
    if (seen === stock) return
    if (seen !== undefined && seen < stock) {
      for (const { productId } of this.stockChangedSince.all({ storeId, since: seen })) this.bodies.dropTagged(storeId, productId)
    } else {
      // First sight of the store, or a version that went back (never, short of a restored database).
      this.bodies.dropAll(storeId)
    }
    this.stockSeen.set(storeId, stock)
  }
}

/** The app's one cache of product reads (one per set of deps, so a test can look at it). */
export const catalogReadCache = perHandle((deps: Deps) => new CatalogReadCache(deps.db, deps.changes))
