import { and, asc, count, eq, gt, isNull, lte, min, sql, type SQLWrapper } from 'drizzle-orm'
import type { Db, Sql } from '../../kernel/db/database'
import { writeTransaction } from '../../kernel/db/database'
import { inJsonIds } from '../../kernel/db/json-ids'
import { pendingOnly } from '../../kernel/db/pending'
import { perHandle } from '../../kernel/db/per-handle'
import { withParams } from '../../kernel/db/prepared'
import { withTableNames } from '../../kernel/db/table-names'
import type { Ids } from '../../kernel/ids'
import type { FanOutCheck } from '../../kernel/outbox'
import { outboxEvents } from '../../kernel/tables'
import type { AttemptResult } from './send'
import { webhookDeliveries as deliveries, webhookEndpoints as endpoints } from './tables'

/** Failed attempts are retried after these delays: 7 attempts, then FAILED for good. */
export const RETRY_DELAYS_MS = [10_000, 60_000, 5 * 60_000, 30 * 60_000, 2 * 60 * 60_000, 6 * 60 * 60_000]
const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1

/** As the partial index of pending attempts is written, so that the planner reads it. */
const isPending = pendingOnly(deliveries.status)

/**
 * Whether an endpoint subscribes to events of `type`: its list holds `*` or the name. An event name
 * holds no quote, so a name in quotes is found in the list's JSON text only as a whole entry:
 * `json_each` would cost every emit some 13 µs more than the insert itself (bench/README.md). The
 * listen secret's row subscribes to nothing.
 */
const subscribesTo = (type: SQLWrapper) => sql`(instr(${endpoints.events}, '"*"') or instr(${endpoints.events}, '"' || ${type} || '"'))`

/**
 * Whether an event of `type` has an endpoint of its store to be fanned out to (the outbox writes an
 * event that has none as dispatched; kernel/outbox.ts). A ping has no subscriber, `*` included: it goes
 * to the one endpoint it was asked for, which pingWebhook queues it for.
 */
export const hasSubscriber: FanOutCheck = (storeId, type) =>
  withTableNames(sql`${type} <> 'ping' and exists (select 1 from ${endpoints} where ${endpoints.storeId} = ${storeId} and ${subscribesTo(type)})`)

/**
 * An endpoint with this many attempts waiting takes no new event: its receiver answers slower than
 * events come, and every waiting attempt is a row that retention must keep until it is sent.
 */
export const MAX_WAITING_PER_ENDPOINT = 1000

const BACKLOG = `backlog: ${MAX_WAITING_PER_ENDPOINT} attempts to this endpoint were already waiting (its receiver answers slower than the events come), so this one was not queued; make the receiver answer at once and work afterwards, then redeliver what it missed`

const p = sql.placeholder

/*
 * What the dispatcher runs on every look (after each turn of the event loop that emitted events) and
 * every attempt, prepared once per handle: drizzle builds a statement's SQL text on every call
 * otherwise, which was most of the cost of a look (bench/README.md).
 */
