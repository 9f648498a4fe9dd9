import { eq, sql } from 'drizzle-orm'
import { untilChanged, type ChangeStamp } from '../../kernel/db/change-stamp'
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
    changes: ChangeStamp,
    private readonly maxBytes = 32 * 1024 * 1024,
  ) {
    const versionOf = db
      .select({ version: catalogVersions.version })
      .from(catalogVersions)
      .where(eq(catalogVersions.storeId, sql.placeholder('storeId')))
      .prepare()
    // The version itself is kept until the database changes: a repeated read then runs no query.
    this.versionOf = untilChanged(changes, (storeId: string) => versionOf.get({ storeId })?.version ?? 0)
  }

  /** The body for `key` in this store: from the cache, or made by `render` (which may throw) and kept. */
  read(storeId: string, key: string, render: () => unknown): string {
    const version = this.versionOf(storeId)
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

/**
 * A stored body as the final response, with the headers the kernel set for this request (CORS, request
 * id, rate limit). Elysia copies a returned Response through a stream when `set` still holds headers
 * (about 7 µs, a tenth of a cached read); with them moved onto the Response it sends it as it is.
 */
export function jsonResponse(body: string, set: { headers: Record<string, unknown> }) {
  const response = new Response(body, { headers: { ...(set.headers as Record<string, string>), 'content-type': 'application/json' } })
  set.headers = {}
  return response
}
