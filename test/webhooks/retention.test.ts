import { describe, expect, test } from 'bun:test'
import { desc, eq, sql } from 'drizzle-orm'
import { fanOut, MAX_WAITING_PER_ENDPOINT } from '../../src/features/webhooks/deliveries'
import { TRIM_EVERY } from '../../src/features/webhooks/dispatcher'
import { DELIVERY_LOG_KEEP } from '../../src/features/webhooks/retention'
import { webhookDeliveries as deliveries } from '../../src/features/webhooks/tables'
import { idempotencyKeys } from '../../src/features/orders/tables'
import { customerSessions, studentSessions } from '../../src/kernel/auth/tables'
import { outboxEvents } from '../../src/kernel/tables'
import { createTestApp } from '../helpers/app'
import { closedPortUrl, deliverDue, emit, startReceiver } from '../helpers/receivers'
import { apiKey, expectOk, oneStore, passwordOf } from '../helpers/world'

/** A ManualClock moves time; `retention.tick()` is the background pass, awaited instead of waited for. */
type TestApp = ReturnType<typeof createTestApp>

const DAY = 24 * 60 * 60 * 1000

async function setup() {
  const t = createTestApp({ settings: { allowLoopbackWebhooks: true } })
  const store = await oneStore(t.call, t.deps, 'a')
  return { t, store, storeId: store.group.storeId as string, headers: apiKey(store.key.apiKey) }
}

const register = async (t: TestApp, headers: Record<string, string>, url: string, events: string[]) =>
  (await expectOk(t.call('POST', '/v1/webhooks', { headers, body: { url, events } }), 201)).id as string

const attempts = (t: TestApp) =>
  t.deps.db.select({ id: deliveries.id, webhookId: deliveries.webhookId, eventId: deliveries.eventId, attempt: deliveries.attempt, status: deliveries.status }).from(deliveries).all()
const eventIds = (t: TestApp) => t.deps.db.select({ id: outboxEvents.id }).from(outboxEvents).all().map((e) => e.id).sort()

