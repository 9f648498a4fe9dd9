import { ne } from 'drizzle-orm'
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { stores } from '../../kernel/auth/tables'
import { outboxEvents } from '../../kernel/tables'
import { pendingOnly } from '../../kernel/db/pending'

/** Where a store wants its events sent. The secret is kept in clear: it is needed to sign. */
export const webhookEndpoints = sqliteTable(
  'webhook_endpoints',
  {
    id: text().primaryKey(),
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    url: text().notNull(),
    /** Event names, or `["*"]` for all of them. */
    events: text({ mode: 'json' }).$type<string[]>().notNull(),
    description: text(),
    secret: text().notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('webhook_endpoints_store').on(t.storeId)],
)

/**
 * A store's listen secret (`storefront listen`, listen.ts) is kept in a row of this table, with this in
 * place of a URL and no events: it is a signing secret of the store's like an endpoint's, it goes with
 * the store and into its backups like them, and no schema change is needed for it. That row is no
 * endpoint: `registered` leaves it out of every query of the endpoints a store registered. It is never
 * fanned out to (it subscribes to nothing), and no URL a registration accepts can equal it (targets.ts
 * takes http:// and https:// only).
 */
export const LISTEN_ROW_URL = 'storefront:listen'

/**
 * What a store reset keeps of this feature's rows, per table, as a condition on the row: the listen
 * secret's row. It is the store's signing secret, like its API keys, which a reset keeps too: a
 * receiver configured with the secret `storefront listen` printed keeps verifying after a reset.
 */
export const KEPT_BY_RESET: Readonly<Record<string, string>> = { webhook_endpoints: `url = '${LISTEN_ROW_URL}'` }

/** The endpoints a store registered, without its listen secret's row. */
export const registered = ne(webhookEndpoints.url, LISTEN_ROW_URL)

export const DELIVERY_STATUSES = ['PENDING', 'SUCCEEDED', 'FAILED'] as const
type DeliveryStatus = (typeof DELIVERY_STATUSES)[number]

/**
 * One row per attempt to send one event to one endpoint. A `PENDING` row is an attempt still to be
 * made at `dueAt`; a failed attempt that will be retried gets `nextRetryAt` and the next attempt is a
 * new `PENDING` row. Everything the dispatcher needs is here, so a restart (even after `kill -9`)
 * sends every `PENDING` row again: delivery is at-least-once.
 */
export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    id: text().primaryKey(),
    storeId: text('store_id').notNull(),
    webhookId: text('webhook_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    eventId: text('event_id')
      .notNull()
      .references(() => outboxEvents.id, { onDelete: 'cascade' }),
    /** 1 for the first attempt; retries and redeliveries count on. */
    attempt: integer().notNull(),
    /** Asked for with POST /webhooks/deliveries/:id/redeliver: sent once, never retried. */
    redelivery: integer({ mode: 'boolean' }).notNull().default(false),
    status: text().$type<DeliveryStatus>().notNull(),
    dueAt: integer('due_at').notNull(),
    createdAt: integer('created_at').notNull(),
    sentAt: integer('sent_at'),
    responseStatus: integer('response_status'),
    /** The first 2 KB of what the receiver answered. */
    responseBody: text('response_body'),
    error: text(),
    durationMs: integer('duration_ms'),
    requestHeaders: text('request_headers', { mode: 'json' }).$type<Record<string, string>>(),
    /** `<timestamp>.<body>`, the exact text that was signed (never the secret). */
    signedPayload: text('signed_payload'),
    nextRetryAt: integer('next_retry_at'),
  },
  (t) => [
    index('webhook_deliveries_store').on(t.storeId, t.createdAt),
    index('webhook_deliveries_due').on(t.webhookId, t.dueAt).where(pendingOnly(t.status)),
    // Deleting an event looks up its deliveries (the cascade, and whether one is still pending).
    index('webhook_deliveries_event').on(t.eventId),
  ],
)
