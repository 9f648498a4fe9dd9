import { eq, sql } from 'drizzle-orm'
import { untilChanged, type ChangeStamp } from '../../kernel/db/change-stamp'
import type { Db } from '../../kernel/db/database'
import { catalogVersions } from './tables'

export type StoreVersions = Pick<typeof catalogVersions.$inferSelect, 'version' | 'matches' | 'stock' | 'reviews'>

/**
 * A store's versions (`catalog_versions`, raised by triggers), which cached reads are keyed by: the
 * catalog's (read-cache.ts) and the review pages'. Kept until the database changes, so a repeated
 * read runs no query. A store without a row has all its versions at 0.
 */
export function storeVersions(db: Db, changes: ChangeStamp): (storeId: string) => StoreVersions {
  const read = db
    .select({ version: catalogVersions.version, matches: catalogVersions.matches, stock: catalogVersions.stock, reviews: catalogVersions.reviews })
    .from(catalogVersions)
    .where(eq(catalogVersions.storeId, sql.placeholder('storeId')))
    .prepare()
  return untilChanged(changes, (storeId: string) => read.get({ storeId }) ?? { version: 0, matches: 0, stock: 0, reviews: 0 })
}
