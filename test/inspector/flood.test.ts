import { describe, expect, test } from 'bun:test'
import { CAPACITY, RequestLog, STREAM_UPDATE_MS, type Wake } from '../../src/features/inspector/log'
import { RequestQuery } from '../../src/features/inspector/model'
import { ManualClock } from '../../src/kernel/clock'
import { CLIENT_ADDRESS_HEADER, clientAddressesFromHeader } from '../helpers/app'
import { admin, apiKey, bearer, createKey, expectOk } from '../helpers/world'
import { openStream } from './sse'
import { storeWithShopPage, TEN } from './store'

const setup = storeWithShopPage

const iso = (ms: number) => new Date(ms).toISOString()

describe('a flood of refusals is one counted entry per source and minute', () => {
  test(`2,000 refused calls (401 and 429) leave the store's earlier calls in view: one entry per source, each with its count`, async () => {
    const t = await setup()
    const sk = apiKey(t.w.key.apiKey)
    // The app's real calls, before the flood: a failure to debug and a success.
    const missing = await t.call('GET', '/v1/products/prod_missing', { headers: { ...sk, 'x-request-id': 'real-404' } })
    expect(missing.status).toBe(404)
    await expectOk(t.call('GET', '/v1/products', { headers: { ...sk, 'x-request-id': 'real-200' } }))
    const before = (await t.list()).total

    // 1,000 calls with a revoked key, over 10 s of the clock: 401s, which no rate limit counts.
    let message401 = ''
    for (let i = 0; i < 1000; i++) {
      if (i > 0 && i % 100 === 0) t.clock.advance(1000)
      const r = await t.call('GET', '/v1/products', { headers: { ...apiKey(t.w.revoked.apiKey), 'x-request-id': `flood-401-${i}` } })
      expect(r.status).toBe(401)
      message401 = r.body.error.message
    }
    const last401 = t.clock.now()
    // Then shop-front calls with the same key until 1,000 were refused by the rate limit (the clock
    // stands still, so once the bucket is empty every call is a 429).
    let limited = 0
    let passed = 0
    let message429 = ''
    let first429 = ''
    for (let i = 0; limited < 1000; i++) {
      const r = await t.call('GET', '/v1/products', { headers: { ...apiKey(t.pk), 'x-request-id': `flood-pk-${i}` } })
      if (r.status === 429) {
        if (limited++ === 0) first429 = `flood-pk-${i}`
        message429 = r.body.error.message
      } else {
        expect(r.status).toBe(200)
        passed++
      }
    }
    expect(passed).toBeLessThanOrEqual(100)
    // The store's bucket fills again before the inspector is read (it may be the bucket the student's token takes).
    t.clock.advance(3000)

    const all = await t.list('?pageSize=100')
    // The 2,000 refusals took two entries; the calls that passed took one each, as always.
    expect(all.total).toBe(before + 2 + passed)
    expect(all.total).toBeLessThan(CAPACITY)
    // The app's earlier calls are still there, whole.
    expect((await t.list('?status=404')).data.map((e: any) => e.id)).toEqual(['real-404'])
    const real = await expectOk(t.call('GET', '/v1/store/requests/real-404', { headers: bearer(t.w.student) }))
    expect(real).toMatchObject({ status: 404, count: 1, errorCode: 'NOT_FOUND', errorMessage: missing.body.error.message })
    expect(JSON.parse(real.responseBody)).toEqual(missing.body)
    expect(await expectOk(t.call('GET', '/v1/store/requests/real-200', { headers: bearer(t.w.student) }))).toMatchObject({ status: 200, path: '/v1/products', count: 1, credential: 'secret' })

    const [unauthenticated] = (await t.list('?status=401')).data
    expect(unauthenticated).toEqual({
      id: 'flood-401-0',
      createdAt: iso(TEN),
      method: 'GET',
      path: '/v1/products',
      query: '',
      status: 401,
      durationMs: expect.any(Number),
      credential: 'secret',
      rm: null,
      client: 'app',
      fromPage: null,
      errorCode: 'UNAUTHENTICATED',
      errorMessage: message401,
      count: 1000,
      lastCreatedAt: iso(last401),
    })
    expect(last401).toBe(TEN + 9000)
    const [limitedEntry] = (await t.list('?status=429')).data
    expect(limitedEntry).toMatchObject({ id: first429, count: 1000, status: 429, path: '/v1/products', credential: 'publishable', errorCode: 'RATE_LIMITED', errorMessage: message429 })
    expect([limitedEntry.createdAt, limitedEntry.lastCreatedAt]).toEqual([iso(last401), iso(last401)])

    // The single entry says the same, found by its first call's id or its newest's; so does the teacher's view.
    for (const id of ['flood-401-0', 'flood-401-999']) {
      const one = await expectOk(t.call('GET', `/v1/store/requests/${id}`, { headers: bearer(t.w.student) }))
      expect(one).toMatchObject({ ...unauthenticated, durationMs: expect.any(Number) })
      expect(one.requestHeaders['x-api-key']).toBe('[redacted]')
    }
    expect((await t.call('GET', '/v1/store/requests/flood-401-500', { headers: bearer(t.w.student) })).status).toBe(404)
    const teacher = await expectOk(t.call('GET', `/v1/admin/groups/${t.w.group.id}/requests?status=401`, { headers: admin }))
    expect(teacher.data).toEqual([unauthenticated])
    const teacherOne = await expectOk(t.call('GET', `/v1/admin/groups/${t.w.group.id}/requests/flood-401-0`, { headers: admin }))
    expect([teacherOne.count, teacherOne.lastCreatedAt]).toEqual([1000, iso(last401)])
  })

  test('each source has its own entry: the credential kind, which key or student, and the client address', async () => {
    const t = await setup()
    for (let i = 0; i < 3; i++) await t.call('GET', '/v1/cart', { headers: apiKey(t.pk) })
    for (let i = 0; i < 2; i++) await t.call('GET', '/v1/products', { headers: apiKey(t.w.revoked.apiKey) })
    const spare = (await createKey(t.call, t.w.student, 'second browser', 'publishable')).apiKey
    await t.call('GET', '/v1/cart', { headers: apiKey(spare) })
    const rows = (await t.list('?status=401')).data.map((e: any) => [e.credential, e.path, e.count])
    expect(rows).toEqual([
      ['publishable', '/v1/cart', 1],
      ['secret', '/v1/products', 2],
      ['publishable', '/v1/cart', 3],
    ])
  })

  test('the same key from two client addresses is two sources', async () => {
    const t = await setup()
    clientAddressesFromHeader(t.app)
    for (const [from, times] of [['10.0.0.2', 3], ['10.0.0.3', 2], ['10.0.0.2', 1]] as const) {
      for (let i = 0; i < times; i++) {
        const answer = await t.call('GET', '/v1/cart', { headers: { ...apiKey(t.pk), [CLIENT_ADDRESS_HEADER]: from, 'x-request-id': `${from}-${i}` } })
        expect(answer.status).toBe(401)
      }
    }
    const rows = (await t.list('?status=401')).data.map((e: any) => [e.id, e.count])
    expect(rows).toEqual([
      ['10.0.0.3-0', 2],
      ['10.0.0.2-0', 4],
    ])
  })

  test('a new minute of the clock starts a new entry; the same minute, to its last millisecond, counts into the same', async () => {
    const t = await setup()
    const refuse = (id: string) => t.call('GET', '/v1/cart', { headers: { ...apiKey(t.pk), 'x-request-id': id } })
    await refuse('m0-a')
    t.clock.set(TEN + 59_999)
    await refuse('m0-b')
    await refuse('m0-c')
    t.clock.set(TEN + 60_000)
    await refuse('m1-a')
    await refuse('m1-b')
    t.clock.advance(60_000)
    await refuse('m2-a')
    const rows = (await t.list('?status=401')).data.map((e: any) => [e.id, e.count, e.createdAt, e.lastCreatedAt])
    expect(rows).toEqual([
      ['m2-a', 1, iso(TEN + 120_000), iso(TEN + 120_000)],
      ['m1-a', 2, iso(TEN + 60_000), iso(TEN + 60_000)],
      ['m0-a', 3, iso(TEN), iso(TEN + 59_999)],
    ])
    // `since` reads a counted entry's newest call: the first minute's entry had a call at :59.999.
    expect((await t.list(`?status=401&since=${iso(TEN + 30_000)}`)).data.map((e: any) => e.id)).toEqual(['m2-a', 'm1-a', 'm0-a'])
  })

  test(`the live stream sends a counted entry when made, then again with its count at most once per ${STREAM_UPDATE_MS} ms of the clock`, async () => {
    const t = await setup()
    const stream = await openStream(t.app, '/v1/store/requests/stream', bearer(t.w.student))
    const teacher = await openStream(t.app, `/v1/admin/groups/${t.w.group.id}/requests/stream`, admin)
    const refuse = (id: string) => t.call('GET', '/v1/cart', { headers: { ...apiKey(t.pk), 'x-request-id': id } })
    for (let i = 0; i < 50; i++) await refuse(`s-${i}`)
    t.clock.advance(STREAM_UPDATE_MS - 1)
    await refuse('s-50')
    t.clock.advance(1)
    await refuse('s-51')
    await refuse('s-52')
    await t.call('GET', '/v1/products/prod_missing', { headers: { ...apiKey(t.w.key.apiKey), 'x-request-id': 'after' } })
    for (const s of [stream, teacher]) {
      const events = [await s.next(), await s.next(), await s.next()]
      expect(events.map((e) => [e.id, e.data.count, e.data.lastCreatedAt])).toEqual([
        ['s-0', 1, iso(TEN)],
        ['s-0', 52, iso(TEN + STREAM_UPDATE_MS)],
        ['after', 1, iso(TEN + STREAM_UPDATE_MS)],
      ])
      await s.close()
    }
    // The list has the exact count, which the stream may be behind.
    expect((await t.list('?status=401')).data[0].count).toBe(53)
  })

  test('calls that pass, and failures after the caller is known, are still one entry each', async () => {
    const t = await setup()
    const sk = apiKey(t.w.key.apiKey)
    for (let i = 0; i < 3; i++) await t.call('GET', '/v1/products/prod_missing', { headers: sk })
    for (let i = 0; i < 2; i++) await t.call('POST', '/v1/products', { headers: apiKey(t.pk), body: {} })
    expect((await t.list('?status=404')).data.map((e: any) => e.count)).toEqual([1, 1, 1])
    expect((await t.list('?status=403')).data.map((e: any) => [e.errorCode, e.count])).toEqual([
      ['SECRET_KEY_REQUIRED', 1],
      ['SECRET_KEY_REQUIRED', 1],
    ])
  })
})

