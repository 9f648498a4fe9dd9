import { describe, expect, test } from 'bun:test'
import { MAX_SHOP_FRONT_BUCKETS, RateLimiter, SHOP_FRONT_SHARE } from '../../src/kernel/auth/rate-limiter'
import { addressGroup } from '../../src/kernel/http/client-address'
import { ManualClock } from '../../src/kernel/clock'
import { CLIENT_ADDRESS_HEADER, clientAddressesFromHeader, createTestApp, calmly, type CallResult } from '../helpers/app'
import { apiKey, bearer, createKey, twoStores } from '../helpers/world'

const BURST = 5

/**
 * Stores A and B with the limit at 1 request/s and bursts of 5, each with a publishable key; the set-up
 * runs at a calm pace and the buckets are full again when the test starts. Calls name their client
 * address in CLIENT_ADDRESS_HEADER.
 */
async function setup() {
  const t = createTestApp({ settings: { rateLimitRps: '1', rateLimitBurst: String(BURST) } })
  clientAddressesFromHeader(t.app)
  const calm = calmly(t)
  const w = await twoStores(calm, t.deps)
  const pkA = (await createKey(calm, w.A.student, 'shop front', 'publishable')).apiKey
  const pkB = (await createKey(calm, w.B.student, 'shop front', 'publishable')).apiKey
  t.clock.advance(10_000)
  return { ...t, w, pkA, pkB }
}

const from = (address: string, headers: Record<string, string>) => ({ ...headers, [CLIENT_ADDRESS_HEADER]: address })
/** Status, error code and RateLimit-Remaining of an answer, as one string. */
const seen = (res: CallResult) => `${res.status} ${res.body?.error?.code ?? '-'} ${res.headers.get('ratelimit-remaining')}`

describe("a publishable key's calls have a rate-limit bucket per store and client address", () => {
  test('a drained shop-front bucket is 429 for that client only; the secret key and a student token keep the store bucket, full', async () => {
    const t = await setup()
    const { A } = t.w
    const shop = from('10.0.0.7', apiKey(t.pkA))
    const answers: string[] = []
    for (let i = 0; i < BURST + 2; i++) answers.push(seen(await t.call('GET', '/v1/products', { headers: shop })))
    expect(answers).toEqual(['200 - 4', '200 - 3', '200 - 2', '200 - 1', '200 - 0', '429 RATE_LIMITED 0', '429 RATE_LIMITED 0'])

    // The 429 says whose limit it is, and its headers describe the shop front's bucket.
    const refused = await t.call('GET', '/v1/products', { headers: shop })
    expect(refused.body.error.message).toBe(
      "This shop-front client sent more requests with the publishable key than its limit allows (each client address has its own). Wait 1 s (Retry-After) and slow down; the store's server (secret key), its panel and other clients of the shop are not affected.",
    )
    expect([refused.headers.get('retry-after'), refused.headers.get('ratelimit-limit'), refused.headers.get('ratelimit-reset')]).toEqual(['1', String(BURST), String(BURST)])
    // With a customer token too (a buyer route), the publishable key takes from the same drained bucket.
    const buyer = await t.call('GET', '/v1/cart', { headers: { ...shop, ...bearer(A.customer.token) } })
    expect(seen(buyer)).toBe('429 RATE_LIMITED 0')

    // The store's own bucket was never touched: from the same address, the server's key and the panel get all of it.
    expect(seen(await t.call('GET', '/v1/products', { headers: from('10.0.0.7', apiKey(A.key.apiKey)) }))).toBe('200 - 4')
    expect(seen(await t.call('GET', '/v1/store/settings', { headers: from('10.0.0.7', bearer(A.student)) }))).toBe('200 - 3')
    expect(seen(await t.call('GET', '/v1/cart', { headers: from('10.0.0.7', { ...apiKey(A.key.apiKey), ...bearer(A.customer.token) }) }))).toBe('200 - 2')
  })

  test('a drained store bucket leaves the shop front its own: the secret key is refused with the store message, the publishable key still answers', async () => {
    const t = await setup()
    const { A } = t.w
    for (let i = 0; i < BURST; i++) expect(seen(await t.call('GET', '/v1/products', { headers: apiKey(A.key.apiKey) }))).toBe(`200 - ${BURST - 1 - i}`)
    const refused = await t.call('GET', '/v1/products', { headers: bearer(A.student) })
    expect(seen(refused)).toBe('429 RATE_LIMITED 0')
    expect(refused.body.error.message).toStartWith('Your store sent more requests than its limit allows.')
    expect(seen(await t.call('GET', '/v1/products', { headers: apiKey(t.pkA) }))).toBe('200 - 4')
  })

  test('two client addresses have separate buckets, and so has the same address at another store', async () => {
    const t = await setup()
    for (let i = 0; i < BURST; i++) await t.call('GET', '/v1/products', { headers: from('10.0.0.1', apiKey(t.pkA)) })
    expect(seen(await t.call('GET', '/v1/products', { headers: from('10.0.0.1', apiKey(t.pkA)) }))).toBe('429 RATE_LIMITED 0')
    expect(seen(await t.call('GET', '/v1/products', { headers: from('10.0.0.2', apiKey(t.pkA)) }))).toBe('200 - 4')
    expect(seen(await t.call('GET', '/v1/products', { headers: from('10.0.0.1', apiKey(t.pkB)) }))).toBe('200 - 4')
    // A second later the drained address has one request again, like any bucket.
    t.clock.advance(1000)
    expect(seen(await t.call('GET', '/v1/products', { headers: from('10.0.0.1', apiKey(t.pkA)) }))).toBe('200 - 0')
    expect(seen(await t.call('GET', '/v1/products', { headers: from('10.0.0.1', apiKey(t.pkA)) }))).toBe('429 RATE_LIMITED 0')
  })
})