const statements = perHandle((db: Sql) => ({
  insert: withParams<Pick<typeof deliveries.$inferSelect, 'id' | 'storeId' | 'webhookId' | 'eventId' | 'attempt' | 'redelivery' | 'status' | 'error' | 'dueAt' | 'createdAt'>>()(
    db
      .insert(deliveries)
      .values({
        id: p('id'),
        storeId: p('storeId'),
        webhookId: p('webhookId'),
        eventId: p('eventId'),
        attempt: p('attempt'),
        redelivery: p('redelivery'),
        status: p('status'),
        error: p('error'),
        dueAt: p('dueAt'),
        createdAt: p('createdAt'),
      })
      .prepare(),
  ),
  waiting: withParams<{ webhookId: string }>()(db.select({ n: count() }).from(deliveries).where(and(eq(deliveries.webhookId, p('webhookId')), isPending)).prepare()),
  anyPending: db.select({ one: sql<number>`1` }).from(outboxEvents).where(isNull(outboxEvents.dispatchedAt)).limit(1).prepare(),
  events: withParams<{ batch: number }>()(db.select().from(outboxEvents).where(isNull(outboxEvents.dispatchedAt)).orderBy(asc(outboxEvents.createdAt)).limit(p('batch')).prepare()),
  subscribers: withParams<{ storeId: string; type: string }>()(db.select({ id: endpoints.id }).from(endpoints).where(and(eq(endpoints.storeId, p('storeId')), subscribesTo(p('type')))).prepare()),
  dispatched: withParams<{ ids: string; now: number }>()(
    db
      .update(outboxEvents)
      .set({ dispatchedAt: sql`${p('now')}` })
      .where(inJsonIds(outboxEvents.id))
      .prepare(),
  ),
  due: withParams<{ now: number }>()(
    db
      .select({ webhookId: deliveries.webhookId, storeId: deliveries.storeId })
      .from(deliveries)
      .where(and(isPending, lte(deliveries.dueAt, p('now'))))
      .groupBy(deliveries.webhookId)
      .prepare(),
  ),
  // What an attempt did; nothing when it is no longer pending (its endpoint was deleted meanwhile).
  record: withParams<{
    id: string
    status: (typeof deliveries.$inferSelect)['status']
    sentAt: number
    responseStatus: number | null
    responseBody: string | null
    error: string | null
    durationMs: number | null
    requestHeaders: string
    signedPayload: string
    nextRetryAt: number | null
  }>()(
    db
      .update(deliveries)
      .set({
        status: sql`${p('status')}`,
        sentAt: sql`${p('sentAt')}`,
        responseStatus: sql`${p('responseStatus')}`,
        responseBody: sql`${p('responseBody')}`,
        error: sql`${p('error')}`,
        durationMs: sql`${p('durationMs')}`,
        requestHeaders: sql`${p('requestHeaders')}`,
        signedPayload: sql`${p('signedPayload')}`,
        nextRetryAt: sql`${p('nextRetryAt')}`,
      })
      .where(and(eq(deliveries.id, p('id')), isPending))
      .returning({ id: deliveries.id })
      .prepare(),
  ),
  nextDue: withParams<{ now: number }>()(db.select({ at: min(deliveries.dueAt) }).from(deliveries).where(and(isPending, gt(deliveries.dueAt, p('now')))).prepare()),
}))

type NewAttempt = { storeId: string; webhookId: string; eventId: string; attempt: number; dueAt: number; now: number; redelivery?: boolean }

/** A new attempt, to be sent at `dueAt`; or, with `refused`, one recorded FAILED at once with that error. */
export function insertAttempt(tx: Sql, ids: Ids, a: NewAttempt & { refused?: string }): string {
  const id = ids.next('dlv')
  statements(tx).insert.run({
    id, storeId: a.storeId, webhookId: a.webhookId, eventId: a.eventId, attempt: a.attempt, redelivery: a.redelivery ?? false,
    status: a.refused ? 'FAILED' : 'PENDING', error: a.refused ?? null, dueAt: a.dueAt, createdAt: a.now,
  })
  return id
}

/** Attempts waiting per endpoint, counted once per endpoint in a transaction and kept up to date by queueAttempt. */
export type Waiting = Map<string, number>

/**
 * A first attempt or a redelivery: queued, unless MAX_WAITING_PER_ENDPOINT attempts already wait at
 * that endpoint; then it is recorded FAILED at once, which the log shows. (A retry takes the place of
 * the attempt it follows, so it is always queued.)
 */
export function queueAttempt(tx: Sql, ids: Ids, waiting: Waiting, a: NewAttempt): { id: string; queued: boolean } {
  const n = waiting.get(a.webhookId) ?? statements(tx).waiting.get({ webhookId: a.webhookId })!.n
  const queued = n < MAX_WAITING_PER_ENDPOINT
  waiting.set(a.webhookId, queued ? n + 1 : n)
  return { id: insertAttempt(tx, ids, queued ? a : { ...a, refused: BACKLOG }), queued }
}

/**
 * Turns up to `batch` events of the outbox into first attempts, one per subscribed endpoint of the
 * event's store, and marks them dispatched in the same transaction: an event is fanned out exactly
 * once, even across a crash. Returns how many events it took, and per store how many attempts were
 * recorded FAILED at once for a backlog.
 */
