import { eq, sql } from 'drizzle-orm'
import { untilChanged, type ChangeStamp } from '../../kernel/db/change-stamp'
import type { Sql } from '../../kernel/db/database'
import type { FoundPage } from './list'
import { catalogVersions } from './tables'

const MAX_PAGES = 10_000

/**
 * Serialized product reads (lists and details), kept per store while the store's catalog version
 * stays the same. Triggers raise that version on every change a read can show, whichever feature
 * makes it (migrations/0004_catalog_versions.sql), so an entry can never be stale: a shop front that
 * polls the same page gets the stored body instead of four to six queries, a schema check and a stringify.
 * Least recently used entries go first once the cache holds `maxBytes` of bodies.
 */
export class CatalogReadCache {
  private entries = new Map<string, string>()
  /** Per store: the version its kept bodies belong to, and their keys. */
  private current = new Map<string, { version: number; keys: Set<string> }>()
  private bytes = 0
  private pages = new Map<string, FoundPage>()
  private readonly versionsOf

  constructor(
    db: Sql,
    changes: ChangeStamp,
    private readonly maxBytes = 32 * 1024 * 1024,
  ) {
    const versionsOf = db
      .select({ version: catalogVersions.version, matches: catalogVersions.matches })
      .from(catalogVersions)
      .where(eq(catalogVersions.storeId, sql.placeholder('storeId')))
      .prepare()
    // The versions themselves are kept until the database changes: a repeated read then runs no query.
    this.versionsOf = untilChanged(changes, (storeId: string) => versionsOf.get({ storeId }) ?? { version: 0, matches: 0 })
  }

  /**
   * The page a list `find`s (its rows and total), kept while the store's `matches` version stays: an
   * order changes stock, so the body is made again, but the search over 100,000 products is not.
   * At most `MAX_PAGES` are kept, the least recently used going first.
   */
  found(storeId: string, key: string, find: () => FoundPage): FoundPage {
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

  /** The body for `key` in this store: from the cache, or made by `render` (which may throw) and kept. */
  read(storeId: string, key: string, render: () => unknown): string {
    const version = this.versionsOf(storeId).version
    const current = this.currentFor(storeId, version)
    const cacheKey = `${storeId}\u0000${version}\u0000${key}`
    const hit = this.entries.get(cacheKey)
    if (hit !== undefined) {
      // Map keeps insertion order: re-inserting marks the entry as the most recently used.
      this.entries.delete(cacheKey)
      this.entries.set(cacheKey, hit)
      return hit
    }
    const body = JSON.stringify(render())
    this.entries.set(cacheKey, body)
    current.keys.add(cacheKey)
    this.bytes += body.length
    for (const [oldKey, oldBody] of this.entries) {
      if (this.bytes <= this.maxBytes) break
      this.entries.delete(oldKey)
      this.current.get(oldKey.slice(0, oldKey.indexOf('\u0000')))?.keys.delete(oldKey)
      this.bytes -= oldBody.length
    }
    return body
  }

  /**
   * The store's bodies of its current version. Bodies of an older version can never be served again,
   * so they are dropped as soon as a newer version is seen: a store taking orders (each one changes
   * stock, so the version) would otherwise fill the cache with dead bodies up to its limit.
   */
  private currentFor(storeId: string, version: number) {
    const known = this.current.get(storeId)
    if (known?.version === version) return known
    for (const key of known?.keys ?? []) {
      this.bytes -= this.entries.get(key)?.length ?? 0
      this.entries.delete(key)
    }
    const fresh = { version, keys: new Set<string>() }
    this.current.set(storeId, fresh)
    return fresh
  }
}
