import { and, count, desc, eq, max, sql, type SQL } from 'drizzle-orm'
import type { StoreCtx } from '../../kernel/auth/kinds'
import { isoTime } from '../../kernel/clock'
import { writeTransaction, type Sql } from '../../kernel/db/database'
import type { Deps } from '../../kernel/deps'
import { AppError, assertBelowLimit, notFound } from '../../kernel/errors'
import { EVENT_TYPES } from '../../kernel/events'
import { pageWindow, toPage, type PageQuery } from '../../kernel/pagination'
import { outboxEvents } from '../../kernel/tables'
import { queueAttempt } from './deliveries'
import type { WebhooksDeps } from './dispatcher'
import type { DeliveryQuery, RegisterWebhookBody } from './model'
import { newSigningSecret, signature, signedPayload } from './signature'
import { registered, webhookDeliveries as deliveries, webhookEndpoints as endpoints } from './tables'
import { BadTarget } from './targets'

export const listEventTypes = () => Object.entries(EVENT_TYPES).map(([name, description]) => ({ name, description }))

const endpointNotFound = (id: string) => notFound('webhook endpoint', id, 'GET /v1/webhooks lists them')

const toEndpoint = (e: typeof endpoints.$inferSelect) => ({
  id: e.id,
  url: e.url,
  events: e.events,
  description: e.description,
  createdAt: isoTime(e.createdAt),
})

/** How many endpoints one store may have: each event goes to all of them, so they multiply its deliveries. */
export const MAX_ENDPOINTS_PER_STORE = 10

/**
 * The URL is checked on its resolved addresses here and again before every attempt. A name that
 * does not resolve yet is accepted (the app's name may be set up later): each attempt logs why it failed.
 */
export async function registerWebhook(deps: WebhooksDeps, ctx: StoreCtx, input: RegisterWebhookBody) {
  try {
    await deps.webhooks.checkTarget(input.url)
  } catch (e) {
    if (!(e instanceof BadTarget)) throw e
    if (e.kind !== 'dns') throw new AppError('VALIDATION_ERROR', `Invalid request body: url: ${e.message}.`, [{ path: 'url', message: e.message }])
  }
  const row = {
    id: deps.ids.next('whk'),
    storeId: ctx.storeId,
    url: input.url,
    events: input.events.includes('*') ? ['*'] : [...new Set(input.events)],
    description: input.description ?? null,
    secret: newSigningSecret(),
    createdAt: deps.clock.now(),
  }
  // Counted in the transaction of the insert: two registrations at once cannot both take the last place.
  writeTransaction(deps.db, (tx) => {
    const { n } = tx.select({ n: count() }).from(endpoints).where(and(eq(endpoints.storeId, ctx.storeId), registered)).get()!
    assertBelowLimit(n, MAX_ENDPOINTS_PER_STORE, {
      who: 'This store',
      things: 'webhook endpoints',
      owner: 'a store',
      fix: 'Delete one you no longer use (DELETE /v1/webhooks/:id) before adding another; one endpoint can take several events, or all of them with ["*"].',
    })
    tx.insert(endpoints).values(row).run()
  })
  return { ...toEndpoint(row), signingSecret: row.secret }
}

export function listWebhooks(deps: Deps, ctx: StoreCtx, query: PageQuery) {
  const { limit, offset } = pageWindow(query)
  const mine = and(eq(endpoints.storeId, ctx.storeId), registered)
  const rows = deps.db.select().from(endpoints).where(mine).orderBy(endpoints.createdAt, sql`rowid`).limit(limit).offset(offset).all()
  const [{ n }] = deps.db.select({ n: count() }).from(endpoints).where(mine).all() as [{ n: number }]
  return toPage(rows.map(toEndpoint), n, query)
}

/** Its deliveries log goes with it; attempts still pending are never sent. */
export function deleteWebhook(deps: Deps, ctx: StoreCtx, id: string) {
  const deleted = writeTransaction(deps.db, (tx) => tx.delete(endpoints).where(and(eq(endpoints.id, id), eq(endpoints.storeId, ctx.storeId), registered)).returning({ id: endpoints.id }).all())
  if (deleted.length === 0) throw endpointNotFound(id)
}

function endpointOf(db: Sql, ctx: StoreCtx, id: string) {
  const endpoint = db.select().from(endpoints).where(and(eq(endpoints.id, id), eq(endpoints.storeId, ctx.storeId), registered)).get()
  if (!endpoint) throw endpointNotFound(id)
  return endpoint
}

/**
 * A `ping` event for this endpoint only: no endpoint subscribes to pings (deliveries.ts), so the outbox
 * writes it as already dispatched and no other endpoint gets it. Emitting it wakes the dispatcher.
 */