export function fanOut(db: Db, ids: Ids, now: number, batch: number): { taken: number; refused: Map<string, number> } {
  // Most events had no one to go to and were written dispatched: with none waiting, no transaction.
  if (!statements(db).anyPending.get()) return { taken: 0, refused: new Map() }
  return writeTransaction(db, (tx) => {
    const q = statements(tx)
    const events = q.events.all({ batch })
    // The subscribers of each store and event type of the batch, asked once.
    const targetsOf = new Map<string, { id: string }[]>()
    const waiting: Waiting = new Map()
    const refused = new Map<string, number>()
    for (const event of events) {
      const key = `${event.storeId} ${event.type}`
      let targets = targetsOf.get(key)
      if (!targets) targetsOf.set(key, (targets = q.subscribers.all({ storeId: event.storeId, type: event.type })))
      for (const endpoint of targets) {
        const { queued } = queueAttempt(tx, ids, waiting, { storeId: event.storeId, webhookId: endpoint.id, eventId: event.id, attempt: 1, dueAt: now, now })
        if (!queued) refused.set(event.storeId, (refused.get(event.storeId) ?? 0) + 1)
      }
    }
    if (events.length > 0) {
      q.dispatched.run({ ids: JSON.stringify(events.map((e) => e.id)), now })
    }
    return { taken: events.length, refused }
  })
}

/** Endpoints with attempts due now, with their store. */
export const endpointsWithDueAttempts = (db: Db, now: number): { webhookId: string; storeId: string }[] => statements(db).due.all({ now })

/** When the next attempt not yet due falls due, if any. */
export const nextDueAfter = (db: Db, now: number): number | null => statements(db).nextDue.get({ now })?.at ?? null

/**
 * The attempts of one endpoint that are due, oldest first, with what sending them takes: at most
 * `limit`, in-flight ones included (the caller skips those). Prepared once: it runs after every attempt.
 */
export function dueAttemptsQuery(db: Db) {
  const query = db
    .select({
      id: deliveries.id,
      storeId: deliveries.storeId,
      webhookId: deliveries.webhookId,
      attempt: deliveries.attempt,
      redelivery: deliveries.redelivery,
      url: endpoints.url,
      secret: endpoints.secret,
      event: { id: outboxEvents.id, type: outboxEvents.type, createdAt: outboxEvents.createdAt, data: outboxEvents.data },
    })
    .from(deliveries)
    .innerJoin(endpoints, eq(endpoints.id, deliveries.webhookId))
    .innerJoin(outboxEvents, eq(outboxEvents.id, deliveries.eventId))
    .where(and(eq(deliveries.webhookId, sql.placeholder('webhookId')), isPending, lte(deliveries.dueAt, sql.placeholder('now'))))
    .orderBy(asc(deliveries.dueAt), asc(sql`${deliveries}.rowid`))
    .limit(sql.placeholder('limit'))
    .prepare()
  return (webhookId: string, now: number, limit: number) => query.all({ webhookId, now, limit })
}

export type DueAttempt = ReturnType<ReturnType<typeof dueAttemptsQuery>>[number]

/**
 * Writes what one attempt did and, when it failed and retries remain, the next attempt. Returns when
 * that next attempt is due, or null. Nothing is written when the endpoint was deleted meanwhile.
 */
export function recordAttempt(
  db: Db,
  ids: Ids,
  sent: DueAttempt,
  outcome: { sentAt: number; headers: Record<string, string>; payload: string; result: AttemptResult; now: number },
): number | null {
  const { result, now } = outcome
  const retries = !result.ok && !sent.redelivery && sent.attempt < MAX_ATTEMPTS
  const nextRetryAt = retries ? now + RETRY_DELAYS_MS[sent.attempt - 1]! : null
  return writeTransaction(db, (tx) => {
    const recorded = statements(tx).record.get({
      id: sent.id,
      status: result.ok ? 'SUCCEEDED' : 'FAILED',
      sentAt: outcome.sentAt,
      responseStatus: result.responseStatus,
      responseBody: result.responseBody,
      error: result.error,
      durationMs: result.durationMs,
      requestHeaders: JSON.stringify(outcome.headers),
      signedPayload: outcome.payload,
      nextRetryAt,
    })
    if (!recorded || nextRetryAt === null) return null
    insertAttempt(tx, ids, { storeId: sent.storeId, webhookId: sent.webhookId, eventId: sent.event.id, attempt: sent.attempt + 1, dueAt: nextRetryAt, now })
    return nextRetryAt
  })
}
