import { describe, expect, test } from 'bun:test'
import { fanOut } from '../../src/features/webhooks/deliveries'
import { shopSetup } from '../helpers/orders'
import { apiKey, expectOk } from '../helpers/world'

const MINUTE = 60_000

describe("an order's history and its webhook deliveries", () => {
  test('history lists every status with when it began, oldest first', async () => {
    const s = await shopSetup()
    const t0 = s.clock.now()
    const order = await s.shop.buy(s.variantId, 2)
    s.clock.advance(2 * MINUTE)
    await expectOk(s.shop.pay(order.id))
    s.clock.advance(60 * MINUTE)
    await expectOk(s.panel('POST', `/${order.id}/transition`, { to: 'SHIPPED', trackingCode: 'BR123' }))
    s.clock.advance(24 * 60 * MINUTE)
    await expectOk(s.panel('POST', `/${order.id}/transition`, { to: 'DELIVERED' }))
    s.clock.advance(MINUTE)
    const refunded = await expectOk(s.panel('POST', `/${order.id}/refund`, { restock: true }))
    const at = (ms: number) => new Date(t0 + ms).toISOString()
    expect(refunded.history).toEqual([
      { status: 'PENDING', at: at(0) },
      { status: 'PAID', at: at(2 * MINUTE) },
      { status: 'SHIPPED', at: at(62 * MINUTE) },
      { status: 'DELIVERED', at: at(62 * MINUTE + 24 * 60 * MINUTE) },
      { status: 'REFUNDED', at: at(63 * MINUTE + 24 * 60 * MINUTE) },
    ])
    // The buyer's view of the order carries the same history.
    expect((await s.shop.order(order.id)).history).toEqual(refunded.history)
    const cancelled = await s.shop.buy(s.variantId, 1)
    s.clock.advance(MINUTE)
    expect((await expectOk(s.shop.cancel(cancelled.id))).history.map((h: any) => h.status)).toEqual(['PENDING', 'CANCELLED'])
  })

  test("deliveries filtered by orderId are those of that order's events only", async () => {
    const s = await shopSetup()
    const key = apiKey(s.w.A.key.apiKey)
    await expectOk(s.call('POST', '/v1/webhooks', { headers: key, body: { url: 'https://10.9.8.7/hook', events: ['*'] } }), 201)
    const first = await s.shop.buy(s.variantId, 1)
    await expectOk(s.shop.pay(first.id))
    const second = await s.shop.buy(s.variantId, 1)
    // The events become attempts at each endpoint (nothing is sent: the dispatcher is not ticked).
    fanOut(s.deps.db, s.deps.ids, s.clock.now(), 100)
    const of = async (orderId: string) => (await expectOk(s.call('GET', `/v1/webhooks/deliveries?orderId=${orderId}`, { headers: key }))).data.map((d: any) => d.eventType).sort()
    expect(await of(first.id)).toEqual(['order.created', 'order.paid'])
    expect(await of(second.id)).toEqual(['order.created'])
    expect(await of('ord_unknown')).toEqual([])
  })
})
