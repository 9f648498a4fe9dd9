import { describe, expect, test } from 'bun:test'
import { getEventListeners } from 'node:events'
import { DELIVERY_LIMITS } from '../../src/features/webhooks/dispatcher'
import { createTestApp } from '../helpers/app'
import { emit, startReceiver, waitFor } from '../helpers/receivers'
import { apiKey, expectOk, oneStore } from '../helpers/world'

/**
 * Real receivers on loopback and real time: the proof is how soon a request arrives. Receivers that
 * never answer hold their attempts until the test ends (the dispatcher is stopped then).
 */
type TestApp = ReturnType<typeof createTestApp>

const never = () => new Promise<Response>(() => {})

async function storeWithHooks(t: TestApp, tag: string, urls: string[]) {
  const store = await oneStore(t.call, t.deps, tag)
  const headers = apiKey(store.key.apiKey)
  const hooks: string[] = []
  for (const url of urls) hooks.push((await expectOk(t.call('POST', '/v1/webhooks', { headers, body: { url, events: ['*'] } }), 201)).id)
  return { storeId: store.group.storeId as string, headers, hooks }
}

describe('delivery slots shared between stores', () => {
  test("a store whose 10 receivers never answer runs only its share of attempts, and another store's ping arrives within 1 s", async () => {
    const t = createTestApp({ settings: { allowLoopbackWebhooks: true } })
    const silent = startReceiver(never)
    const fast = startReceiver()
    const a = await storeWithHooks(t, 'a', Array.from({ length: 10 }, (_, i) => `${silent.url}-${i}`))
    const b = await storeWithHooks(t, 'b', [fast.url])
    t.deps.webhooks.start()
    for (let i = 0; i < 5; i++) emit(t.deps, a.storeId, 'order.paid', { orderId: `ord_${i}` }) // 50 attempts due
    await waitFor(() => silent.received.length >= DELIVERY_LIMITS.perStore, 2_000, "store A's attempts to take its slots")

    const asked = Date.now()
    await expectOk(t.call('POST', `/v1/webhooks/${b.hooks[0]}/ping`, { headers: b.headers }), 202)
    await waitFor(() => fast.received.length === 1, 1_000, "store B's ping")
    expect(fast.received[0]!.at - asked).toBeLessThan(1_000)
    // Of A's 50 due attempts, only its share is running: the rest wait for A's own slots.
    expect(silent.received).toHaveLength(DELIVERY_LIMITS.perStore)
  })

  test('when every slot is taken, a freed slot goes to the store with the fewest attempts running, not to the one due longest', async () => {
    const t = createTestApp({ settings: { allowLoopbackWebhooks: true } })
    t.deps.webhooks.limits = { perEndpoint: 4, perStore: 2, total: 4 }
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    // A's receiver answers its first two requests once released, and never any later one.
    const gated = startReceiver((_, n) => (n <= 2 ? released.then(() => new Response('ok')) : never()))
    const silent = startReceiver(never)
    const fast = startReceiver()
    const a = await storeWithHooks(t, 'a', [gated.url])
    const b = await storeWithHooks(t, 'b', [silent.url])
    const c = await storeWithHooks(t, 'c', [fast.url])
    t.deps.webhooks.start()
    for (let i = 0; i < 4; i++) emit(t.deps, a.storeId, 'order.paid', { orderId: `ord_a${i}` })
    for (let i = 0; i < 2; i++) emit(t.deps, b.storeId, 'order.paid', { orderId: `ord_b${i}` })
    await waitFor(() => gated.received.length === 2 && silent.received.length === 2, 2_000, 'A and B to fill the 4 slots')

    await expectOk(t.call('POST', `/v1/webhooks/${c.hooks[0]}/ping`, { headers: c.headers }), 202)
    // A tick of the dispatcher starts every due attempt that has a slot, synchronously: after one, C's
    // ping must still be waiting, not running (its request would be under way, whatever the machine's speed).
    t.deps.webhooks.tick()
    expect(t.deps.webhooks.runningFor(c.storeId)).toBe(0)
    const log = await expectOk(t.call('GET', '/v1/webhooks/deliveries', { headers: c.headers }))
    expect(log.data.map((d: { status: string }) => d.status)).toEqual(['PENDING'])
    expect(fast.received).toEqual([])
    expect(gated.received).toHaveLength(2)

    // A's two attempts end: the first slot goes to C (none running) before A's third event, due earlier.
    const freed = Date.now()
    release()
    await waitFor(() => fast.received.length === 1, 1_000, "C's ping after a slot is freed")
    expect(fast.received[0]!.at - freed).toBeLessThan(1_000)
    await waitFor(() => gated.received.length === 4, 1_000, "A's remaining events in the slots left")
    expect(silent.received).toHaveLength(2)
  })
})

