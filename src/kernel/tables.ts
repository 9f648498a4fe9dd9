import { sql } from 'drizzle-orm'
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/**
 * The event outbox: a state change and its event are written in one transaction; the
 * webhook dispatcher delivers from here later, so no event is lost to a crash between the two.
 * `seq` is the order events were written in, and a listen stream's place (features/webhooks/listen.ts):
 * AUTOINCREMENT so that a number is never given twice, even after the newest events were deleted (a
 * store reset, retention), which a plain rowid would give again to the next event.
 */
export const outboxEvents = sqliteTable(
  'outbox_events',
  {
    seq: integer().primaryKey({ autoIncrement: true }),
    /** The public event id, `evt_…`: deliveries and webhook bodies refer to it. */
    id: text().notNull().unique(),
    storeId: text('store_id').notNull(),
    type: text().notNull(),
    data: text({ mode: 'json' }).notNull(),
    createdAt: integer('created_at').notNull(),
    dispatchedAt: integer('dispatched_at'),
  },
  (t) => [
    // A store's events in order: a listen stream's reads.
    index('outbox_events_store_seq').on(t.storeId, t.seq),
    index('outbox_events_pending').on(t.createdAt).where(sql`${t.dispatchedAt} is null`),
    // Dispatched events are pruned by age (features/webhooks/retention.ts).
    index('outbox_events_dispatched').on(t.createdAt).where(sql`${t.dispatchedAt} is not null`),
  ],
)
