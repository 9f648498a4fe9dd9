import { describe, expect, test } from 'bun:test'
import { asc, eq } from 'drizzle-orm'
import { webhookDeliveries } from '../../src/features/webhooks/tables'
import { shopSetup } from '../helpers/orders'
import { statementsOf } from '../helpers/statement-log'
import { apiKey, expectOk } from '../helpers/world'

const DAY = 24 * 60 * 60 * 1000

describe('the store overview', () => {
  test('counts products per state, orders per status and what was paid today, lists low stock and keys, and sees nothing of the other store', async () => {
    const s = await shopSetup({ price: 19.99, stock: 10, minStock: 2 })
    // The clock starts at a UTC midnight: an order paid at 23:00 of the day before is not today's.
    s.clock.advance(DAY - 60 * 60 * 1000)
    const yesterday = await s.shop.buy(s.variantId, 1)
    await expectOk(s.shop.pay(yesterday.id))
    s.clock.advance(2 * 60 * 60 * 1000)
    const today = await s.shop.buy(s.variantId, 3)
    await expectOk(s.shop.pay(today.id))
    await s.shop.buy(s.variantId, 4) // PENDING: 4 reserved, 10 - 1 - 3 - 4 = 2 left, at minStock
    await s.catalog.createProduct({ name: 'Rascunho', stock: 50 }) // DRAFT, plenty
    await s.catalog.createProduct({ name: 'Esgotando', state: 'PUBLISHED', sku: 'LOW-1', stock: 1, minStock: 5 })
    // Store B has its own products and orders: none of them shows in A's overview.
    await expectOk(s.call('POST', '/v1/products', { headers: apiKey(s.w.B.key.apiKey), body: { name: 'De B', sku: 'B-1', price: 1, stock: 0, state: 'PUBLISHED' } }), 201)

    const o = await expectOk(s.call('GET', '/v1/store/overview', { headers: apiKey(s.w.A.key.apiKey) }))
    expect(o.today).toEqual({ from: new Date(Date.UTC(2026, 0, 2)).toISOString(), to: new Date(Date.UTC(2026, 0, 3)).toISOString(), timeZone: 'UTC' })
    expect(o.products).toEqual({ DRAFT: 1, PUBLISHED: 2, ARCHIVED: 0 })
    expect(o.orders).toEqual({
      byStatus: { PENDING: 1, PAID: 2, CANCELLED: 0, SHIPPED: 0, DELIVERED: 0, REFUNDED: 0 },
      paidToday: { orders: 1, amount: 59.97 },
      currency: 'BRL',
    })
    expect(o.lowStock.total).toBe(2)
    expect(o.lowStock.data.map((v: any) => [v.productName, v.sku, v.available, v.minStock])).toEqual([
      ['Esgotando', 'LOW-1', 1, 5],
      [s.product.name, s.product.variants[0].sku, 2, 2],
    ])
    expect(o.apiKeys.map((k: any) => k.name).sort()).toEqual(['main', 'spare'])
    // On a machine in São Paulo both payments (20:00 and 22:00 there) fell on the same day, 1 January.
    s.clock.timeZone = 'America/Sao_Paulo'
    const local = await expectOk(s.call('GET', '/v1/store/overview', { headers: apiKey(s.w.A.key.apiKey) }))
    expect([local.today, local.orders.paidToday]).toEqual([
      { from: '2026-01-01T03:00:00.000Z', to: '2026-01-02T03:00:00.000Z', timeZone: 'America/Sao_Paulo' },
      { orders: 2, amount: 79.96 },
    ])
    expect(o.webhooks.failing).toEqual([])
    const b = await expectOk(s.call('GET', '/v1/store/overview', { headers: apiKey(s.w.B.key.apiKey) }))
    expect([b.products, b.orders.byStatus.PAID, b.lowStock.data.map((v: any) => v.sku)]).toEqual([{ DRAFT: 0, PUBLISHED: 1, ARCHIVED: 0 }, 0, ['B-1']])
  })

  test('an endpoint with failed deliveries in the last 24 hours is listed with its count and last failure', async () => {
    const s = await shopSetup()
    const hook = await expectOk(s.call('POST', '/v1/webhooks', { headers: apiKey(s.w.A.key.apiKey), body: { url: 'https://10.9.8.7/hook', events: ['*'] } }), 201)
    s.clock.advance(3 * DAY)
    const at = (hoursAgo: number) => s.clock.now() - hoursAgo * 60 * 60 * 1000
    // Four attempts (pings), then set as the dispatcher would have left them: three failures, one 30 hours ago, and a success.
    for (let i = 0; i < 4; i++) await expectOk(s.call('POST', `/v1/webhooks/${hook.id}/ping`, { headers: apiKey(s.w.A.key.apiKey) }), 202)
    const ids = s.deps.db.select({ id: webhookDeliveries.id }).from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, hook.id)).orderBy(asc(webhookDeliveries.id)).all()
    expect(ids.length).toBe(4)
    const leave = [
      [30, 'FAILED'],
      [5, 'FAILED'],
      [2, 'FAILED'],
      [1, 'SUCCEEDED'],
    ] as const
    leave.forEach(([hoursAgo, status], i) =>
      s.deps.db.update(webhookDeliveries).set({ status, createdAt: at(hoursAgo) }).where(eq(webhookDeliveries.id, ids[i]!.id)).run(),
    )
    const o = await expectOk(s.call('GET', '/v1/store/overview', { headers: apiKey(s.w.A.key.apiKey) }))
    expect(o.webhooks.failing).toEqual([{ webhookId: hook.id, url: 'https://10.9.8.7/hook', failed: 2, lastFailedAt: new Date(at(2)).toISOString() }])
  })

  test('a store with more than 1,000 low variants reads "1,001" and the 20 furthest below their minimum, in a bounded count', async () => {
    const s = await shopSetup()
    // 11 products of 100 variants: stock 0 with minimums 1 to 100, so the shortfall grows with the minimum.
    for (let p = 0; p < 11; p++) {
      const variants = Array.from({ length: 100 }, (_, i) => ({ sku: `L${p}-${i}`, price: 1, stock: 0, minStock: i + 1, options: { n: String(i) } }))
      await expectOk(s.call('POST', '/v1/products', { headers: apiKey(s.w.A.key.apiKey), body: { name: `Lote ${p}`, variants } }), 201)
    }
    const o = await expectOk(s.call('GET', '/v1/store/overview', { headers: apiKey(s.w.A.key.apiKey) }))
    expect(o.lowStock.total).toBe(1001)
    expect(o.lowStock.data).toHaveLength(20)
    // Furthest below first: the minimum of 100 with nothing available, in every one of the 11 products, then 99.
    expect(o.lowStock.data.map((v: any) => v.minStock)).toEqual([...Array(11).fill(100), ...Array(9).fill(99)])
    expect(o.lowStock.data.every((v: any) => v.available === 0)).toBe(true)
  })

  test('reads the low variants as a range of the index that holds only them', async () => {
    const s = await shopSetup({ stock: 1, minStock: 2 })
    const { result: o, statements } = await statementsOf(() => expectOk(s.call('GET', '/v1/store/overview', { headers: apiKey(s.w.A.key.apiKey) })))
    expect(o.lowStock.data.map((v: any) => v.available)).toEqual([1])
    const asked = statements.filter((text) => text.includes('min_stock'))
    // The list and its bounded count; a condition written otherwise than the index's would read every variant of the store.
    const plans = asked.map((text) => (s.deps.sqlite.query(`EXPLAIN QUERY PLAN ${text}`).all() as { detail: string }[]).map((r) => r.detail).join('; '))
    expect(plans).toHaveLength(2)
    for (const plan of plans) expect(plan).toMatch(/SEARCH variants USING INDEX variants_store_low \(store_id=\? AND <expr><\?\)/)
  })
})
