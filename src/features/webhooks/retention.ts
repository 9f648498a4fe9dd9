import { and, count, desc, eq, gt, inArray, isNotNull, lte, notExists, sql, type SQLWrapper } from 'drizzle-orm'
import { writeTransaction, type Db, type Sql } from '../../kernel/db/database'
import { deleteBatch, type Pruner } from '../../kernel/retention'
import { outboxEvents } from '../../kernel/tables'
import { webhookDeliveries as deliveries } from './tables'

/**
 * How many finished attempts each store's deliveries log keeps, newest first. Attempts still pending
 * are kept besides, until sent: a retry is never lost to the bound.
 */
export const DELIVERY_LOG_KEEP = 1000

const finished = sql`${deliveries.status} <> 'PENDING'`
const pending = sql`${deliveries.status} = 'PENDING'`

/** Of `eventIds`, the dispatched events no delivery refers to any more: nothing can send or show them again. */
function deleteOrphanEvents(tx: Sql, eventIds: string[]) {
  if (eventIds.length === 0) return
  const anyDelivery = tx.select({ one: sql`1` }).from(deliveries).where(eq(deliveries.eventId, outboxEvents.id))
  tx.delete(outboxEvents)
    .where(and(inArray(outboxEvents.id, [...new Set(eventIds)]), isNotNull(outboxEvents.dispatchedAt), notExists(anyDelivery)))
    .run()
}

/** Deletes the finished attempts that `rows` selects (at most a batch), and the events left without any; returns how many. */
function deleteAttempts(db: Db, rows: SQLWrapper): number {
  return writeTransaction(db, (tx) => {
    const gone = tx.delete(deliveries).where(inArray(sql`rowid`, rows)).returning({ eventId: deliveries.eventId }).all()
    deleteOrphanEvents(tx, gone.map((g) => g.eventId))
    return gone.length
  })
}

/** Trims one store's log back to its newest DELIVERY_LOG_KEEP finished attempts, at most `batch` rows at a time. */
export function trimDeliveryLog(db: Db, storeId: string, batch: number): number {
  return deleteAttempts(
    db,
    db
      .select({ rowid: sql`rowid` })
      .from(deliveries)
      .where(and(eq(deliveries.storeId, storeId), finished))
      .orderBy(desc(deliveries.createdAt), desc(sql`rowid`))
      .limit(batch)
      .offset(DELIVERY_LOG_KEEP),
  )
}

/** What the webhooks feature prunes: old and surplus attempts, and delivered events past the retention. */
export function webhookPruners(db: Db): Pruner[] {
  return [
    {
      what: 'webhook attempts older than the retention',
      prune: (cutoff, _now, batch) =>
        deleteAttempts(db, db.select({ rowid: sql`rowid` }).from(deliveries).where(and(finished, lte(deliveries.createdAt, cutoff))).limit(batch)),
    },
    {
      what: 'webhook attempts beyond a store\'s log size',
      prune: (_cutoff, _now, batch) => {
        const over = db
          .select({ storeId: deliveries.storeId })
          .from(deliveries)
          .where(finished)
          .groupBy(deliveries.storeId)
          .having(gt(count(), DELIVERY_LOG_KEEP))
          .all()
        let deleted = 0
        for (const { storeId } of over) {
          deleted += trimDeliveryLog(db, storeId, batch - deleted)
          if (deleted >= batch) break
        }
        return deleted
      },
    },
    {
      // Their remaining attempts go with them (the foreign key cascades); an event a retry still waits for stays.
      what: 'delivered events older than the retention',
      prune: (cutoff, _now, batch) => {
        const waitedFor = db.select({ one: sql`1` }).from(deliveries).where(and(eq(deliveries.eventId, outboxEvents.id), pending))
        return deleteBatch(db, outboxEvents, and(isNotNull(outboxEvents.dispatchedAt), lte(outboxEvents.createdAt, cutoff), notExists(waitedFor)), batch)
      },
    },
  ]
}
