import { eq, sql } from 'drizzle-orm'
import type { Sql } from '../../kernel/db/database'
import { catalogVersions } from './tables'

/**
 * Serialized product reads (lists and details), kept per store while the store's catalog version
 * stays the same. Triggers raise that version on every change a read can show, whichever feature
 * makes it (migrations/0004_catalog_versions.sql), so an entry can never be stale: a shop front that
 * polls the same page gets the stored body instead of five queries, a schema check and a stringify.
 * Least recently used entries go first once the cache holds `maxBytes` of bodies.
 */
export class CatalogReadCache {
  private entries = new Map<string, string>()
  private bytes = 0
  private readonly versionOf

  constructor(
    db: Sql,
    private readonly maxBytes = 32 * 1024 * 1024,
  ) {
    this.versionOf = db
      .select({ version: catalogVersions.version })
      .from(catalogVersions)
      .where(eq(catalogVersions.storeId, sql.placeholder('storeId')))
      .prepare()
  }

  /** The body for `key` in this store: from the cache, or made by `render` (which may throw) and kept. */
  read(storeId: string, key: string, render: () => unknown): string {
    const version = this.versionOf.get({ storeId })?.version ?? 0
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
    this.bytes += body.length
    for (const [oldKey, oldBody] of this.entries) {
      if (this.bytes <= this.maxBytes) break
      this.entries.delete(oldKey)
      this.bytes -= oldBody.length
    }
    return body
  }
}

export const jsonResponse = (body: string) => new Response(body, { headers: { 'content-type': 'application/json' } })