describe('retention', () => {
  test('attempts, delivered events, sessions and idempotency records older than RETENTION_DAYS are pruned; a pending retry and its event are kept', async () => {
    const { t, store, storeId, headers } = await setup()
    const receiver = startReceiver()
    const good = await register(t, headers, receiver.url, ['order.paid'])
    const bad = await register(t, headers, closedPortUrl(), ['order.cancelled'])
    const e1 = emit(t.deps, storeId, 'order.paid')
    const e2 = emit(t.deps, storeId, 'order.cancelled')
    const unheard = emit(t.deps, storeId, 'review.created') // no endpoint takes it
    await deliverDue(t.deps)
    expect(attempts(t).map((a) => `${a.webhookId === good ? 'good' : 'bad'} ${a.attempt} ${a.status}`).sort()).toEqual(['bad 1 FAILED', 'bad 2 PENDING', 'good 1 SUCCEEDED'])
    const key = { storeId, fingerprint: 'f', responseStatus: 200, responseBody: '{}' }
    t.deps.db.insert(idempotencyKeys).values({ ...key, key: 'old', createdAt: t.clock.now() }).run()

    // 31 days later, with the server down all along: the retry has not been sent.
    t.clock.advance(31 * DAY)
    await expectOk(t.call('POST', '/v1/store/auth/login', { body: { rm: store.rms.active, password: passwordOf(store.rms.active) } }))
    t.deps.db.insert(idempotencyKeys).values({ ...key, key: 'fresh', createdAt: t.clock.now() }).run()
    const ping = await expectOk(t.call('POST', `/v1/webhooks/${good}/ping`, { headers }), 202)

    const pruned = await t.deps.retention.tick()
    expect(pruned).toEqual({
      'webhook attempts older than the retention': 2,
      "webhook attempts beyond a store's log size": 0,
      'delivered events older than the retention': 1,
      'expired student sessions': 2,
      'expired customer sessions': 0,
      'idempotency records past their 24 h': 1,
    })
    expect(attempts(t).map((a) => `${a.webhookId === good ? 'good' : 'bad'} ${a.attempt} ${a.status} ${a.eventId}`).sort()).toEqual([
      `bad 2 PENDING ${e2}`,
      `good 1 PENDING ${ping.eventId}`,
    ])
    // e1 went with its last attempt, the unheard event by age; e2 stays for its retry.
    expect(eventIds(t)).toEqual([e2, ping.eventId].sort())
    expect(eventIds(t)).not.toContain(e1)
    expect(eventIds(t)).not.toContain(unheard)
    // The session logged in today stays; the customer's, expired a day ago, is kept until it is RETENTION_DAYS old.
    expect(t.deps.db.select().from(studentSessions).all().map((s) => s.createdAt)).toEqual([t.clock.now()])
    expect(t.deps.db.select().from(customerSessions).all()).toHaveLength(1)
    expect(t.deps.db.select({ key: idempotencyKeys.key }).from(idempotencyKeys).all()).toEqual([{ key: 'fresh' }])

    // The kept retry is sent as usual.
    await deliverDue(t.deps)
    expect(attempts(t).filter((a) => a.webhookId === bad).map((a) => `${a.attempt} ${a.status}`).sort()).toEqual(['2 FAILED', '3 PENDING'])
    t.clock.advance(30 * DAY)
    expect((await t.deps.retention.tick())['expired customer sessions']).toBe(1)
    expect(t.deps.db.select().from(customerSessions).all()).toEqual([])
  })

  test(`each store's log keeps its newest ${DELIVERY_LOG_KEEP} finished attempts, trimmed as they are recorded; pending ones are kept besides`, async () => {
    const { t, storeId, headers } = await setup()
    const receiver = startReceiver()
    for (let i = 0; i < 9; i++) await register(t, headers, `${receiver.url}-${i}`, ['order.paid'])
    const failing = await register(t, headers, closedPortUrl(), ['order.cancelled'])
    emit(t.deps, storeId, 'order.cancelled')
    for (let i = 0; i < 125; i++) {
      emit(t.deps, storeId, 'order.paid', { n: i })
      t.clock.advance(1000)
      await deliverDue(t.deps)
    }
    expect(receiver.received).toHaveLength(1125)
    const finished = () =>
      t.deps.db.select({ id: deliveries.id }).from(deliveries).where(sql`${deliveries.status} <> 'PENDING'`).orderBy(desc(deliveries.createdAt), desc(sql`rowid`)).all().map((d) => d.id)
    // 1,128 finished attempts (1,125 deliveries and 3 failures) were recorded; the dispatcher trimmed every 100.
    const before = finished()
    expect(before.length).toBeGreaterThanOrEqual(DELIVERY_LOG_KEEP)
    expect(before.length).toBeLessThan(DELIVERY_LOG_KEEP + TRIM_EVERY)

    await t.deps.retention.tick()
    expect(finished()).toEqual(before.slice(0, DELIVERY_LOG_KEEP))
    const pending = t.deps.db.select({ webhookId: deliveries.webhookId, attempt: deliveries.attempt }).from(deliveries).where(eq(deliveries.status, 'PENDING')).all()
    expect(pending).toEqual([{ webhookId: failing, attempt: 4 }])
    const log = await expectOk(t.call('GET', '/v1/webhooks/deliveries?pageSize=1', { headers }))
    expect(log.total).toBe(DELIVERY_LOG_KEEP + 1)
    // An event whose attempts are all gone is gone too.
    const orphans = t.deps.db.all(sql`select count(*) as n from outbox_events e where not exists (select 1 from webhook_deliveries d where d.event_id = e.id)`)
    expect(orphans).toEqual([{ n: 0 }])
  })

  test(`an endpoint with ${MAX_WAITING_PER_ENDPOINT} attempts waiting queues no more: a new event or ping is logged FAILED at once, saying why`, async () => {
    const { t, storeId, headers } = await setup()
    // Nothing is sent in this test (the dispatcher is not started): every attempt stays waiting.
    const hook = await register(t, headers, 'https://10.0.0.7/hook', ['*'])
    for (let i = 0; i < MAX_WAITING_PER_ENDPOINT + 1; i++) emit(t.deps, storeId, 'order.paid', { n: i })
    expect(fanOut(t.deps.db, t.deps.ids, t.clock.now(), 5000).refused).toEqual(new Map([[storeId, 1]]))
    const ping = await expectOk(t.call('POST', `/v1/webhooks/${hook}/ping`, { headers }), 202)
    const count = async (status: string) => (await expectOk(t.call('GET', `/v1/webhooks/deliveries?status=${status}&pageSize=5`, { headers }))).total
    expect(await count('PENDING')).toBe(MAX_WAITING_PER_ENDPOINT)
    const refused = (await expectOk(t.call('GET', '/v1/webhooks/deliveries?status=FAILED', { headers }))).data
    expect(refused.map((d: any) => d.eventType)).toEqual(['ping', 'order.paid'])
    expect(refused[0]).toMatchObject({
      id: ping.deliveryId, attempt: 1, sentAt: null, responseStatus: null, nextRetryAt: null,
      error: `backlog: ${MAX_WAITING_PER_ENDPOINT} attempts to this endpoint were already waiting (its receiver answers slower than the events come), so this one was not queued; make the receiver answer at once and work afterwards, then redeliver what it missed`,
    })
  })
})