describe("a store's whole shop front has a ceiling too", () => {
  test(`many addresses together get ${SHOP_FRONT_SHARE} times the store's burst, then the shop-front 429; the store's own bucket stays full`, async () => {
    const t = await setup()
    const { A } = t.w
    const statuses: number[] = []
    for (let machine = 0; machine < 30; machine++) {
      for (let i = 0; i < BURST; i++) statuses.push((await t.call('GET', '/v1/products', { headers: from(`10.0.1.${machine}`, apiKey(t.pkA)) })).status)
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(BURST * SHOP_FRONT_SHARE)
    expect(statuses.filter((s) => s === 429)).toHaveLength(30 * BURST - BURST * SHOP_FRONT_SHARE)
    const refused = await t.call('GET', '/v1/products', { headers: from('10.0.2.1', apiKey(t.pkA)) })
    expect([refused.status, refused.headers.get('ratelimit-limit'), refused.headers.get('retry-after')]).toEqual([429, String(BURST * SHOP_FRONT_SHARE), '1'])
    expect(refused.body.error.message).toBe(
      `The shop front of this store, all its clients together, sent more requests with the publishable key than its limit allows (${SHOP_FRONT_SHARE} times the store's). Wait 1 s (Retry-After); the store's server (secret key) and its panel are not affected. If many machines call this page in a loop, slow them down.`,
    )
    // The store's server and panel, and another store's shop front, are untouched.
    expect(seen(await t.call('GET', '/v1/products', { headers: apiKey(A.key.apiKey) }))).toBe('200 - 4')
    expect(seen(await t.call('GET', '/v1/products', { headers: from('10.0.1.0', apiKey(t.pkB)) }))).toBe('200 - 4')
  })

  test("one flooding address cannot empty the shop front's ceiling: what its own bucket refuses is given back", async () => {
    const t = await setup()
    for (let i = 0; i < 100; i++) await t.call('GET', '/v1/products', { headers: from('10.0.0.9', apiKey(t.pkA)) })
    const others: string[] = []
    for (let machine = 0; machine < SHOP_FRONT_SHARE - 1; machine++) {
      for (let i = 0; i < BURST; i++) others.push(seen(await t.call('GET', '/v1/products', { headers: from(`10.0.3.${machine}`, apiKey(t.pkA)) })).split(' ')[0]!)
    }
    expect(others).toEqual(Array(BURST * (SHOP_FRONT_SHARE - 1)).fill('200'))
  })

  test('an IPv6 client counts by its /64 network, an IPv4-mapped one as IPv4', () => {
    expect(addressGroup('2001:db8:0:1:aaaa::1')).toBe('2001:db8:0:1::/64')
    expect(addressGroup('2001:0db8:0000:0001:bbbb:cccc:dddd:eeee')).toBe('2001:db8:0:1::/64')
    expect(addressGroup('2001:db8::7')).toBe('2001:db8:0:0::/64')
    expect(addressGroup('fe80::1%eth0')).toBe('fe80:0:0:0::/64')
    expect(addressGroup('::ffff:10.0.0.7')).toBe('10.0.0.7')
    expect(addressGroup('::1')).toBe('::1')
    expect(addressGroup('10.0.0.7')).toBe('10.0.0.7')
  })
})

describe('the shop-front buckets stay bounded', () => {
  test(`a flood from many addresses keeps at most ${MAX_SHOP_FRONT_BUCKETS} buckets, the store's bucket untouched; idle ones are forgotten once full again`, () => {
    const clock = new ManualClock()
    const limiter = new RateLimiter(clock, 10, 20)
    const headers: Record<string, unknown> = {}
    // Spread over 100 stores, so that no store's whole shop front (SHOP_FRONT_SHARE times its bucket) runs dry.
    for (let i = 0; i < MAX_SHOP_FRONT_BUCKETS * 3; i++) {
      limiter.takeShopFront(`str_${i % 100}`, `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`, headers)
      expect(limiter.shopFrontBuckets).toBeLessThanOrEqual(MAX_SHOP_FRONT_BUCKETS)
      if (i % 1000 === 0) clock.advance(10)
    }
    expect(limiter.shopFrontBuckets).toBe(MAX_SHOP_FRONT_BUCKETS)
    // Still limiting what it keeps: the newest address, drained, is refused.
    for (let i = 0; i < 20; i++) expect(limiter.takeShopFront('str_a', 'newest', headers)).toBe('allowed')
    expect(limiter.takeShopFront('str_a', 'newest', headers)).toBe('client')
    expect(limiter.take('str_a', headers)).toBe(true)
    expect(headers['ratelimit-remaining']).toBe('19')
    // Two seconds fill a bucket of 20 at 10/s: every bucket is as good as new, and the next call drops them.
    clock.advance(2000)
    expect(limiter.takeShopFront('str_a', 'someone', headers)).toBe('allowed')
    expect(limiter.shopFrontBuckets).toBe(1)
    expect(headers['ratelimit-remaining']).toBe('19')
  })
})
