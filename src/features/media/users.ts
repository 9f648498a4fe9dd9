import { and, eq, type SQL } from 'drizzle-orm'
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core'
import type { Sql } from '../../kernel/db/database'
import type { UploadDeps } from './in-flight'
import type { DownloadDeps } from './files'

/**
 * What may use a library file: product images and review photos. Each entry finds the
 * uses of a file in a store and removes them, for DELETE /v1/media/:id and its force option. The
 * list is wired in createDeps (src/wiring.ts), where each feature that links media adds its entry.
 */
export interface MediaUser {
  find(tx: Sql, storeId: string, mediaId: string): Record<string, unknown>[]
  unlink(tx: Sql, storeId: string, mediaId: string): void
}

/** What the media services need beyond the kernel: who may use a file, asked before it is deleted, and the uploads in flight. */
export type MediaDeps = UploadDeps & DownloadDeps & { mediaUsers: MediaUser[] }

/** A table of links from owners (a product, a review) to library files, each owner's at positions 0..n-1. */
export interface MediaLinks {
  /** Names the use in the details of 409 MEDIA_IN_USE. */
  usedBy: string
  table: SQLiteTable
  storeId: SQLiteColumn
  mediaId: SQLiteColumn
  /** The owner's id: each owner that loses a link has the rest renumbered. */
  owner: SQLiteColumn
  /** The uses that count among the links `where` selects (a deleted owner's may not), as the details show them. */
  uses(tx: Sql, where: SQL): Record<string, unknown>[]
  /** Puts an owner's links back at 0..n-1, with renumber below. */
  renumber(tx: Sql, ownerId: string): void
}

/** A link table as a user of library files: unlinking a file removes its links and renumbers their owners. */
export function linksAsMediaUser(links: MediaLinks): MediaUser {
  const ofFile = (storeId: string, mediaId: string) => and(eq(links.storeId, storeId), eq(links.mediaId, mediaId))!
  return {
    find: (tx, storeId, mediaId) => links.uses(tx, ofFile(storeId, mediaId)).map((use) => ({ usedBy: links.usedBy, ...use })),
    unlink(tx, storeId, mediaId) {
      const owners = tx.selectDistinct({ id: links.owner }).from(links.table).where(ofFile(storeId, mediaId)).all()
      if (owners.length === 0) return
      tx.delete(links.table).where(ofFile(storeId, mediaId)).run()
      for (const { id } of owners) links.renumber(tx, id as string)
    },
  }
}

/**
 * Puts `rows` at positions 0..n-1 in the order given. `wanted` says what a row holds at its place (its
 * position, and what follows from the place, such as being the cover); `write` stores it, and is not
 * called for a row that holds it already.
 */
export function renumber<S extends { position: number }, R extends S>(rows: R[], wanted: (row: R, position: number) => S, write: (row: R, set: S) => void) {
  rows.forEach((row, position) => {
    const set = wanted(row, position)
    if ((Object.keys(set) as (keyof S)[]).some((key) => row[key] !== set[key])) write(row, set)
  })
}
