import { describe, expect, test } from 'bun:test'
import { Cart, CartItem } from '../../src/features/cart/model'
import { expectOk } from '../helpers/world'
import { shopSetup } from '../helpers/orders'

/**
 * The cart routes send the cart as it is, without Elysia's check against the `response` schema
 * (routes.ts): these answers are checked here instead, strictly (no field more, none less), and each
 * answer of a change must be the cart a fresh GET reads (an add builds it from the rows it read).
 */
const StrictCart = Cart.extend({ items: CartItem.strict().array() }).strict()

describe('cart answers', () => {
  test('every cart answer matches the Cart schema exactly and is what GET /v1/cart reads right after', async () => {
    const s = await shopSetup()
    const other = await s.catalog.createProduct({ state: 'PUBLISHED', price: 0.1, stock: 50 })
    const answers: unknown[] = []
    const check = async (res: Promise<{ status: number; body: any; headers: Headers }>) => {
      const r = await res
      expect(r.status).toBe(200)
      expect(r.headers.get('content-type')).toBe('application/json')
      expect(r.headers.get('x-request-id')).toStartWith('req_')
      expect(StrictCart.parse(r.body)).toEqual(r.body)
      expect(await s.shop.cart()).toEqual(r.body)
      answers.push(r.body)
      return r.body
    }
    await check(s.shop.send('GET', '/v1/cart'))
    await check(s.shop.add(s.variantId, 1))
    const two = await check(s.shop.add(other.variants[0].id, 3))
    expect(two.items.map((i: { variantId: string }) => i.variantId)).toEqual([s.variantId, other.variants[0].id])
    const again = await check(s.shop.add(s.variantId, 2))
    expect(again.items.map((i: { quantity: number }) => i.quantity)).toEqual([3, 3])
    expect(again).toMatchObject({ itemCount: 6, subtotal: 60.27, currency: 'BRL' })
    await check(s.shop.send('PATCH', `/v1/cart/items/${again.items[1].id}`, { quantity: 5 }))
    await check(s.shop.send('DELETE', `/v1/cart/items/${again.items[0].id}`))
    expect(answers).toHaveLength(6)
  })

  test('an add of a new variant appends its line after the lines already there, as a fresh read orders them', async () => {
    const s = await shopSetup()
    await expectOk(s.shop.add(s.variantId, 2))
    const other = await s.catalog.createProduct({ state: 'PUBLISHED', price: 1, stock: 4 })
    const cart = await expectOk(s.shop.add(other.variants[0].id, 1))
    expect(cart).toEqual(await s.shop.cart())
    expect(cart.items[1]).toMatchObject({ variantId: other.variants[0].id, available: 4, unitPrice: 1, quantity: 1, lineTotal: 1 })
  })
})
