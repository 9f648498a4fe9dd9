import { describe, expect, test } from 'bun:test'
import { ManualClock } from '../../src/kernel/clock'
import type { InspectedCall } from '../../src/kernel/http/inspection'
import { BODY_LIMIT, CAPACITY, DETAIL_BUDGET, RequestLog } from '../../src/features/inspector/log'
import { RequestQuery } from '../../src/features/inspector/model'
import { createTestApp } from '../helpers/app'
import { activeStudent, apiKey, bearer, createGroup, createKey, expectOk } from '../helpers/world'

const all = RequestQuery.parse({ pageSize: 100 })

/** A call as the kernel hands it over: a 400 with both bodies when `failedWith` is given. */
function call(storeId: string, id: string, failedWith?: string): InspectedCall {
  return {
    store: { storeId, credential: 'secret', rm: null },
    request: new Request('http://localhost/v1/products', { method: 'POST', headers: { 'content-type': 'application/json' } }),
    requestId: id,
    status: failedWith === undefined ? 201 : 400,
    durationMs: 1.4,
    sentBody: failedWith,
    answerBody: failedWith === undefined ? undefined : JSON.stringify({ error: { code: 'VALIDATION_ERROR', message: 'price is required' } }),
  }
}

describe('the inspector stays within its bounds', () => {
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
    expect(oldest.error).toEqual({ code: 'VALIDATION_ERROR', message: 'price is required' })
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
})
