import { describe, expect, test } from 'bun:test'
import { heapStats } from 'bun:jsc'
import { ManualClock } from '../../src/kernel/clock'
import type { InspectedCall } from '../../src/kernel/http/inspection'
import { BODY_LIMIT, CAPACITY, DETAIL_BUDGET, HEADER_LIMIT, RequestLog } from '../../src/features/inspector/log'
import { RequestQuery } from '../../src/features/inspector/model'
import { createTestApp } from '../helpers/app'
import { expectTimedInTurnWithinBaseline } from '../helpers/limits'
import { activeStudent, apiKey, bearer, createGroup, createKey, expectOk } from '../helpers/world'

const all = RequestQuery.parse({ pageSize: 100 })

/** A call as the kernel hands it over: a 400 with both bodies when `failedWith` is given. */
function call(storeId: string, id: string, failedWith?: string): InspectedCall {
  return {
    store: { storeId, credential: 'secret', rm: null, shopFront: false },
    request: new Request('http://localhost/v1/products', { method: 'POST', headers: { 'content-type': 'application/json' } }),
    requestId: id,
    status: failedWith === undefined ? 201 : 400,
    durationMs: 1.4,
    sentBody: failedWith,
    answerBody: failedWith === undefined ? undefined : JSON.stringify({ error: { code: 'VALIDATION_ERROR', message: 'price is required' } }),
    source: undefined,
  }
}