describe("a counted entry's last count reaches the live streams", () => {
  /** The log with timers run by hand: `due` lists what is waiting, with its delay. */
  function handLog() {
    const clock = new ManualClock(TEN)
    const due: { run: () => void; ms: number }[] = []
    const wake: Wake = (run, ms) => {
      const timer = { run, ms }
      due.push(timer)
      return () => due.splice(due.indexOf(timer), 1)
    }
    const log = new RequestLog(clock, '', wake)
    const sent: [string, number, string][] = []
    log.subscribe('s1', 'store', (e) => sent.push([e.id, e.count, e.lastCreatedAt]), () => {})
    /** A 401 of the publishable key with no customer token, from `source`. */
    const refuse = (id: string, source = 'customer pk_1a2b3c4d from 10.0.0.2') =>
      log.record({
        store: { storeId: 's1', credential: 'customer', rm: null, shopFront: true },
        request: new Request('http://localhost/v1/cart'),
        requestId: id,
        status: 401,
        durationMs: 1,
        sentBody: undefined,
        answerBody: JSON.stringify({ error: { code: 'UNAUTHENTICATED', message: 'This route also needs the customer token.' } }),
        source,
      })
    /** Runs the timers that are due now, as a real timer would after their delay. */
    const runDue = () => due.splice(0).forEach((timer) => timer.run())
    return { clock, due, log, sent, refuse, runDue }
  }

  test(`a burst shorter than ${STREAM_UPDATE_MS} ms is sent once more with its final count, by one timer per store`, () => {
    const h = handLog()
    for (let i = 0; i < 5; i++) h.refuse(`a-${i}`)
    h.clock.advance(300)
    h.refuse('a-5')
    h.refuse('b-0', 'customer pk_1a2b3c4d from 10.0.0.3')
    h.clock.advance(100)
    h.refuse('b-1', 'customer pk_1a2b3c4d from 10.0.0.3')
    // Sent when made; the repeats wait for the one timer, due a second after the first entry was sent.
    expect(h.sent).toEqual([
      ['a-0', 1, iso(TEN)],
      ['b-0', 1, iso(TEN + 300)],
    ])
    expect(h.due.map((timer) => timer.ms)).toEqual([STREAM_UPDATE_MS])

    h.clock.advance(STREAM_UPDATE_MS - 400)
    h.runDue()
    // a- has its final count; b- was sent 700 ms ago, so it waits for its own second.
    expect(h.sent.slice(2)).toEqual([['a-0', 6, iso(TEN + 300)]])
    expect(h.due.map((timer) => timer.ms)).toEqual([300])
    h.clock.advance(300)
    h.runDue()
    expect(h.sent.slice(3)).toEqual([['b-0', 2, iso(TEN + 400)]])
    // Nothing changed since: no timer, and nothing sent again.
    expect(h.due).toEqual([])
  })

  test('a timer that wakes early sends nothing and waits again; an entry already sent with its count is not sent twice', () => {
    const h = handLog()
    h.refuse('a-0')
    h.clock.advance(200)
    h.refuse('a-1')
    expect(h.due.map((timer) => timer.ms)).toEqual([STREAM_UPDATE_MS - 200])
    h.runDue()
    expect(h.sent.length).toBe(1)
    expect(h.due.map((timer) => timer.ms)).toEqual([STREAM_UPDATE_MS - 200])
    // A repeat a second after the last send goes out at once, with the count the timer would have sent.
    h.clock.advance(STREAM_UPDATE_MS - 200)
    h.refuse('a-2')
    expect(h.sent.slice(1)).toEqual([['a-0', 3, iso(TEN + STREAM_UPDATE_MS)]])
    h.runDue()
    expect(h.sent.length).toBe(2)
    expect(h.due).toEqual([])
  })

  test('with no stream open nothing is scheduled; stop() cancels a waiting timer', () => {
    const h = handLog()
    const quiet = new RequestLog(h.clock, '', () => {
      throw new Error('no timer without a stream')
    })
    for (let i = 0; i < 3; i++) {
      quiet.record({ store: { storeId: 's2', credential: 'publishable', rm: null, shopFront: true }, request: new Request('http://localhost/v1/products'), requestId: `q-${i}`, status: 429, durationMs: 1, sentBody: undefined, answerBody: '{}', source: 'publishable pk_1a2b3c4d from 10.0.0.2' })
    }
    expect(quiet.list('s2', RequestQuery.parse({})).data.map((e) => e.count)).toEqual([3])
    h.refuse('a-0')
    h.refuse('a-1')
    expect(h.due.length).toBe(1)
    h.log.stop()
    expect(h.due).toEqual([])
  })
})
