import { describe, expect, test } from 'bun:test'
import { MOVES, PAID_STATES } from '../../src/features/orders/states'
import { ORDER_STATES, type OrderState } from '../../src/features/orders/tables'
import { apiKey, expectOk } from '../helpers/world'
import { eventsOf, expectLedgerConsistent, levels, shopSetup } from '../helpers/orders'

type Setup = Awaited<ReturnType<typeof shopSetup>>

/** The operations a client can try on an order. */
const OPERATIONS = ['pay', 'cancel', 'refund', ...ORDER_STATES.map((s) => `transition ${s}`)] as const
type Op = (typeof OPERATIONS)[number]

/** The legal moves, written out by hand rather than read from states.ts: every other (state, operation) must be 409 INVALID_TRANSITION. */
const LEGAL: Record<OrderState, Partial<Record<Op, OrderState>>> = {
  PENDING: { pay: 'PAID', cancel: 'CANCELLED', 'transition CANCELLED': 'CANCELLED' },
  PAID: { 'transition SHIPPED': 'SHIPPED', refund: 'REFUNDED' },
  SHIPPED: { 'transition DELIVERED': 'DELIVERED', refund: 'REFUNDED' },
  DELIVERED: { refund: 'REFUNDED' },
  CANCELLED: {},
  REFUNDED: {},
}

function run(s: Setup, orderId: string, op: Op) {
  if (op === 'pay') return s.shop.pay(orderId)
  if (op === 'cancel') return s.shop.cancel(orderId)
  if (op === 'refund') return s.panel('POST', `/${orderId}/refund`, {})
  return s.panel('POST', `/${orderId}/transition`, { to: op.split(' ')[1] })
}

/** The path from a new order to each state. */
const PATH: Record<OrderState, Op[]> = {
  PENDING: [],
  PAID: ['pay'],
  CANCELLED: ['cancel'],
  SHIPPED: ['pay', 'transition SHIPPED'],
  DELIVERED: ['pay', 'transition SHIPPED', 'transition DELIVERED'],
  REFUNDED: ['pay', 'refund'],
}

async function orderIn(s: Setup, state: OrderState) {
  const order = await s.shop.buy(s.variantId, 2)
  for (const op of PATH[state]) await expectOk(run(s, order.id, op))
  expect((await s.shop.order(order.id)).status).toBe(state)
  return order.id as string
}

/** Two paid orders of the setup's variant: 3 units (59.97) and 2 units (39.98), 5 left in stock. */
async function twoPaidOrders(s: Setup) {
  const a = await s.shop.buy(s.variantId, 3)
  const b = await s.shop.buy(s.variantId, 2)
  await expectOk(s.shop.pay(a.id))
  await expectOk(s.shop.pay(b.id))
  return { a, b }
}

describe('the order state table', () => {
  test('the states that count as paid are PAID and those reached from it without a refund: SHIPPED and DELIVERED', () => {
    expect([...PAID_STATES].sort()).toEqual(['DELIVERED', 'PAID', 'SHIPPED'])
  })

  test('states.ts declares exactly the nine moves listed here', () => {
    const declared = MOVES.flatMap((m) => m.by.map((by) => `${m.from} -${by}-> ${m.to}`)).sort()
    expect(declared).toEqual(
      [
        'PENDING -pay-> PAID',
        'PENDING -cancel-> CANCELLED',
        'PENDING -transition-> CANCELLED',
        'PENDING -expire-> CANCELLED',
        'PAID -transition-> SHIPPED',
        'SHIPPED -transition-> DELIVERED',
        'PAID -refund-> REFUNDED',
        'SHIPPED -refund-> REFUNDED',
        'DELIVERED -refund-> REFUNDED',
      ].sort(),
    )
  })

  test('every operation from every state: the legal ones move the order, every other is 409 INVALID_TRANSITION (a transition to PAID, REFUNDED or PENDING too) and changes nothing', async () => {
    const s = await shopSetup({ stock: 1000 })
    const failures: string[] = []
    for (const state of ORDER_STATES) {
      for (const op of OPERATIONS) {
        const orderId = await orderIn(s, state)
        const before = levels(s.deps, s.variantId)
        const res = await run(s, orderId, op)
        const want = LEGAL[state][op]
        const now = (await s.shop.order(orderId)).status
        if (want) {
          if (res.status !== 200 || res.body.status !== want || now !== want) failures.push(`${state} ${op}: expected 200 ${want}, got ${res.status} ${res.body?.status ?? res.body?.error?.code}`)
        } else {
          const unchanged = JSON.stringify(levels(s.deps, s.variantId)) === JSON.stringify(before)
          if (res.status !== 409 || res.body.error.code !== 'INVALID_TRANSITION' || now !== state || !unchanged) {
            failures.push(`${state} ${op}: expected 409 INVALID_TRANSITION, got ${res.status} ${res.body?.error?.code ?? res.body?.status}, now ${now}`)
          }
        }
      }
    }
    expect(failures).toEqual([])
    expectLedgerConsistent(s.deps, s.variantId)
  })

  test('every order body lists the transitions and the refund the store routes accept from its state, as the table above', async () => {
    const s = await shopSetup({ stock: 1000 })
    for (const state of ORDER_STATES) {
      const orderId = await orderIn(s, state)
      const legal = Object.keys(LEGAL[state]).filter((op) => op.startsWith('transition ')).map((op) => op.split(' ')[1])
      const expected = { status: state, allowedTransitions: legal, refundable: 'refund' in LEGAL[state] }
      // The buyer's view and the store's list carry the same two fields.
      expect(await s.shop.order(orderId)).toMatchObject(expected)
      const listed = await expectOk(s.panel('GET', `?status=${state}`))
      expect(listed.data.find((o: any) => o.id === orderId)).toMatchObject(expected)
    }
  })

  test('an illegal move says what the order can do from its state', async () => {
    const s = await shopSetup()
    const pending = await orderIn(s, 'PENDING')
    const ship = await run(s, pending, 'transition SHIPPED')
    expect(ship.body.error.message).toContain('is PENDING and cannot become SHIPPED')
    expect(ship.body.error.message).toContain('PAID by POST /v1/orders/:id/pay')
    const refund = await run(s, pending, 'refund')
    expect(refund.body.error.message).toContain('is PENDING and cannot become REFUNDED this way. From PENDING the order can go to: PAID by POST /v1/orders/:id/pay; CANCELLED by')
    // A customer cancelling a paid order is told the moves left are the store's, and whom to ask.
    const paid = await orderIn(s, 'PAID')
    expect((await run(s, paid, 'cancel')).body.error.message).toContain(
      "REFUNDED by POST /v1/store/orders/:id/refund. Those are the store's routes (its secret key or a student's token): the customer asks the store, for a refund say.",
    )
    expect((await run(s, paid, 'transition CANCELLED')).body.error.message).not.toContain("Those are the store's routes")
    const cancelled = await orderIn(s, 'CANCELLED')
    expect((await run(s, cancelled, 'pay')).body.error.message).toContain('CANCELLED is final')
  })
})

