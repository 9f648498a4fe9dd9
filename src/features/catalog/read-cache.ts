import { and, between, eq, gt, sql } from 'drizzle-orm'
import type { ChangeStamp } from '../../kernel/db/change-stamp'
import type { Db } from '../../kernel/db/database'
import { perHandle } from '../../kernel/db/per-handle'
import type { Deps } from '../../kernel/deps'
import { KeptBodies } from '../../kernel/http/kept-bodies'
import type { JsonBody } from '../../kernel/http/json-response'
import { findNow, type FindPage, type FoundPage, type ListKey, type PageFinder } from './list'
import { STOCK_CHANGES_KEPT, stockChanges } from './tables'
import { storeVersions } from './versions'

const MAX_KEPT = 10_000

/** `key`'s value in `map`, or the one `make` makes, kept: the least recently used goes past MAX_KEPT. */
function kept<T>(map: Map<string, T>, key: string, make: () => T): T {
  const hit = map.get(key)
  if (hit !== undefined) {
    map.delete(key)
    map.set(key, hit)
    return hit
  }
  const made = make()
  map.set(key, made)
  if (map.size > MAX_KEPT) map.delete(map.keys().next().value!)
  return made
}

/**
 * Serialized product reads (lists and details), kept per store while the store's catalog version
 * stays the same. Triggers raise that version on every change a read can show, whichever feature
 * makes it (migrations/0004_catalog_versions.sql), so an entry can never be stale: a shop front that
 * polls the same page gets the stored body instead of four to six queries and a stringify.
 *
 * A change of stock (an order, a receipt) does not raise the version: it raises the store's `stock`
 * version and writes the product it changed into the store's ring of latest stock changes
 * (`stock_changes`, migrations/0018_stock_changes_ring.sql). Each body is tagged with the products it
 * shows, and a read that sees the store's `stock` version move first drops the bodies of the products
 * changed since, and only those (docs/caches.md).
 */
export class CatalogReadCache {
  private readonly bodies
  private pages = new Map<string, FoundPage>()
  /** A list's total per filters, for its other pages and orders: counting 70,000 matches took 20 to 35 ms. */
  private totals = new Map<string, number>()
  /** Per store: the `stock` version its kept bodies are up to date with. */
  private stockSeen = new Map<string, number>()
  private readonly versionsOf
  private readonly stockChangedIn
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
    this.stockChangedIn = db
      .select({ productId: stockChanges.productId })
      .from(stockChanges)
      .where(and(eq(stockChanges.storeId, p('storeId')), between(stockChanges.slot, p('from'), p('to')), gt(stockChanges.version, p('since'))))
      .prepare()
  }

  /**
   * The page a list `find`s (its rows and total), kept while the store's `matches` version stays: an
   * order makes the bodies that show its products again, but the search over 100,000 products is not.
   * The total is kept the same way apart, for the list's other pages and orders. At most `MAX_KEPT`
   * pages and as many totals are kept, the least recently used going first.
   */
  private found(storeId: string, list: ListKey, find: FindPage): FoundPage {
    const at = `${storeId}\u0000${this.versionsOf(storeId).matches}\u0000`
    return kept(this.pages, at + list.key, () => find((count) => kept(this.totals, at + list.totalKey, count)))
  }

  /**
   * The body for `key` in this store (a list's ListKey), with its URLs on `urlBase`: from the cache, or
   * made by `render` (which may throw) and kept with the ids of the products it `shows`. A body is kept
   * per URL base, so an answer never carries the URLs of another Host's request; the page a list's
   * `render` finds through `remember` holds no URL, and is kept (`found`) for every base at once.
   */
  read(storeId: string, urlBase: string, what: string | ListKey, render: (remember: PageFinder) => { body: unknown; shows: readonly string[] }): JsonBody {
    // Inside a transaction the versions and rows read could still be rolled back: the cache stays out.
    if (this.db.$client.inTransaction) return JSON.stringify(render(findNow).body)
    const key = typeof what === 'string' ? what : what.key
    const versions = this.versionsOf(storeId)
    this.followStock(storeId, versions.stock)
    return this.bodies.read(storeId, versions.version, `${key}\u0000${urlBase}`, () => {
      this.made++
      const { body, shows } = render(typeof what === 'string' ? findNow : (find) => this.found(storeId, what, find))
      return { body, tags: shows }
    })
  }

  /**
   * Drops the bodies of the products whose stock changed since the store's bodies were last brought
   * up to date. Every stock change raises `stock` and writes its product into the ring, in the
   * change's transaction; the bodies are read and made synchronously, so none can fall in between.
   */
  private followStock(storeId: string, stock: number) {
    const seen = this.stockSeen.get(storeId)
    if (seen === stock) return
    // First sight of the store, a version that went back (never, short of a restored database), or
    // changes the ring no longer holds all of: every body of the store goes.
    const changed = seen !== undefined && seen < stock ? this.changedSince(storeId, seen, stock) : undefined
    if (changed) for (const productId of changed) this.bodies.dropTagged(storeId, productId)
    else this.bodies.dropAll(storeId)
    this.stockSeen.set(storeId, stock)
  }

  /**
   * The products of the store's stock changes after `since` up to `stock`, read from their slots of
   * the ring; undefined when it no longer holds every one of them: more changes than it keeps, or a
   * store reset that emptied it.
   */
  private changedSince(storeId: string, since: number, stock: number): string[] | undefined {
    if (stock - since > STOCK_CHANGES_KEPT) return undefined
    const from = (since + 1) % STOCK_CHANGES_KEPT
    const to = stock % STOCK_CHANGES_KEPT
    const slots = from <= to ? [[from, to]] : [[from, STOCK_CHANGES_KEPT - 1], [0, to]]
    const rows = slots.flatMap(([a, b]) => this.stockChangedIn.all({ storeId, from: a, to: b, since }))
    return rows.length === stock - since ? rows.map((r) => r.productId) : undefined
  }
}

/** The app's one cache of product reads (one per set of deps, so a test can look at it). */
export const catalogReadCache = perHandle((deps: Deps) => new CatalogReadCache(deps.db, deps.changes))
