import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { eq } from 'drizzle-orm'
import { createApp } from '../../src/app'
import { loadConfig } from '../../src/config'
import { BEFORE_FIRST_EVENT, MAX_LISTENERS, MAX_REPLAY, REPLAY_WINDOW } from '../../src/features/webhooks/listen'
import { eventBody } from '../../src/features/webhooks/signature'
import { writeTransaction } from '../../src/kernel/db/database'
import { openDatabase } from '../../src/kernel/db/open'
import type { EventType } from '../../src/kernel/events'
import { systemIds } from '../../src/kernel/ids'
import { memoryLog } from '../../src/kernel/log'
import { outboxEvents } from '../../src/kernel/tables'
import { createDeps } from '../../src/wiring'
import { ADMIN_TOKEN, createTestApp } from '../helpers/app'
import { shopSetup } from '../helpers/orders'
import { emit, eventData } from '../helpers/receivers'
import { activeStudent, admin, apiKey, bearer, createKey, expectOk, twoStores } from '../helpers/world'
import { openListen, type ListenMessage } from './listen-stream'

const LISTEN_NAMES = 'order.created, order.paid, order.cancelled, order.refunded, product.low_stock, shipment.updated, review.created'

async function setup() {
  const t = createTestApp({ settings: { rateLimitRps: '0' } })
  return { ...t, w: await twoStores(t.call, t.deps) }
}

/** Every message the stream has waiting, in order, until none more comes. */
async function waiting(stream: Awaited<ReturnType<typeof openListen>>) {
  const got: ListenMessage[] = []
  while (!(await stream.nothingMore())) got.push(await stream.next())
  return got.map((m) => ({ event: m.event, id: m.id, type: m.data.type }))
}

/** Emits one event of each type in the store, and expects the stream to send exactly those, in order. */
async function sendsEach(t: { deps: any }, stream: Awaited<ReturnType<typeof openListen>>, storeId: string, types: readonly EventType[]) {
  const ids = types.map((type) => emit(t.deps, storeId, type))
  expect(await waiting(stream)).toEqual(ids.map((id, i) => ({ event: 'webhook', id, type: types[i] })))
}

/** Resets a group's store (teacher route); its answer says how many rows each table lost. */
const resetStore = (t: { call: any }, groupId: string) => expectOk(t.call('POST', `/v1/admin/groups/${groupId}/reset-store`, { headers: admin }))

/** The body a delivery of this stored event would POST. */
const bodyOf = (t: { deps: any }, id: string) => {
  const e = t.deps.db.select().from(outboxEvents).where(eq(outboxEvents.id, id)).get()!
  return eventBody(e)
}

