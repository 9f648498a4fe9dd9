import { inArray, lte, sql } from 'drizzle-orm'
import type { Db } from '../db/database'
import type { Pruner } from '../retention'
import { customerSessions, studentSessions } from './tables'

/**
 * Sessions that expired more than the retention ago. Until then an old token is answered "your
 * session expired" rather than "unknown token"; after, nothing tells them apart any more.
 */
export function expiredSessionPruners(db: Db): Pruner[] {
  const prune = (table: typeof studentSessions | typeof customerSessions) => (cutoff: number, _now: number, batch: number) => {
    const expired = db.select({ rowid: sql`rowid` }).from(table).where(lte(table.expiresAt, cutoff)).limit(batch)
    return db.delete(table).where(inArray(sql`rowid`, expired)).returning({ at: table.expiresAt }).all().length
  }
  return [
    { what: 'expired student sessions', prune: prune(studentSessions) },
    { what: 'expired customer sessions', prune: prune(customerSessions) },
  ]
}
