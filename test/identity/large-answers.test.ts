import { describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { BYTES_PER_TOKEN } from '../../src/kernel/auth/rate-limiter'
import { MAX_REPLAY } from '../../src/features/webhooks/listen'
import { groupedWrite, groupOpen, writeTransaction } from '../../src/kernel/db/database'
import { sseEvent } from '../../src/kernel/http/sse'
import { CLIENT_ADDRESS_HEADER, clientAddressesFromHeader, createTestApp, calmly, type CallResult } from '../helpers/app'
import { activityProbes } from '../helpers/probes'
import { emit, eventData } from '../helpers/receivers'
import { apiKey, createKey, expectOk, twoStores } from '../helpers/world'
import { openListen } from '../webhooks/listen-stream'

// A store's rate limit counts a large answer as more than one request: one more for every 64 KiB.

const RPS = 50
const BURST = 100

/** Stores A and B at the default limit, their buckets full when the test starts; A has a publishable key too. */
async function setup(settings: Record<string, string> = { rateLimitRps: String(RPS), rateLimitBurst: String(BURST) }) {
  const t = createTestApp({ extraRoutes: activityProbes, settings })
  clientAddressesFromHeader(t.app)
  const calm = calmly(t)
  const w = await twoStores(calm, t.deps)
  const pk = (await createKey(calm, w.A.student, 'shop front', 'publishable')).apiKey
  t.clock.advance(10_000)
  return { ...t, w, pk }
}

const remaining = (res: CallResult) => Number(res.headers.get('ratelimit-remaining'))
const sized = (bytes: number) => `/v1/probe/sized/${bytes}`

describe('a large answer counts for more of the rate limit', () => {
  test('an answer costs one more request for every full 64 KiB of it; below 64 KiB it costs one', async () => {
    const t = await setup()
    const headers = apiKey(t.w.A.key.apiKey)
    const costs: number[] = []
    let before = BURST
    for (const bytes of [100, BYTES_PER_TOKEN - 1, BYTES_PER_TOKEN, 2 * BYTES_PER_TOKEN - 1, 300 * 1024]) {
      const res = await t.call('GET', sized(bytes), { headers })
      expect(res.status).toBe(200)
      expect(Number(res.headers.get('content-length') ?? JSON.stringify(res.body).length)).toBe(bytes)
      costs.push(before - remaining(res))
      before = remaining(res)
    }
    expect(costs).toEqual([1, 1, 2, 2, 5])
    // The reset counts the whole debt: 89 tokens to refill at 50 a second.
    const last = await t.call('GET', sized(100), { headers })
    expect([remaining(last), last.headers.get('ratelimit-reset')]).toEqual([88, '1'])
  })

  test('an answer past what is left is still given; the calls after it wait for the debt, told why, then go through', async () => {
    const t = await setup()
    const headers = apiKey(t.w.A.key.apiKey)
    const big = await t.call('GET', sized(150 * BYTES_PER_TOKEN), { headers })
    expect(big.status).toBe(200)
    // 100 - 1 - 150 = -51: the header never says less than 0; a full bucket is (100 + 51) / 50 s away.
    expect([big.headers.get('ratelimit-remaining'), big.headers.get('ratelimit-reset')]).toEqual(['0', '4'])

    const refused = await t.call('GET', sized(100), { headers })
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toBe('2') // 52 tokens at 50 a second
    expect(refused.body.error.message).toBe(
      'Your store sent more requests than its limit allows. Wait 2 s (Retry-After) and slow your loop down; other stores are not affected. ' +
        'A large answer counts as more than one request (one more for every 64 KiB): a recent one was 9600 KiB and counted as 151. For a list, a smaller pageSize makes smaller answers.',
    )
    // Another store's bucket is its own.
    expect((await t.call('GET', sized(100), { headers: apiKey(t.w.B.key.apiKey) })).status).toBe(200)

    t.clock.advance(1000)
    expect((await t.call('GET', sized(100), { headers })).status).toBe(429)
    t.clock.advance(1100)
    const again = await t.call('GET', sized(100), { headers })
    expect([again.status, remaining(again)]).toEqual([200, 53]) // -1 + 55 tokens in 1.1 s, less this call

    // Once the bucket has refilled past the large answer, a refusal is the calls' own and says nothing of it.
    t.clock.advance(10_000)
    for (let i = 0; i < BURST; i++) expect((await t.call('GET', sized(100), { headers })).status).toBe(200)
    const flood = await t.call('GET', sized(100), { headers })
    expect(flood.status).toBe(429)
    expect(flood.body.error.message).toBe('Your store sent more requests than its limit allows. Wait 1 s (Retry-After) and slow your loop down; other stores are not affected.')
  })

  test("with the publishable key the answer is charged to that client's bucket and the shop front's, never the store's", async () => {
    const t = await setup()
    const shop = (address: string) => ({ ...apiKey(t.pk), [CLIENT_ADDRESS_HEADER]: address })
    const big = await t.call('GET', sized(120 * BYTES_PER_TOKEN), { headers: shop('10.0.0.7') })
    expect([big.status, big.headers.get('ratelimit-remaining')]).toEqual([200, '0'])
    const refused = await t.call('GET', sized(100), { headers: shop('10.0.0.7') })
    expect(refused.status).toBe(429)
    expect(refused.body.error.message).toContain('This shop-front client sent more requests with the publishable key than its limit allows')
    expect(refused.body.error.message).toContain('a recent one was 7680 KiB and counted as 121.')

    // Another address has its own bucket; the whole shop front's (four times the store's) paid 121 of its 400.
    const other = await t.call('GET', sized(100), { headers: shop('10.0.0.8') })
    expect([other.status, remaining(other)]).toEqual([200, BURST - 1])
    // Three more such answers from three more addresses empty the shop front's bucket: the next address is refused for the shop front as a whole.
    for (const address of ['10.0.1.1', '10.0.1.2', '10.0.1.3']) expect((await t.call('GET', sized(120 * BYTES_PER_TOKEN), { headers: shop(address) })).status).toBe(200)
    const whole = await t.call('GET', sized(100), { headers: shop('10.0.2.1') })
    expect(whole.status).toBe(429)
    expect(whole.body.error.message).toContain('The shop front of this store, all its clients together')
    expect(whole.body.error.message).toContain('counted as 121.')

    // The store's own bucket (secret key) was never touched.
    const own = await t.call('GET', sized(100), { headers: apiKey(t.w.A.key.apiKey) })
    expect([own.status, remaining(own)]).toEqual([200, BURST - 1])
  })

  test('requests that waited for the same commit are admitted one by one: the first large answer is charged before the next is let in', async () => {
    const t = await setup()
    const headers = apiKey(t.w.A.key.apiKey)
    // A grouped write open (a cart change, any store's): reads wait for its commit, then all go on in one turn.
    const write = groupedWrite(t.deps.db, (tx) => tx.run(sql`select 1`))
    expect(groupOpen(t.deps.db)).toBe(true)
    const answers = await Promise.all(Array.from({ length: 4 }, () => t.call('GET', sized(150 * BYTES_PER_TOKEN), { headers })))
    await write
    expect(answers.map((a) => a.status)).toEqual([200, 429, 429, 429])
    expect(answers[1]!.body.error.message).toContain('a recent one was 9600 KiB and counted as 151.')
  })

  test("a shop-front client's debt outlasts the time a full bucket takes to refill: another address's call does not forgive it as idle", async () => {
    const t = await setup()
    const shop = (address: string) => ({ ...apiKey(t.pk), [CLIENT_ADDRESS_HEADER]: address })
    expect((await t.call('GET', sized(300 * BYTES_PER_TOKEN), { headers: shop('10.0.0.7') })).status).toBe(200) // 100 - 301 = -201
    t.clock.advance(2_100) // longer than a full refill takes (2 s), shorter than this debt's (4 s)
    expect((await t.call('GET', sized(100), { headers: shop('10.0.3.1') })).status).toBe(200)
    const owing = await t.call('GET', sized(100), { headers: shop('10.0.0.7') })
    expect([owing.status, owing.headers.get('retry-after')]).toEqual([429, '2']) // -96 + 1 at 50 a second
  })

  test('a product list served from the cache is charged as when it was made; with the limit off nothing is counted', async () => {
    const t = await setup()
    const headers = apiKey(t.w.A.key.apiKey)
    const options = (v: number) => ({ size: `${v}-${'s'.repeat(70)}`, color: `${v}-${'c'.repeat(70)}`, material: `${v}-${'m'.repeat(70)}` })
    for (let p = 0; p < 3; p++) {
      t.clock.advance(10_000)
      const variants = Array.from({ length: 100 }, (_, v) => ({ sku: `BIG-${p}-${v}`, price: 10, stock: 1, options: options(v) }))
      await expectOk(t.call('POST', '/v1/products', { headers, body: { name: `Big ${p}`, state: 'PUBLISHED', variants } }), 201)
    }
    t.clock.advance(10_000)
    const first = await t.call('GET', '/v1/products?pageSize=3', { headers })
    const bytes = Buffer.byteLength(JSON.stringify(first.body))
    expect(bytes).toBeGreaterThan(2 * BYTES_PER_TOKEN)
    const cost = 1 + Math.floor(bytes / BYTES_PER_TOKEN)
    expect(remaining(first)).toBe(BURST - cost)
    const kept = await t.call('GET', '/v1/products?pageSize=3', { headers })
    expect(kept.body).toEqual(first.body)
    expect(remaining(kept)).toBe(BURST - 2 * cost)

    const off = await setup({ rateLimitRps: '0' })
    const free = await off.call('GET', sized(300 * BYTES_PER_TOKEN), { headers: apiKey(off.w.A.key.apiKey) })
    expect([free.status, free.headers.get('ratelimit-remaining')]).toEqual([200, null])
  })

  test("a listen reconnection's events missed count as an answer of their size, once sent; the events that follow, live, do not", async () => {
    const t = await setup()
    const headers = apiKey(t.w.A.key.apiKey)
    const storeId = t.w.A.group.storeId
    const last = emit(t.deps, storeId, 'order.paid')
    const pad = 'p'.repeat(400)
    writeTransaction(t.deps.db, (tx) => {
      for (let i = 0; i < MAX_REPLAY; i++) t.deps.outbox.emit(tx, storeId, 'order.created', eventData('order.created', { n: i, pad }))
    })
    const stream = await openListen(t.app, { ...headers, 'last-event-id': last })
    expect(remaining({ headers: stream.response.headers } as CallResult)).toBe(BURST - 1)
    await stream.next()
    const replayed = await stream.webhooks(MAX_REPLAY)
    const bytes = replayed.reduce((sum, m) => sum + sseEvent('webhook', m.data, m.id).byteLength, 0)
    expect(bytes).toBeGreaterThan(6 * BYTES_PER_TOKEN)
    const replayCost = Math.floor(bytes / BYTES_PER_TOKEN)
    expect(await stream.nothingMore()).toBe(true)
    const after = await t.call('GET', sized(100), { headers })
    expect(remaining(after)).toBe(BURST - 1 - replayCost - 1)

    // New events on the open stream are no answer to a call: they cost nothing, nor does its end.
    writeTransaction(t.deps.db, (tx) => {
      for (let i = 0; i < MAX_REPLAY; i++) t.deps.outbox.emit(tx, storeId, 'order.created', eventData('order.created', { n: i, pad }))
    })
    expect(await stream.webhooks(MAX_REPLAY)).toHaveLength(MAX_REPLAY)
    await stream.close()
    expect(remaining(await t.call('GET', sized(100), { headers }))).toBe(remaining(after) - 1)

    // Once the bucket is empty, the refusal names the replay, not a list.
    let refused: CallResult | undefined
    for (let i = 0; i <= BURST && !refused; i++) {
      const res = await t.call('GET', sized(100), { headers })
      if (res.status === 429) refused = res
    }
    expect(refused!.body.error.message).toEndWith(
      `A large answer counts as more than one request (one more for every 64 KiB), and so do the events a listen stream missed and was sent when it reconnected: a recent reconnection was sent ${Math.round(bytes / 1024)} KiB of them and counted as ${replayCost} more. A stream that stays connected is sent new events at no cost.`,
    )
  })
})