describe('the inspector stays within its bounds', () => {
  test('a list filtered by path costs about what one filtered by status does, however long and encoded the paths kept (each is redacted once)', async () => {
    const log = new RequestLog(new ManualClock())
    // Long paths of invalid percent escapes, the slowest to redact: each read once per entry, not once per list.
    const path = `/v1/products/${'%25E0'.repeat(100)}`
    for (let i = 0; i < CAPACITY; i++) {
      log.record({ ...call('s1', `p${i}`), request: new Request(`http://localhost${path}${i}`), status: 404, answerBody: JSON.stringify({ error: { code: 'NOT_FOUND', message: 'no' } }) })
    }
    const byPath = RequestQuery.parse({ path: '/v1/orders' })
    const byStatus = RequestQuery.parse({ status: '201' })
    expect([log.list('s1', byPath).total, log.list('s1', byStatus).total]).toEqual([0, 0])
    // Redacting every entry's path on each list made the filter by path some fifty times as slow.
    await expectTimedInTurnWithinBaseline('a list filtered by path (baseline: by status)', () => log.list('s1', byStatus), () => log.list('s1', byPath), { factor: 3, slackMs: 0.5 })
  })

  test('a page of entries with long encoded queries costs about what a page without queries does (each query is redacted once)', async () => {
    const log = new RequestLog(new ManualClock())
    const query = `?next=${'%25E0'.repeat(200)}`
    for (let i = 0; i < 100; i++) {
      log.record({ ...call('long', `q${i}`), request: new Request(`http://localhost/v1/products${query}${i}`) })
      log.record({ ...call('bare', `b${i}`), request: new Request('http://localhost/v1/products') })
    }
    const page = RequestQuery.parse({ pageSize: '100' })
    expect(log.list('long', page).data.map((e) => [e.query.length, e.query.endsWith('\u2026')])).toEqual(Array(100).fill([512 + 1, true]))
    // Redacting every entry's query on each read made such a page several times as slow.
    await expectTimedInTurnWithinBaseline('a page of long queries (baseline: no queries)', () => log.list('bare', page), () => log.list('long', page), { factor: 3, slackMs: 0.5 })
  })

  test(`a store keeps its newest ${CAPACITY} calls: the ${CAPACITY + 1}th pushes out the oldest`, () => {
    const log = new RequestLog(new ManualClock())
    for (let i = 0; i <= CAPACITY; i++) log.record(call('s1', `r${i}`))
    const page = log.list('s1', all)
    expect(page.total).toBe(CAPACITY)
    expect(page.data[0]!.id).toBe(`r${CAPACITY}`)
    expect(log.list('s1', { ...all, page: 10 }).data.at(-1)!.id).toBe('r1')
    expect(() => log.find('s1', 'r0')).toThrow('No request')
    expect(log.find('s1', 'r1').id).toBe('r1')
  })

  test("one store's flood pushes out only its own calls", () => {
    const log = new RequestLog(new ManualClock())
    log.record(call('quiet', 'kept'))
    for (let i = 0; i < 3 * CAPACITY; i++) log.record(call('loud', `x${i}`))
    expect(log.list('quiet', all).data.map((e) => e.id)).toEqual(['kept'])
  })

  test('the failures of a store keep their bodies within its budget, newest first; older ones say their bodies were let go', () => {
    const log = new RequestLog(new ManualClock())
    const body = `{"name":"${'x'.repeat(BODY_LIMIT)}"}`
    const fit = Math.floor(DETAIL_BUDGET / BODY_LIMIT)
    for (let i = 0; i < fit + 10; i++) log.record(call('s1', `f${i}`, body))
    const newest = log.find('s1', `f${fit + 9}`)
    expect(newest.requestBody!.length).toBe(BODY_LIMIT)
    expect(newest.requestBodyTruncated).toBe(true)
    expect(newest.bodiesDropped).toBe(false)
    const oldest = log.find('s1', 'f0')
    expect(oldest).toMatchObject({ requestBody: null, responseBody: null, requestHeaders: {}, bodiesDropped: true, status: 400 })
    expect([oldest.errorCode, oldest.errorMessage]).toEqual(['VALIDATION_ERROR', 'price is required'])
    // What stays adds up to no more than the budget.
    let kept = 0
    for (let i = 0; i < fit + 10; i++) {
      const d = log.find('s1', `f${i}`)
      kept += (d.requestBody?.length ?? 0) + (d.responseBody?.length ?? 0)
    }
    expect(kept).toBeLessThanOrEqual(DETAIL_BUDGET)
    expect(kept).toBeGreaterThan(DETAIL_BUDGET / 2)
  })

  test('over HTTP, a 20 KB body that fails is kept cut at 8 KB and says so', async () => {
    const t = createTestApp({ settings: { rateLimitRps: '0' } })
    const group = await createGroup(t.call, 'Loja', [{ rm: '1001', name: 'Ana' }])
    expect(group.name).toBe('Loja')
    const student = await activeStudent(t.call, '1001')
    const key = (await createKey(t.call, student)).apiKey
    const description = 'd'.repeat(20_000)
    const r = await t.call('POST', '/v1/products', { headers: { ...apiKey(key), 'x-request-id': 'big-one' }, body: { name: 'Mug', description } })
    expect(r.status).toBe(400)
    const d = await expectOk(t.call('GET', '/v1/store/requests/big-one', { headers: bearer(student) }))
    expect(d.requestBody).toBe(JSON.stringify({ name: 'Mug', description }).slice(0, BODY_LIMIT))
    expect([d.requestBodyTruncated, d.responseBodyTruncated]).toEqual([true, false])
    expect(JSON.parse(d.responseBody)).toEqual(r.body)
  })

  test('a 100 KB URL and a 50 KB header are kept cut when the call is recorded: the entry shows 512 characters of path and query, 1 KB of the header', async () => {
    const t = createTestApp({ settings: { rateLimitRps: '0' } })
    await createGroup(t.call, 'Loja', [{ rm: '1001', name: 'Ana' }])
    const student = await activeStudent(t.call, '1001')
    const key = (await createKey(t.call, student)).apiKey
    const id = 'p'.repeat(50_000)
    const r = await t.call('GET', `/v1/products/${id}?q=${'q'.repeat(50_000)}`, { headers: { ...apiKey(key), 'x-request-id': 'long-url', 'x-note': 'n'.repeat(50_000) } })
    // A product's detail takes no query: refused, and recorded as any refusal is.
    expect([r.status, r.body.error.details[0].path]).toEqual([400, 'q'])
    const d = await expectOk(t.call('GET', '/v1/store/requests/long-url', { headers: bearer(student) }))
    expect(d.path).toBe(`${`/v1/products/${id}`.slice(0, 512)}\u2026`)
    expect(d.query).toBe(`${`q=${'q'.repeat(50_000)}`.slice(0, 512)}\u2026`)
    expect(d.requestHeaders['x-note']).toBe('n'.repeat(HEADER_LIMIT))
  })

  test('what the ring holds of a long URL is the cut copy, not the URL: 300 calls of 100 KB URLs hold well under 3 MB', () => {
    const log = new RequestLog(new ManualClock())
    // The ring is full first, so that its own growth is not measured.
    for (let i = 0; i < CAPACITY; i++) log.record(call('s1', `w${i}`))
    const held = () => {
      Bun.gc(true)
      return heapStats().heapSize
    }
    const before = held()
    for (let i = 0; i < 300; i++) {
      const long = new Request(`http://localhost/v1/products/${i}-${'p'.repeat(100_000)}?q=${'q'.repeat(1000)}`)
      log.record({ ...call('s1', `long-${i}`, i % 2 ? undefined : '{}'), request: long })
    }
    // 300 URLs of 100 KB kept whole, or kept as slices of the whole, would be 30 MB.
    expect(held() - before).toBeLessThan(3_000_000)
    expect(log.find('s1', 'long-299').path).toBe(`/v1/products/299-${'p'.repeat(512 - '/v1/products/299-'.length)}\u2026`)
  })
})