/** An app whose dispatcher has these slots and holds a failed attempt's endpoint slot `holdMs`. */
function withHeldFailures(limits: TestApp['deps']['webhooks']['limits'], holdMs: number) {
  const t = createTestApp({ settings: { allowLoopbackWebhooks: true } })
  t.deps.webhooks.limits = limits
  t.deps.webhooks.failedHoldMs = holdMs
  return t
}
const failsAtOnce = () => startReceiver(() => new Response('no', { status: 500 }))

describe("failed attempts keep their endpoint's slots a while", () => {
  test('a store whose receiver fails at once is paced by its held slots; one whose receiver answers is not held', async () => {
    const t = withHeldFailures({ perEndpoint: 4, perStore: 4, total: 128 }, 300)
    const failing = failsAtOnce()
    const fine = startReceiver()
    const a = await storeWithHooks(t, 'a', [failing.url])
    const b = await storeWithHooks(t, 'b', [fine.url])
    const begun = Date.now()
    t.deps.webhooks.start()
    for (let i = 0; i < 10; i++) emit(t.deps, a.storeId, 'order.paid', { orderId: `ord_a${i}` })
    for (let i = 0; i < 10; i++) emit(t.deps, b.storeId, 'order.paid', { orderId: `ord_b${i}` })
    await waitFor(() => failing.received.length === 10 && fine.received.length === 10, 10_000, 'both stores’ ten attempts')
    // A's ten ran in three waves of its four slots: the second could start only once a slot of the first
    // had been held 300 ms, the third once a slot of the second had (each attempt starts before it arrives).
    const sinceBegun = failing.received.map((r) => r.at - begun)
    expect([sinceBegun[4]! >= 290, sinceBegun[8]! >= 580]).toEqual([true, true])
    // B's slots were free as soon as each attempt was recorded: none of its attempts is counted as running.
    await waitFor(() => t.deps.webhooks.runningFor(b.storeId) === 0, 2_000, "B's slots to be free")
    const deliveries = await expectOk(t.call('GET', '/v1/webhooks/deliveries?status=SUCCEEDED', { headers: b.headers }))
    expect(deliveries.total).toBe(10)
    // A's held slots, once their holds are over, leave nothing on the signal that stops the dispatcher.
    const stopping = (t.deps.webhooks as unknown as { stopping: AbortController }).stopping.signal
    await waitFor(() => getEventListeners(stopping, 'abort').length === 0, 2_000, 'the holds of A’s failed attempts to leave the stop signal')
  })

  test("an endpoint that answers keeps its pace beside endpoints that fail at once: their held slots are their own, not the store's", async () => {
    const t = withHeldFailures({ perEndpoint: 2, perStore: 2, total: 128 }, 1000)
    const dead = [failsAtOnce(), failsAtOnce()]
    const live = startReceiver()
    const a = await storeWithHooks(t, 'a', [dead[0]!.url, dead[1]!.url, live.url])
    t.deps.webhooks.start()
    for (let i = 0; i < 4; i++) emit(t.deps, a.storeId, 'order.paid', { orderId: `ord_${i}` })
    await waitFor(() => live.received.length === 4 && dead.every((d) => d.received.length >= 3), 10_000, 'the live endpoint’s four and a second wave of the dead ones')
    // Each dead endpoint's third attempt waited for one of its two slots, held a second after failing;
    // the live endpoint's four came before that, though the store has only two slots.
    const secondWave = Math.min(...dead.map((d) => d.received[2]!.at))
    expect(live.received.map((r) => r.at <= secondWave)).toEqual([true, true, true, true])
  })
})
