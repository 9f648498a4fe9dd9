import { sql } from 'drizzle-orm'
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/**
 * The event outbox: a state change and its event are written in one transaction; the
 * webhook dispatcher delivers from here later, so no event is lost to a crash between the two.
 */
export const outboxEvents = sqliteTable(
  'outbox_events',
  {
    id: text().primaryKey(),
    storeId: text('store_id').notNull(),
    type: text().notNull(),
    data: text({ mode: 'json' }).notNull(),
    createdAt: integer('created_at').notNull(),
    dispatchedAt: integer('dispatched_at'),
  },
  (t) => [
    index('outbox_events_pending').on(t.createdAt).where(sql`${t.dispatchedAt} is null`),
    // Dispatched events are pruned by age (features/webhooks/retention.ts).
    index('outbox_events_dispatched').on(t.createdAt).where(sql`${t.dispatchedAt} is not null`),
  ],
)
