import { describe, expect, test } from 'bun:test'
import { OrderExpiry } from '../../src/features/orders/expiry'
import { startBackgroundWork } from '../../src/wiring'
import { createTestApp } from '../helpers/app'
import { storeCatalog } from '../helpers/catalog'
import { expectOk, twoStores } from '../helpers/world'
import { limit } from '../helpers/limits'
import { waitFor } from '../helpers/receivers'
import { buyer, eventsOf, expectLedgerConsistent, levels, shopSetup } from '../helpers/orders'

const MINUTE = 60_000

describe('expiry of unpaid orders (RESERVATION_TTL_MINUTES)', () => {
  test('a PENDING order unpaid for 60 minutes is cancelled with reason EXPIRED, its stock released, order.cancelled sent', async () => {
    const s = await shopSetup()
    const order = await s.shop.buy(s.variantId, 4)
    expect(order.expiresAt).toBe('2026-01-01T01:00:00.000Z')
    s.clock.advance(60 * MINUTE - 1)
    expect(s.deps.orderExpiry.tick()).toBe(0)
    expect((await s.shop.order(order.id)).status).toBe('PENDING')
    s.clock.advance(1)
    expect(s.deps.orderExpiry.tick()).toBe(1)
    const after = await s.shop.order(order.id)
    expect(after).toMatchObject({ status: 'CANCELLED', cancelReason: 'EXPIRED', expiresAt: null })
    expect(levels(s.deps, s.variantId)).toEqual({ stock: 10, reserved: 0 })
    expect(eventsOf(s.deps, s.w.A.group.storeId, 'order.cancelled')).toEqual([{ orderId: order.id, number: 1, reason: 'EXPIRED', total: 79.96 }])
    expect(expectLedgerConsistent(s.deps, s.variantId).at(-1)).toMatchObject({ kind: 'RELEASE', quantity: 4, reason: 'order #1 not paid in time' })
  })

  test('paid, cancelled and younger orders are left alone; the TTL comes from the setting', async () => {
    const t = createTestApp({ settings: { rateLimitRps: '0', reservationTtlMinutes: '5' } })
    const w = await twoStores(t.call, t.deps)
    const product = await storeCatalog(t.call, w.A.key.apiKey).createProduct({ state: 'PUBLISHED', stock: 10 })
    const shop = buyer(t.call, w.A.key.apiKey, w.A.customer.token)
    const v = product.variants[0].id
    const paid = await shop.buy(v)
    await expectOk(shop.pay(paid.id))
    const cancelled = await shop.buy(v)
    await expectOk(shop.cancel(cancelled.id))
    const old = await shop.buy(v)
    expect(old.expiresAt).toBe('2026-01-01T00:05:00.000Z')
    t.clock.advance(3 * MINUTE)
    const young = await shop.buy(v)
    t.clock.advance(2 * MINUTE)
    expect(t.deps.orderExpiry.tick()).toBe(1)
    expect((await shop.order(old.id)).status).toBe('CANCELLED')
    expect((await shop.order(young.id)).status).toBe('PENDING')
    expect((await shop.order(paid.id)).status).toBe('PAID')
    expect((await shop.order(cancelled.id)).cancelReason).toBe('CUSTOMER')
  })

  test('an order past its time is never paid, even before the timer ran: 409 INVALID_TRANSITION and it is EXPIRED', async () => {
    const s = await shopSetup()
    const order = await s.shop.buy(s.variantId, 2)
    s.clock.advance(61 * MINUTE)
    const res = await s.shop.pay(order.id)
    // The buyer last saw it PENDING: the refusal says it expired, when, and how to buy the items again.
    const expired = {
      code: 'INVALID_TRANSITION',
      message: `Order #${order.number} expired at ${order.expiresAt} before it was paid, so it was cancelled and its items went back to stock; it cannot be paid now. To buy them, add them to the cart again (POST /v1/cart/items) and check out (POST /v1/orders/checkout), then pay the new order.`,
      details: [{ orderId: order.id, status: 'CANCELLED', requested: 'PAID', cancelReason: 'EXPIRED' }],
    }
    expect([res.status, res.body.error]).toEqual([409, expired])
    expect(await s.shop.order(order.id)).toMatchObject({ status: 'CANCELLED', cancelReason: 'EXPIRED', payments: [] })
    expect(levels(s.deps, s.variantId)).toEqual({ stock: 10, reserved: 0 })
    // Again, once the expiry is written: the same answer, from the early check.
    const again = await s.shop.pay(order.id)
    expect([again.status, again.body.error]).toEqual([409, expired])
    // Cancelling it, by the customer or the store, says the same, and that nothing is left to cancel.
    const cancelled = {
      ...expired,
      message: `Order #${order.number} expired at ${order.expiresAt} before it was paid, so it was cancelled and its items went back to stock; there is nothing left to cancel.`,
      details: [{ orderId: order.id, status: 'CANCELLED', requested: 'CANCELLED', cancelReason: 'EXPIRED' }],
    }
    const byCustomer = await s.shop.cancel(order.id)
    expect([byCustomer.status, byCustomer.body.error]).toEqual([409, cancelled])
    const byStore = await s.panel('POST', `/${order.id}/transition`, { to: 'CANCELLED' })
    expect([byStore.status, byStore.body.error]).toEqual([409, cancelled])
  })

  test('the due times live in the database: after a restart, what fell due meanwhile is expired at start', async () => {
    const s = await shopSetup()
    const order = await s.shop.buy(s.variantId, 2)
    // The server stops before the order is due…
    await s.deps.lifecycle.stop()
    s.clock.advance(2 * 60 * MINUTE)
    // …and a new process (a new timer on the same database) starts after it fell due.
    const restarted = new OrderExpiry(s.deps)
    restarted.start()
    restarted.stop()
    expect((await s.shop.order(order.id))).toMatchObject({ status: 'CANCELLED', cancelReason: 'EXPIRED' })
    expect(levels(s.deps, s.variantId).reserved).toBe(0)
  })

  test('at start, expiry runs before anything else may wait: webhook delivery and retention start when the server lets them', async () => {
    const s = await shopSetup()
    const order = await s.shop.buy(s.variantId, 2)
    s.clock.advance(61 * MINUTE)
    const started: string[] = []
    for (const name of ['webhooks', 'retention'] as const) {
      const service = s.deps[name]
      const start = service.start.bind(service)
      service.start = () => {
        started.push(name)
        start()
      }
    }
    let later: (() => void) | undefined
    startBackgroundWork(s.deps, (start) => {
      later = start
    })
    // The server listens only now (server.ts): its first answer already shows the order expired.
    expect(await s.shop.order(order.id)).toMatchObject({ status: 'CANCELLED', cancelReason: 'EXPIRED' })
    expect(started).toEqual([])
    later!()
    expect(started).toEqual(['webhooks', 'retention'])
  })

  test('a started timer fires by itself when an order falls due', async () => {
    const t = createTestApp({ settings: { rateLimitRps: '0', reservationTtlMinutes: '1' } })
    const w = await twoStores(t.call, t.deps)
    const product = await storeCatalog(t.call, w.A.key.apiKey).createProduct({ state: 'PUBLISHED', stock: 10 })
    const shop = buyer(t.call, w.A.key.apiKey, w.A.customer.token)
    t.deps.orderExpiry.start()
    const order = await shop.buy(product.variants[0].id)
    expect((await shop.order(order.id)).status).toBe('PENDING')
    // Time comes from the injected clock: once it says the order is due, a wake-up sets the timer to now.
    // Nothing here calls tick(): the order can only change when the real timer fires, whenever a busy
    // machine gets to it (reading the order expires nothing).
    t.clock.advance(MINUTE)
    t.deps.orderExpiry.wake()
    await waitFor(async () => (await shop.order(order.id)).status !== 'PENDING', limit(2_000), 'the started timer to expire the order')
    expect((await shop.order(order.id))).toMatchObject({ status: 'CANCELLED', cancelReason: 'EXPIRED' })
  })
})
