import { describe, expect, test } from 'bun:test'
import { Order } from '../../src/features/orders/model'
import { expectOk } from '../helpers/world'
import { shopSetup } from '../helpers/orders'

// Checkout and pay answer with what they wrote, not with a read after the write: these answers must
// be exactly what a read of the order gives right after.

describe('the answers of checkout and pay', () => {
  test('are the order as GET /v1/orders/:id reads it right after: lines in cart order, payments oldest first', async () => {
    const s = await shopSetup()
    const mug = await s.catalog.createProduct({ state: 'PUBLISHED', name: 'Caneca', price: 0.1, stock: 5 })
    const cap = await s.catalog.createProduct({ state: 'PUBLISHED', name: "Boné 'aba reta'", price: 35, stock: 5 })
    await expectOk(s.shop.add(s.variantId, 2))
    await expectOk(s.shop.add(mug.variants[0].id, 3))
    await expectOk(s.shop.add(cap.variants[0].id, 1))
    const created = await expectOk(s.shop.checkout(), 201)
    expect(Order.strict().parse(created)).toEqual(created)
    expect(created).toEqual(await s.shop.order(created.id))
    expect(created.items.map((i: { name: string; quantity: number }) => `${i.name} x${i.quantity}`)).toEqual(['Camiseta Básica x2', 'Caneca x3', "Boné 'aba reta' x1"])

    const declined = await s.shop.pay(created.id, { method: 'CREDIT_CARD', installments: 3, simulate: 'decline' })
    expect(declined.status).toBe(402)
    s.clock.advance(1000)
    const paid = await expectOk(s.shop.pay(created.id, { method: 'PIX' }))
    expect(Order.strict().parse(paid)).toEqual(paid)
    expect(paid).toEqual(await s.shop.order(created.id))
    expect(paid).toMatchObject({ status: 'PAID', expiresAt: null, total: 75.28, refunds: [] })
    expect(paid.payments.map((p: { method: string; status: string }) => `${p.method} ${p.status}`)).toEqual(['CREDIT_CARD DECLINED', 'PIX APPROVED'])
    expect(paid.updatedAt).toBe('2026-01-01T00:00:01.000Z')
  })

  test('a second order of the store takes the next number', async () => {
    const s = await shopSetup()
    const first = await s.shop.buy(s.variantId, 1)
    const second = await s.shop.buy(s.variantId, 1)
    expect([first.number, second.number]).toEqual([1, 2])
    expect(second).toEqual(await s.shop.order(second.id))
  })
})
