import { describe, expect, test } from 'bun:test'
import { DELIVERY_LIMITS } from '../../src/features/webhooks/dispatcher'
import { createTestApp } from '../helpers/app'
import { emit, startReceiver, waitFor } from '../helpers/receivers'
import { apiKey, expectOk, oneStore } from '../helpers/world'
import { limit } from '../helpers/limits'

const MAX_IN_FLIGHT_PER_ENDPOINT = DELIVERY_LIMITS.perEndpoint

/** Real time on purpose: this test takes about 10 s, the delivery time-out. */
describe('slow receivers', () => {
  test('one that answers after 9 s and one that never answers do not delay a fast one; the silent one times out at 10 s', async () => {
    // The log is polled often; the ManualClock would never refill the rate limit.
    const t = createTestApp({ settings: { allowLoopbackWebhooks: true, rateLimitRps: '0' } })
    const store = await oneStore(t.call, t.deps, 'a')
    const headers = apiKey(store.key.apiKey)
    const fast = startReceiver()
    let slowAnswered = 0
    const slow = startReceiver(async () => {
      await Bun.sleep(9_000)
      slowAnswered++
      return new Response('slow but fine')
    })
    const silent = startReceiver(() => new Promise<Response>(() => {}))
    const ids: Record<string, string> = {}
    for (const [name, receiver] of Object.entries({ fast, slow, silent })) {
      ids[name] = (await expectOk(t.call('POST', '/v1/webhooks', { headers, body: { url: receiver.url, events: ['*'] } }), 201)).id
    }
    const started = Date.now()
    for (let i = 0; i < 6; i++) emit(t.deps, store.group.storeId, 'order.paid', { orderId: `ord_${i}`, total: i })
    t.deps.webhooks.tick()

    // A timing bound whose baseline is the slow receiver's own 9 s in this run: the fast receiver has all 6
    // events before the slow one answers any, so they waited neither for it nor for the silent one (10 s),
    // however busy the machine.
    await waitFor(() => fast.received.length === 6 || slowAnswered > 0, limit(12_000), 'the fast receiver to get all 6 events')
    if (slowAnswered > 0) {
      throw new Error(
        `timing bound: the fast receiver had ${fast.received.length} of its 6 events ${Date.now() - started} ms after they were sent, when the slow receiver had already answered (9 s after it was called): they waited behind it`,
      )
    }
    // The slow and the silent endpoints hold only their own few slots meanwhile.
    expect(slow.received).toHaveLength(MAX_IN_FLIGHT_PER_ENDPOINT)
    expect(silent.received).toHaveLength(MAX_IN_FLIGHT_PER_ENDPOINT)

    const log = async (webhookId: string) =>
      (await expectOk(t.call('GET', `/v1/webhooks/deliveries?webhookId=${webhookId}&pageSize=100`, { headers }))).data as any[]
    const finished = async (webhookId: string) => (await log(webhookId)).filter((d) => d.status !== 'PENDING')
    let done: any[] = []
    for (const deadline = Date.now() + limit(12_000); Date.now() < deadline; await Bun.sleep(50)) {
      done = [...(await finished(ids.slow!)), ...(await finished(ids.silent!))]
      if (done.length === 2 * MAX_IN_FLIGHT_PER_ENDPOINT) break
    }
    const slowDone = done.filter((d) => d.webhookId === ids.slow)
    const silentDone = done.filter((d) => d.webhookId === ids.silent)
    expect(slowDone).toHaveLength(MAX_IN_FLIGHT_PER_ENDPOINT)
    for (const d of slowDone) {
      expect(d).toMatchObject({ status: 'SUCCEEDED', responseStatus: 200, responseBody: 'slow but fine', error: null })
      expect(d.durationMs).toBeGreaterThanOrEqual(9_000)
      expect(d.durationMs).toBeLessThan(10_000)
    }
    expect(silentDone).toHaveLength(MAX_IN_FLIGHT_PER_ENDPOINT)
    for (const d of silentDone) {
      expect(d).toMatchObject({
        status: 'FAILED', responseStatus: null, responseBody: null,
        error: 'timeout: no complete answer within 10 s; answer 2xx first, then do slow work',
        nextRetryAt: new Date(t.clock.now() + 10_000).toISOString(),
      })
      expect(d.durationMs).toBeGreaterThanOrEqual(9_900)
      // The time-out fires at 10 s; a busy machine may run its timer late, never early.
      expect(d.durationMs).toBeLessThan(10_000 + limit(1_000))
    }
    expect((await log(ids.fast!)).map((d) => d.status)).toEqual(Array(6).fill('SUCCEEDED'))
  }, limit(20_000))
})