export function pingWebhook(deps: WebhooksDeps, ctx: StoreCtx, id: string) {
  const { queued, ...ping } = writeTransaction(deps.db, (tx) => {
    endpointOf(tx, ctx, id)
    const now = deps.clock.now()
    const eventId = deps.outbox.emit(tx, ctx.storeId, 'ping', { webhookId: id, message: 'Hello from Storefront: your endpoint is reachable.' })
    const attempt = queueAttempt(tx, deps.ids, new Map(), { storeId: ctx.storeId, webhookId: id, eventId, attempt: 1, dueAt: now, now })
    return { eventId, deliveryId: attempt.id, queued: attempt.queued }
  })
  if (!queued) deps.webhooks.logged(ctx.storeId)
  return ping
}

/** The same event (same id, same body) to the same endpoint once more, now; not retried. */
export function redeliver(deps: WebhooksDeps, ctx: StoreCtx, deliveryId: string) {
  const { queued, ...redelivery } = writeTransaction(deps.db, (tx) => {
    const original = tx
      .select({ webhookId: deliveries.webhookId, eventId: deliveries.eventId })
      .from(deliveries)
      .where(and(eq(deliveries.id, deliveryId), eq(deliveries.storeId, ctx.storeId)))
      .get()
    if (!original) {
      throw notFound('webhook delivery', deliveryId, 'GET /v1/webhooks/deliveries lists them')
    }
    const [{ last }] = tx
      .select({ last: max(deliveries.attempt) })
      .from(deliveries)
      .where(and(eq(deliveries.webhookId, original.webhookId), eq(deliveries.eventId, original.eventId)))
      .all() as [{ last: number }]
    const now = deps.clock.now()
    const attempt = queueAttempt(tx, deps.ids, new Map(), { storeId: ctx.storeId, ...original, attempt: last + 1, dueAt: now, now, redelivery: true })
    return { eventId: original.eventId, deliveryId: attempt.id, queued: attempt.queued }
  })
  if (queued) deps.webhooks.wake()
  else deps.webhooks.logged(ctx.storeId)
  return redelivery
}

/** What this endpoint's secret makes of a timestamp and a body: for testing one's own verification code. */
export function signForEndpoint(deps: Deps, ctx: StoreCtx, id: string, input: { timestamp: number | string; body: string }) {
  const endpoint = endpointOf(deps.db, ctx, id)
  const payload = signedPayload(input.timestamp, input.body)
  return { signedPayload: payload, signature: signature(endpoint.secret, payload) }
}

const optionalTime = (ms: number | null) => (ms === null ? null : isoTime(ms))

export function listDeliveries(deps: Deps, ctx: StoreCtx, query: DeliveryQuery) {
  const { limit, offset } = pageWindow(query)
  const filters: SQL[] = [eq(deliveries.storeId, ctx.storeId)]
  if (query.webhookId) filters.push(eq(deliveries.webhookId, query.webhookId))
  if (query.eventType) filters.push(eq(outboxEvents.type, query.eventType))
  if (query.status) filters.push(eq(deliveries.status, query.status))
  // Every order event names its order in data.orderId (features/orders).
  if (query.orderId) filters.push(sql`json_extract(${outboxEvents.data}, '$.orderId') = ${query.orderId}`)
  const where = and(...filters)
  const rows = deps.db
    .select({ d: deliveries, eventType: outboxEvents.type })
    .from(deliveries)
    .innerJoin(outboxEvents, eq(outboxEvents.id, deliveries.eventId))
    .where(where)
    .orderBy(desc(deliveries.createdAt), desc(sql`${deliveries}.rowid`))
    .limit(limit)
    .offset(offset)
    .all()
  const [{ n }] = deps.db
    .select({ n: count() })
    .from(deliveries)
    .innerJoin(outboxEvents, eq(outboxEvents.id, deliveries.eventId))
    .where(where)
    .all() as [{ n: number }]
  const data = rows.map(({ d, eventType }) => ({
    id: d.id,
    webhookId: d.webhookId,
    eventId: d.eventId,
    eventType,
    attempt: d.attempt,
    status: d.status,
    redelivery: d.redelivery,
    scheduledAt: isoTime(d.dueAt),
    sentAt: optionalTime(d.sentAt),
    responseStatus: d.responseStatus,
    responseBody: d.responseBody,
    error: d.error,
    durationMs: d.durationMs,
    requestHeaders: d.requestHeaders,
    signedPayload: d.signedPayload,
    createdAt: isoTime(d.createdAt),
    nextRetryAt: optionalTime(d.nextRetryAt),
  }))
  return toPage(data, n, query)
}