describe('GET /v1/webhooks/listen', () => {
  test('a publishable key is 403 SECRET_KEY_REQUIRED, an unknown key 401, and neither opens a stream', async () => {
    const t = await setup()
    const pk = await createKey(t.call, t.w.A.student, 'shop', 'publishable')
    const refused = await t.call('GET', '/v1/webhooks/listen', { headers: apiKey(pk.apiKey) })
    expect([refused.status, refused.body.error.code]).toEqual([403, 'SECRET_KEY_REQUIRED'])
    expect(refused.body.error.message).toStartWith("This route needs the store's secret key (sk_...)")
    const unknown = await t.call('GET', '/v1/webhooks/listen', { headers: apiKey('sk_00000000_notakeyatall0000000000000000') })
    expect([unknown.status, unknown.body.error.code]).toEqual([401, 'UNAUTHENTICATED'])
    expect((await expectOk(t.call('GET', '/v1/webhooks/listeners', { headers: bearer(t.w.A.student) }))).data).toEqual([])
  })

  test('an unknown name in events is a 400 listing the names a listener receives; ping is not one of them', async () => {
    const t = await setup()
    for (const [events, bad] of [
      ['order.paid,order.shipped', 'order.shipped'],
      ['ping', 'ping'],
    ]) {
      const res = await t.call('GET', `/v1/webhooks/listen?events=${events}`, { headers: apiKey(t.w.A.key.apiKey) })
      expect(res.status).toBe(400)
      expect(res.body.error.code).toBe('VALIDATION_ERROR')
      const message = `'${bad}' is not an event a listener receives. Valid names: ${LISTEN_NAMES}, or "*" for all of them (GET /v1/webhooks/events describes each; ping goes to registered endpoints only)`
      expect(res.body.error.details).toEqual([{ path: 'events', message }])
    }
  })

  test('ready comes first with the listen secret, the same on every connection, for a student token and the key, and after a restart on the same database', async () => {
    const t = await setup()
    const first = await openListen(t.app, apiKey(t.w.A.key.apiKey))
    expect(first.response.status).toBe(200)
    expect(first.response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
    const ready = await first.next()
    expect(ready.event).toBe('ready')
    expect(ready.data.signingSecret).toMatch(/^whsec_[0-9a-z]{32}$/)
    expect(ready.data.events).toEqual(['*'])
    // A store with no event yet starts "before its first event".
    expect(ready.id).toBe(BEFORE_FIRST_EVENT)
    await first.close()
    const second = await openListen(t.app, bearer(t.w.A.student), '?events=order.paid,order.cancelled')
    const again = await second.next()
    expect(again.data).toEqual({ signingSecret: ready.data.signingSecret, events: ['order.paid', 'order.cancelled'] })
    await second.close()
    // Another store has a secret of its own.
    const b = await openListen(t.app, apiKey(t.w.B.key.apiKey))
    const bReady = await b.next()
    expect(bReady.data.signingSecret).toMatch(/^whsec_/)
    expect(bReady.data.signingSecret).not.toBe(ready.data.signingSecret)
    await b.close()

    // The same data folder opened by a new process: the secret was kept.
    await t.deps.lifecycle.stop()
    t.database.close()
    const database = openDatabase(join(t.dir, 'storefront.db'))
    try {
      const deps = createDeps(loadConfig({ dataDir: t.dir, rateLimitRps: '0' }, {}), database, { clock: t.clock, ids: systemIds, log: memoryLog(), adminToken: ADMIN_TOKEN, publicUrl: 'http://localhost:3000' })
      const restarted = await openListen(createApp(deps), apiKey(t.w.A.key.apiKey))
      expect((await restarted.next()).data.signingSecret).toBe(ready.data.signingSecret)
      await restarted.close()
      await deps.lifecycle.stop()
    } finally {
      database.close()
    }
  })

  test("a store reset keeps the listen secret, as it keeps the store's keys: a stream opened after it announces the same one", async () => {
    const t = await setup()
    const key = apiKey(t.w.A.key.apiKey)
    const before = await openListen(t.app, key)
    const secret = (await before.next()).data.signingSecret
    await before.close()
    await expectOk(t.call('POST', '/v1/webhooks', { headers: key, body: { url: 'https://hooks.example/a', events: ['*'] } }), 201)
    const { removed } = await resetStore(t, t.w.A.group.id)
    // The registered endpoint went; the listen secret's row is no endpoint, and stays.
    expect(removed.webhook_endpoints).toBe(1)
    expect(await expectOk(t.call('GET', '/v1/webhooks', { headers: key }))).toMatchObject({ data: [], total: 0 })
    const after = await openListen(t.app, key)
    expect((await after.next()).data.signingSecret).toBe(secret)
    // storefront listen signs what it forwards with the secret it was given; the stream goes on.
    const id = emit(t.deps, t.w.A.group.storeId, 'order.paid')
    expect((await after.webhooks(1)).map((m) => [m.id, m.data.body])).toEqual([[id, bodyOf(t, id)]])
    await after.close()
  })

  test('the listen secret is no endpoint: the list, the count of 10, delete, ping and sign do not see it', async () => {
    const t = await setup()
    const key = apiKey(t.w.A.key.apiKey)
    const s = await openListen(t.app, key)
    await s.next()
    await s.close()
    expect(await expectOk(t.call('GET', '/v1/webhooks', { headers: key }))).toMatchObject({ data: [], total: 0 })
    for (let i = 0; i < 10; i++) await expectOk(t.call('POST', '/v1/webhooks', { headers: key, body: { url: `https://hooks.example/${i}`, events: ['*'] } }), 201)
    const id = `whk_listen_${t.w.A.group.storeId}`
    expect((await t.call('POST', `/v1/webhooks/${id}/sign`, { headers: key, body: { timestamp: 1, body: '{}' } })).status).toBe(404)
    expect((await t.call('POST', `/v1/webhooks/${id}/ping`, { headers: key })).status).toBe(404)
    expect((await t.call('DELETE', `/v1/webhooks/${id}`, { headers: key })).status).toBe(404)
  })

  test('sends each new event of the store as the body a delivery would POST, only the types asked for, nothing of another store', async () => {
    const t = await shopSetup()
    const stream = await openListen(t.app, apiKey(t.w.A.key.apiKey), '?events=order.paid')
    await stream.next()
    emit(t.deps, t.w.B.group.storeId, 'order.paid', { orderId: 'ord_b' })
    const order = await t.shop.buy(t.variantId)
    await expectOk(t.shop.pay(order.id))
    const [paid] = await stream.webhooks(1)
    const stored = t.deps.db.select().from(outboxEvents).where(eq(outboxEvents.type, 'order.paid')).all().find((e) => e.storeId === t.w.A.group.storeId)!
    expect(paid!.id).toBe(stored.id)
    expect(paid!.data).toEqual({ type: 'order.paid', body: eventBody(stored) })
    expect(JSON.parse(paid!.data.body)).toMatchObject({ id: stored.id, type: 'order.paid', data: { orderId: order.id } })
    // order.created came before it and was left out; nothing else is waiting.
    expect(await stream.nothingMore()).toBe(true)
    await stream.close()
  })

  test('a stream ends when the credential that opened it does: a revoked key, a removed member; the key still valid goes on', async () => {
    const t = await setup()
    const { A } = t.w
    const spare = await activeStudent(t.call, A.rms.spare)
    const streams = [apiKey(A.key.apiKey), apiKey(A.spareKey.apiKey), bearer(spare)].map((headers) => openListen(t.app, headers))
    const [kept, revoked, removed] = await Promise.all(streams)
    for (const s of [kept, revoked, removed]) expect((await s!.next()).event).toBe('ready')
    await expectOk(t.call('DELETE', `/v1/store/api-keys/${A.spareKey.id}`, { headers: bearer(A.student) }), 204)
    await expectOk(t.call('DELETE', `/v1/store/members/${A.rms.spare}`, { headers: bearer(A.student) }), 204)
    const id = emit(t.deps, A.group.storeId, 'order.paid')
    expect((await kept!.webhooks(1)).map((m) => m.id)).toEqual([id])
    // storefront listen, reconnecting, is then told why by the 401.
    for (const s of [revoked, removed]) expect(await s!.next().catch((e: Error) => e.message)).toBe('the stream ended')
    expect((await expectOk(t.call('GET', '/v1/webhooks/listeners', { headers: apiKey(A.key.apiKey) }))).data).toHaveLength(1)
    await kept!.close()
  })

  test('a reconnection with Last-Event-ID gets the events written meanwhile, in order, none twice, then new ones', async () => {
    const t = await setup()
    const storeId = t.w.A.group.storeId
    const key = apiKey(t.w.A.key.apiKey)
    const first = await openListen(t.app, key)
    const ready = await first.next()
    const a = emit(t.deps, storeId, 'order.paid', { n: 1 })
    const [got] = await first.webhooks(1)
    expect(got!.id).toBe(a)
    await first.close()

    const missed = [emit(t.deps, storeId, 'order.created', { n: 2 }), emit(t.deps, storeId, 'order.paid', { n: 3 }), emit(t.deps, storeId, 'order.cancelled', { n: 4 })]
    emit(t.deps, t.w.B.group.storeId, 'order.paid', { n: 'other store' })
    const second = await openListen(t.app, { ...key, 'last-event-id': a })
    const resumed = await second.next()
    expect([resumed.event, resumed.id]).toEqual(['ready', a])
    const replayed = await second.webhooks(3)
    expect(replayed.map((m) => m.id)).toEqual(missed)
    expect(replayed.map((m) => m.data.body)).toEqual(missed.map((id) => bodyOf(t, id)))
    const live = emit(t.deps, storeId, 'order.refunded', { n: 5 })
    expect((await second.webhooks(1)).map((m) => m.id)).toEqual([live])
    expect(await second.nothingMore()).toBe(true)
    await second.close()

    // With the ready message's id, a client that had received nothing misses nothing either.
    const third = await openListen(t.app, { ...key, 'last-event-id': ready.id! })
    await third.next()
    expect((await third.webhooks(5)).map((m) => m.id)).toEqual([a, ...missed, live])
    await third.close()
  })

  test("a store's events wake only its own streams: another store's orders make them read nothing", async () => {
    const t = await setup()
    const [a, b] = [t.w.A.group.storeId, t.w.B.group.storeId]
    const streamA = await openListen(t.app, apiKey(t.w.A.key.apiKey))
    const streamB = await openListen(t.app, apiKey(t.w.B.key.apiKey))
    await streamA.next()
    await streamB.next()
    const reads = () => ({ a: t.deps.listeners.reads.get(a) ?? 0, b: t.deps.listeners.reads.get(b) ?? 0 })
    const before = reads()
    // Each in its own turn of the event loop, so that each is a wake of its own.
    const ofB: string[] = []
    for (let i = 0; i < 5; i++) {
      ofB.push(emit(t.deps, b, 'order.paid', { orderId: `ord_b${i}` }))
      expect((await streamB.webhooks(1))[0]!.id).toBe(ofB[i])
    }
    expect(await streamA.nothingMore()).toBe(true)
    const afterB = reads()
    expect(afterB.a).toBe(before.a)
    expect(afterB.b).toBeGreaterThanOrEqual(before.b + 5)
    // A's own event wakes it.
    const ofA = emit(t.deps, a, 'order.paid', { orderId: 'ord_a' })
    expect((await streamA.webhooks(1))[0]!.id).toBe(ofA)
    expect(reads().a).toBeGreaterThan(afterB.a)
    await streamA.close()
    await streamB.close()
  })

  test("an open stream still gets the events written after a reset deleted the store's events, the newest of all", async () => {
    const t = await setup()
    const storeId = t.w.A.group.storeId
    const stream = await openListen(t.app, apiKey(t.w.A.key.apiKey))
    await stream.next()
    const before = [emit(t.deps, storeId, 'order.created'), emit(t.deps, storeId, 'order.paid'), emit(t.deps, storeId, 'order.cancelled')]
    expect((await stream.webhooks(3)).map((m) => m.id)).toEqual(before)
    expect((await resetStore(t, t.w.A.group.id)).removed.outbox_events).toBe(3)

    // A place given to an event is never given again, so these come after the stream's place.
    await sendsEach(t, stream, storeId, ['order.created', 'order.paid', 'order.refunded', 'review.created'])
    await stream.close()
  })

  test("a reconnection with Last-Event-ID, open while another store's newest events are deleted, gets what follows", async () => {
    const t = await setup()
    const storeId = t.w.A.group.storeId
    const key = apiKey(t.w.A.key.apiKey)
    const first = await openListen(t.app, key)
    await first.next()
    const seen = emit(t.deps, storeId, 'order.created')
    expect((await first.webhooks(1)).map((m) => m.id)).toEqual([seen])
    await first.close()

    const missed = emit(t.deps, storeId, 'order.paid')
    for (const type of ['order.created', 'order.paid', 'order.cancelled'] as const) emit(t.deps, t.w.B.group.storeId, type)
    const second = await openListen(t.app, { ...key, 'last-event-id': seen })
    expect((await second.next()).id).toBe(seen)
    expect(await waiting(second)).toEqual([{ event: 'webhook', id: missed, type: 'order.paid' }])
    // Store B's events were the newest of all; its reset deletes them under the open stream.
    expect((await resetStore(t, t.w.B.group.id)).removed.outbox_events).toBe(3)

    await sendsEach(t, second, storeId, ['order.refunded', 'order.created', 'order.paid', 'shipment.updated'])
    await second.close()
  })

  test(`a reconnection is sent at most the newest ${MAX_REPLAY} events missed, after a gap message; an unknown event id gets a gap message and new events`, async () => {
    const t = await setup()
    const storeId = t.w.A.group.storeId
    const key = apiKey(t.w.A.key.apiKey)
    const last = emit(t.deps, storeId, 'order.paid', { n: 0 })
    const ids = writeTransaction(t.deps.db, (tx) => Array.from({ length: MAX_REPLAY + 5 }, (_, i) => t.deps.outbox.emit(tx, storeId, 'order.created', eventData('order.created', { n: i + 1 }))))
    const stream = await openListen(t.app, { ...key, 'last-event-id': last })
    const ready = await stream.next()
    expect(ready.id).toBe(ids[4])
    const gap = await stream.next()
    expect(gap).toEqual({
      event: 'gap',
      id: undefined,
      data: {
        message: `5 older events missed since ${last} were skipped: a reconnection is sent at most the newest ${MAX_REPLAY} of the events it missed, from the store's newest ${REPLAY_WINDOW} events. GET /v1/store/orders shows where your orders stand.`,
      },
    })
    const replayed = await stream.webhooks(MAX_REPLAY)
    expect(replayed.map((m) => m.id)).toEqual(ids.slice(5))
    expect(await stream.nothingMore()).toBe(true)
    await stream.close()

    const lost = await openListen(t.app, { ...key, 'last-event-id': 'evt_gone0000000000' })
    expect((await lost.next()).id).toBe(ids.at(-1))
    expect((await lost.next()).data.message).toBe(
      "The event evt_gone0000000000 is not among this store's events (they are kept for the server's RETENTION_DAYS, and a restored backup holds only those written before it was taken), so the events missed since cannot be sent; new events follow. GET /v1/store/orders shows where your orders stand.",
    )
    const next = emit(t.deps, storeId, 'order.paid', {})
    expect((await lost.webhooks(1))[0]!.id).toBe(next)
    await lost.close()
    // Another store's event id is not a place in this store's events.
    const bEvent = emit(t.deps, t.w.B.group.storeId, 'order.paid', {})
    const foreign = await openListen(t.app, { ...key, 'last-event-id': bEvent })
    await foreign.next()
    expect((await foreign.next()).event).toBe('gap')
    await foreign.close()

    const bad = await t.call('GET', '/v1/webhooks/listen', { headers: { ...key, 'last-event-id': 'yesterday' } })
    expect([bad.status, bad.body.error.code]).toEqual([400, 'VALIDATION_ERROR'])
    expect(bad.body.error.message).toBe(`Last-Event-ID must be the id of the last event received (evt_...), or ${BEFORE_FIRST_EVENT} when the ready message said so; leave it out to receive new events only.`)
  })

  test('a reconnection that asked for some events is sent only those it missed, and its gap counts only those', async () => {
    const t = await setup()
    const storeId = t.w.A.group.storeId
    const key = apiKey(t.w.A.key.apiKey)
    const last = emit(t.deps, storeId, 'order.paid', { n: 0 })
    // Paid and created in turn: MAX_REPLAY + 2 paid ones, as many created ones the stream does not ask for.
    const paid = writeTransaction(t.deps.db, (tx) =>
      Array.from({ length: MAX_REPLAY + 2 }, (_, i) => {
        t.deps.outbox.emit(tx, storeId, 'order.created', eventData('order.created', { n: i }))
        return t.deps.outbox.emit(tx, storeId, 'order.paid', eventData('order.paid', { n: i + 1 }))
      }),
    )
    const stream = await openListen(t.app, { ...key, 'last-event-id': last }, '?events=order.paid,order.refunded')
    expect((await stream.next()).id).toBe(paid[1])
    expect((await stream.next()).data.message).toStartWith(`2 older events missed since ${last} were skipped`)
    expect((await stream.webhooks(MAX_REPLAY)).map((m) => m.id)).toEqual(paid.slice(2))
    expect(await stream.nothingMore()).toBe(true)
    const refunded = emit(t.deps, storeId, 'order.refunded', {})
    emit(t.deps, storeId, 'order.created', {})
    expect(await waiting(stream)).toEqual([{ event: 'webhook', id: refunded, type: 'order.refunded' }])
    await stream.close()
  })

  test('an EventSource polyfill reconnecting with ?lastEventId= is read as the Last-Event-ID header; the header comes first', async () => {
    const t = await setup()
    const storeId = t.w.A.group.storeId
    const key = apiKey(t.w.A.key.apiKey)
    const [first, second, third] = [emit(t.deps, storeId, 'order.paid', { n: 1 }), emit(t.deps, storeId, 'order.paid', { n: 2 }), emit(t.deps, storeId, 'order.paid', { n: 3 })]
    const polyfill = await openListen(t.app, key, `?lastEventId=${first}`)
    expect((await polyfill.next()).id).toBe(first)
    expect((await polyfill.webhooks(2)).map((m) => m.id)).toEqual([second, third])
    await polyfill.close()
    const both = await openListen(t.app, { ...key, 'last-event-id': second }, `?lastEventId=${first}`)
    await both.next()
    expect((await both.webhooks(1)).map((m) => m.id)).toEqual([third])
    expect(await both.nothingMore()).toBe(true)
    await both.close()
  })

  test(`a reconnection looks only at the store's newest ${REPLAY_WINDOW} events: what it asked for before them is skipped, and said so`, async () => {
    const t = await setup()
    const storeId = t.w.A.group.storeId
    const key = apiKey(t.w.A.key.apiKey)
    const last = emit(t.deps, storeId, 'order.paid', { n: 0 })
    // Three paid ones, then more created ones than the window holds, then two paid ones: the newest events.
    const [, created, recent] = writeTransaction(t.deps.db, (tx) => {
      const emitMany = (type: 'order.paid' | 'order.created', n: number) => Array.from({ length: n }, (_, i) => t.deps.outbox.emit(tx, storeId, type, eventData(type, { n: i })))
      return [emitMany('order.paid', 3), emitMany('order.created', REPLAY_WINDOW), emitMany('order.paid', 2)]
    })
    const stream = await openListen(t.app, { ...key, 'last-event-id': last }, '?events=order.paid')
    // The stream starts just before the window: the newest REPLAY_WINDOW events are the two paid and all created but two.
    expect((await stream.next()).id).toBe(created[1])
    // A stream of some types cannot tell whether the events before the window held any of them: it says so.
    expect((await stream.next()).data.message).toBe(
      `The store wrote more than ${REPLAY_WINDOW} events since ${last}, and a reconnection is sent at most the newest ${MAX_REPLAY} of the events it missed, from the store's newest ${REPLAY_WINDOW} events: if events of this stream's types were among the older ones, they were skipped. GET /v1/store/orders shows where your orders stand.`,
    )
    expect((await stream.webhooks(2)).map((m) => m.id)).toEqual(recent)
    expect(await stream.nothingMore()).toBe(true)
    await stream.close()
    // A stream of every type knows that older events were skipped.
    const every = await openListen(t.app, { ...key, 'last-event-id': last })
    // It starts before the newest MAX_REPLAY events: created ones and the two paid.
    expect((await every.next()).id).toBe(created[REPLAY_WINDOW - MAX_REPLAY + 1])
    expect((await every.next()).data.message).toBe(
      `Older events missed since ${last} were skipped: a reconnection is sent at most the newest ${MAX_REPLAY} of the events it missed, from the store's newest ${REPLAY_WINDOW} events. GET /v1/store/orders shows where your orders stand.`,
    )
    await every.close()
  })

  test(`at most ${MAX_LISTENERS} listen streams per store (409 LIMIT_REACHED); a closed one frees its place; the listeners list shows them; each opening is a call in the activity`, async () => {
    const t = await setup()
    const callsOf = async () => {
      const report = await expectOk(t.call('GET', `/v1/admin/activity?groupId=${t.w.A.group.id}`, { headers: admin }))
      return report.groups[0].calls as number
    }
    const before = await callsOf()
    const streams = [await openListen(t.app, bearer(t.w.A.student), '?events=order.paid')]
    for (let i = 1; i < MAX_LISTENERS; i++) streams.push(await openListen(t.app, { ...apiKey(t.w.A.key.apiKey), 'x-student-rm': t.w.A.rms.active }))
    for (const s of streams) expect((await s.next()).event).toBe('ready')
    const refused = await t.call('GET', '/v1/webhooks/listen', { headers: bearer(t.w.A.student) })
    expect([refused.status, refused.body.error.code]).toEqual([409, 'LIMIT_REACHED'])
    expect(refused.body.error.message).toBe(
      `This store already has ${MAX_LISTENERS} listen streams open (GET /v1/webhooks/listeners shows them). Stop a storefront listen you no longer use, then try again; a stream whose connection was cut holds its place until the server notices, at its next heartbeat.`,
    )
    const b = await openListen(t.app, apiKey(t.w.B.key.apiKey))
    expect(b.response.status).toBe(200)
    await b.close()

    const listed = await expectOk(t.call('GET', '/v1/webhooks/listeners', { headers: apiKey(t.w.A.key.apiKey) }))
    expect(listed.limit).toBe(MAX_LISTENERS)
    expect(listed.data).toEqual([
      { connectedAt: new Date(t.clock.now()).toISOString(), events: ['order.paid'], credential: 'student', rm: t.w.A.rms.active, forwarded: 0 },
      ...Array.from({ length: MAX_LISTENERS - 1 }, () => ({ connectedAt: new Date(t.clock.now()).toISOString(), events: ['*'], credential: 'secret', rm: t.w.A.rms.active, forwarded: 0 })),
    ])
    expect(JSON.stringify(listed)).not.toContain('whsec_')

    await streams.pop()!.close()
    await Bun.sleep(0)
    const again = await openListen(t.app, bearer(t.w.A.student))
    expect(again.response.status).toBe(200)
    for (const s of [...streams, again]) await s.close()
    // Each opening is a call (the refused one too), and so is the listeners list.
    expect((await callsOf()) - before).toBe(MAX_LISTENERS + 3)
  })
})
