import type { Sql } from '../../kernel/db/database'
import type { Deps } from '../../kernel/deps'

/**
 * What may use a library file: product images and review photos. Each entry finds the
 * uses of a file in a store and removes them, for DELETE /v1/media/:id and its force option. The
 * list is wired in createDeps (src/wiring.ts), where each feature that links media adds its entry.
 */
export interface MediaUser {
  find(tx: Sql, storeId: string, mediaId: string): Record<string, unknown>[]
  unlink(tx: Sql, storeId: string, mediaId: string): void
}

/** What the media services need beyond the kernel: who may use a file, asked before it is deleted. */
export type MediaDeps = Deps & { mediaUsers: MediaUser[] }