describe('side effects of each move', () => {
  test('customer cancel and store cancel release the reservation and send order.cancelled with the reason', async () => {
    const s = await shopSetup()
    const a = await s.shop.buy(s.variantId, 3)
    const b = await s.shop.buy(s.variantId, 2)
    expect(levels(s.deps, s.variantId)).toEqual({ stock: 10, reserved: 5 })
    const byCustomer = await expectOk(s.shop.cancel(a.id))
    expect(byCustomer).toMatchObject({ status: 'CANCELLED', cancelReason: 'CUSTOMER', expiresAt: null })
    const byStore = await expectOk(s.panel('POST', `/${b.id}/transition`, { to: 'CANCELLED' }))
    expect(byStore).toMatchObject({ status: 'CANCELLED', cancelReason: 'STORE' })
    expect(levels(s.deps, s.variantId)).toEqual({ stock: 10, reserved: 0 })
    expect(eventsOf(s.deps, s.w.A.group.storeId, 'order.cancelled')).toEqual([
      { orderId: a.id, number: 1, reason: 'CUSTOMER', total: 59.97 },
      { orderId: b.id, number: 2, reason: 'STORE', total: 39.98 },
    ])
    expect(expectLedgerConsistent(s.deps, s.variantId).filter((m) => m.kind === 'RELEASE').map((m) => m.quantity)).toEqual([3, 2])
  })

  test('SHIPPED with a tracking code, then DELIVERED: the shipment shows both and shipment.updated fires each time', async () => {
    const s = await shopSetup()
    const order = await s.shop.buy(s.variantId)
    await expectOk(s.shop.pay(order.id))
    s.clock.advance(60_000)
    const shipped = await expectOk(s.panel('POST', `/${order.id}/transition`, { to: 'SHIPPED', trackingCode: 'BR123456789' }))
    expect(shipped.shipment).toEqual({ status: 'SHIPPED', trackingCode: 'BR123456789', shippedAt: '2026-01-01T00:01:00.000Z', deliveredAt: null })
    s.clock.advance(60_000)
    const delivered = await expectOk(s.panel('POST', `/${order.id}/transition`, { to: 'DELIVERED' }))
    expect(delivered.shipment).toEqual({ status: 'DELIVERED', trackingCode: 'BR123456789', shippedAt: '2026-01-01T00:01:00.000Z', deliveredAt: '2026-01-01T00:02:00.000Z' })
    expect(eventsOf(s.deps, s.w.A.group.storeId, 'shipment.updated')).toEqual([
      { orderId: order.id, number: 1, status: 'SHIPPED', trackingCode: 'BR123456789' },
      { orderId: order.id, number: 1, status: 'DELIVERED', trackingCode: 'BR123456789' },
    ])
    // The customer sees the same.
    expect((await s.shop.order(order.id)).shipment.status).toBe('DELIVERED')
  })

  test('SHIPPED without a tracking code is fine; a tracking code with CANCELLED or DELIVERED is a 400 and changes nothing', async () => {
    const s = await shopSetup()
    const order = await s.shop.buy(s.variantId)
    const bad = await s.panel('POST', `/${order.id}/transition`, { to: 'CANCELLED', trackingCode: 'X' })
    expect(bad.status).toBe(400)
    await expectOk(s.shop.pay(order.id))
    expect((await expectOk(s.panel('POST', `/${order.id}/transition`, { to: 'SHIPPED' }))).shipment.trackingCode).toBeNull()
    // The code a buyer was given at SHIPPED is never replaced: DELIVERED takes none.
    const late = await s.panel('POST', `/${order.id}/transition`, { to: 'DELIVERED', trackingCode: 'OTHER' })
    expect([late.status, late.body.error.message, late.body.error.details]).toEqual([
      400,
      'trackingCode goes with "to": "SHIPPED", when the parcel leaves; DELIVERED keeps the code given then. Leave it out otherwise.',
      [{ path: 'trackingCode', message: 'only with SHIPPED' }],
    ])
    expect((await s.shop.order(order.id)).status).toBe('SHIPPED')
    expect((await s.panel('POST', `/${order.id}/transition`, { to: 'LOST' })).status).toBe(400)
  })

  test('refund with restock (the default) returns the units through the ledger; without restock they stay sold', async () => {
    const s = await shopSetup()
    const { a, b } = await twoPaidOrders(s)
    expect(levels(s.deps, s.variantId)).toEqual({ stock: 5, reserved: 0 })
    const restocked = await expectOk(s.panel('POST', `/${a.id}/refund`, { reason: 'damaged box' }))
    expect(restocked.status).toBe('REFUNDED')
    expect(restocked.refunds).toEqual([{ id: expect.stringMatching(/^ref_/), amount: 59.97, reason: 'damaged box', restock: true, createdAt: '2026-01-01T00:00:00.000Z' }])
    expect(levels(s.deps, s.variantId)).toEqual({ stock: 8, reserved: 0 })
    await expectOk(s.panel('POST', `/${b.id}/transition`, { to: 'SHIPPED' }))
    const kept = await expectOk(s.panel('POST', `/${b.id}/refund`, { restock: false }))
    expect(kept.refunds[0]).toMatchObject({ amount: 39.98, reason: null, restock: false })
    expect(levels(s.deps, s.variantId)).toEqual({ stock: 8, reserved: 0 })
    expect(expectLedgerConsistent(s.deps, s.variantId).filter((m) => m.kind === 'RETURN')).toMatchObject([{ quantity: 3, orderId: a.id }])
    expect(eventsOf(s.deps, s.w.A.group.storeId, 'order.refunded')).toEqual([
      { orderId: a.id, number: 1, refundId: restocked.refunds[0].id, amount: 59.97, restock: true },
      { orderId: b.id, number: 2, refundId: kept.refunds[0].id, amount: 39.98, restock: false },
    ])
  })

  test('a refund with no body, or an empty JSON one (curl -H \'Content-Type: application/json\' without -d), restocks as the default says', async () => {
    const s = await shopSetup()
    const { a, b } = await twoPaidOrders(s)
    const none = await expectOk(s.call('POST', `/v1/store/orders/${a.id}/refund`, { headers: apiKey(s.w.A.key.apiKey) }))
    const empty = await expectOk(s.call('POST', `/v1/store/orders/${b.id}/refund`, { headers: { ...apiKey(s.w.A.key.apiKey), 'content-type': 'application/json' }, raw: '' }))
    expect([none.refunds[0], empty.refunds[0]]).toMatchObject([
      { amount: 59.97, reason: null, restock: true },
      { amount: 39.98, reason: null, restock: true },
    ])
    expect(levels(s.deps, s.variantId)).toEqual({ stock: 10, reserved: 0 })
  })

  test('product.low_stock fires once when a purchase takes available to the minimum', async () => {
    const s = await shopSetup({ stock: 10, minStock: 2 })
    const order = await s.shop.buy(s.variantId, 7)
    expect(eventsOf(s.deps, s.w.A.group.storeId, 'product.low_stock')).toEqual([])
    const second = await s.shop.buy(s.variantId, 1)
    await expectOk(s.shop.pay(order.id))
    await expectOk(s.shop.pay(second.id))
    expect(eventsOf(s.deps, s.w.A.group.storeId, 'product.low_stock')).toMatchObject([{ variantId: s.variantId, available: 2, minStock: 2 }])
  })

  test('a pending order still releases and sells units of a product deleted after checkout', async () => {
    const s = await shopSetup()
    const a = await s.shop.buy(s.variantId, 2)
    const b = await s.shop.buy(s.variantId, 3)
    await expectOk(s.catalog.send('DELETE', `/v1/products/${s.product.id}`), 204)
    expect((await expectOk(s.shop.cancel(a.id))).status).toBe('CANCELLED')
    expect((await expectOk(s.shop.pay(b.id))).status).toBe('PAID')
    expect(levels(s.deps, s.variantId)).toEqual({ stock: 7, reserved: 0 })
    expectLedgerConsistent(s.deps, s.variantId)
  })
})
