import { lte } from 'drizzle-orm'
import type { Db } from '../db/database'
import { deleteBatch, type Pruner } from '../retention'
import { customerSessions, studentSessions } from './tables'

/**
 * Sessions that expired more than the retention ago. Until then an old token is answered "your
 * session expired" rather than "unknown token"; after, nothing tells them apart any more.
 */
export function expiredSessionPruners(db: Db): Pruner[] {
  const prune = (table: typeof studentSessions | typeof customerSessions) => (cutoff: number, _now: number, batch: number) =>
    deleteBatch(db, table, lte(table.expiresAt, cutoff), batch)
  return [
    { what: 'expired student sessions', prune: prune(studentSessions) },
    { what: 'expired customer sessions', prune: prune(customerSessions) },
  ]
}
