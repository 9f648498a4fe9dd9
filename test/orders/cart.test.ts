import { describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { carts } from '../../src/features/cart/tables'
import { bearer, expectOk } from '../helpers/world'
import { buyer, levels, registerBuyer, shopSetup } from '../helpers/orders'

describe('the cart', () => {
  test('starts empty, with an id and the store currency', async () => {
    const s = await shopSetup()
    const cart = await s.shop.cart()
    expect(cart).toMatchObject({ items: [], itemCount: 0, subtotal: 0, currency: 'BRL' })
    expect(cart.id).toStartWith('cart_')
    expect((await s.shop.cart()).id).toBe(cart.id)
  })

  test("the cart and the order it becomes carry the store's currency as it is set now, a cart made before the change too", async () => {
    const s = await shopSetup()
    await expectOk(s.shop.add(s.variantId, 1))
    const other = await registerBuyer(s.call, s.w.A.key.apiKey, 'lia@example.com')
    await expectOk(s.call('PUT', '/v1/store/settings', { headers: bearer(s.w.A.student), body: { currency: 'USD' } }))
    // A cart made before the change, and one made after it.
    expect((await s.shop.cart()).currency).toBe('USD')
    expect((await other.cart()).currency).toBe('USD')
    expect((await expectOk(s.shop.checkout(), 201)).currency).toBe('USD')
    // Another store keeps its own.
    expect((await buyer(s.call, s.w.B.key.apiKey, s.w.B.customer.token).cart()).currency).toBe('BRL')
  })

  test('adding the same variant again adds the quantities up; totals are exact in cents (3 × 19.99 = 59.97)', async () => {
    const s = await shopSetup()
    await expectOk(s.shop.add(s.variantId, 1))
    const cart = await expectOk(s.shop.add(s.variantId, 2))
    expect(cart.items).toHaveLength(1)
    expect(cart.items[0]).toMatchObject({ variantId: s.variantId, productId: s.product.id, name: s.product.name, sku: s.product.sku, unitPrice: 19.99, quantity: 3, lineTotal: 59.97, available: 10 })
    expect(cart).toMatchObject({ itemCount: 3, subtotal: 59.97 })
    const other = await s.catalog.createProduct({ state: 'PUBLISHED', price: 0.1, stock: 50 })
    const two = await expectOk(s.shop.add(other.variants[0].id, 7))
    expect(two).toMatchObject({ itemCount: 10, subtotal: 60.67 })
  })

  test('PATCH sets the quantity and DELETE removes the item; both answer with the cart', async () => {
    const s = await shopSetup()
    const cart = await expectOk(s.shop.add(s.variantId, 2))
    const item = cart.items[0].id
    expect(item).toStartWith('item_')
    const changed = await expectOk(s.shop.send('PATCH', `/v1/cart/items/${item}`, { quantity: 5 }))
    expect(changed.items[0].quantity).toBe(5)
    expect(changed.subtotal).toBe(99.95)
    const zero = await s.shop.send('PATCH', `/v1/cart/items/${item}`, { quantity: 0 })
    expect(zero.status).toBe(400)
    expect(zero.body.error.details[0].path).toBe('quantity')
    const removed = await expectOk(s.shop.send('DELETE', `/v1/cart/items/${item}`))
    expect(removed).toMatchObject({ items: [], itemCount: 0, subtotal: 0 })
    const again = await s.shop.send('DELETE', `/v1/cart/items/${item}`)
    expect(again.status).toBe(404)
  })

  test('a product id where the variant id belongs is a 404 whose message says it is a product id', async () => {
    const s = await shopSetup()
    const res = await s.shop.add(s.product.id, 1)
    expect(res.status).toBe(404)
    expect(res.body.error.code).toBe('NOT_FOUND')
    expect(res.body.error.message).toContain(`'${s.product.id}' is a product id, not a variant id`)
  })

  test('a product that is not PUBLISHED is 409 PRODUCT_UNAVAILABLE; a deleted one is a 404', async () => {
    const s = await shopSetup()
    const draft = await s.catalog.createProduct({ state: 'DRAFT' })
    const res = await s.shop.add(draft.variants[0].id, 1)
    expect(res.status).toBe(409)
    expect(res.body.error.code).toBe('PRODUCT_UNAVAILABLE')
    expect(res.body.error.message).toContain('DRAFT')
    const archived = await s.catalog.createProduct({ state: 'ARCHIVED' })
    expect((await s.shop.add(archived.variants[0].id)).body.error.code).toBe('PRODUCT_UNAVAILABLE')
    await expectOk(s.catalog.send('DELETE', `/v1/products/${s.product.id}`), 204)
    expect((await s.shop.add(s.variantId)).status).toBe(404)
  })

  test('a quantity above available is 409 INSUFFICIENT_STOCK, counting what the cart holds and what orders reserved', async () => {
    const s = await shopSetup()
    const over = await s.shop.add(s.variantId, 11)
    expect(over.status).toBe(409)
    expect(over.body.error.code).toBe('INSUFFICIENT_STOCK')
    expect(over.body.error.details[0]).toMatchObject({ variantId: s.variantId, requested: 11, available: 10 })
    await expectOk(s.shop.add(s.variantId, 8))
    const adding = await s.shop.add(s.variantId, 3)
    expect(adding.status).toBe(409)
    expect((await s.shop.cart()).items[0].quantity).toBe(8)
    // Another buyer reserves 4: the first buyer may now hold at most 6.
    const other = await registerBuyer(s.call, s.w.A.key.apiKey, 'other@example.com')
    await other.buy(s.variantId, 4)
    const cart = await s.shop.cart()
    expect(cart.items[0].available).toBe(6)
    const patch = await s.shop.send('PATCH', `/v1/cart/items/${cart.items[0].id}`, { quantity: 7 })
    expect(patch.status).toBe(409)
    expect(patch.body.error.code).toBe('INSUFFICIENT_STOCK')
  })

  test("another customer's item is a 404 like an unknown id; each customer has their own cart", async () => {
    const s = await shopSetup()
    const mine = await expectOk(s.shop.add(s.variantId, 1))
    const other = await registerBuyer(s.call, s.w.A.key.apiKey, 'other@example.com')
    expect((await other.cart()).items).toEqual([])
    const cross = await other.send('PATCH', `/v1/cart/items/${mine.items[0].id}`, { quantity: 2 })
    const unknown = await other.send('PATCH', '/v1/cart/items/item_doesnotexist00000000', { quantity: 2 })
    expect(cross.status).toBe(404)
    expect(cross.body.error.message.replace(mine.items[0].id, 'X')).toBe(unknown.body.error.message.replace('item_doesnotexist00000000', 'X'))
    expect((await s.shop.cart()).items[0].quantity).toBe(1)
  })

  test("a variant of another store is a 404; store B's customer cannot use A's variant", async () => {
    const s = await shopSetup()
    const b = buyer(s.call, s.w.B.key.apiKey, s.w.B.customer.token)
    const res = await b.add(s.variantId, 1)
    expect(res.status).toBe(404)
    expect(res.body.error.code).toBe('NOT_FOUND')
  })

  test('an unknown field or a missing variantId is a 400 naming it', async () => {
    const s = await shopSetup()
    const extra = await s.shop.send('POST', '/v1/cart/items', { variantId: s.variantId, quantity: 1, price: 1 })
    expect(extra.status).toBe(400)
    expect(extra.body.error.details).toContainEqual({ path: 'price', message: 'unknown or read-only field; remove it' })
    const missing = await s.shop.send('POST', '/v1/cart/items', { quantity: 1 })
    expect(missing.status).toBe(400)
    expect(missing.body.error.details[0].path).toBe('variantId')
  })

  test("the cart's updated_at moves when a line is added or removed, not when a line's quantity changes", async () => {
    const s = await shopSetup()
    const updatedAt = (id: string) => s.deps.db.select({ at: carts.updatedAt }).from(carts).where(eq(carts.id, id)).get()!.at
    const first = await expectOk(s.shop.add(s.variantId, 1))
    const added = updatedAt(first.id)
    expect(added).toBe(s.clock.now())
    s.clock.advance(60_000)
    await expectOk(s.shop.add(s.variantId, 1))
    await expectOk(s.shop.send('PATCH', `/v1/cart/items/${first.items[0].id}`, { quantity: 4 }))
    expect(updatedAt(first.id)).toBe(added)
    s.clock.advance(60_000)
    const other = await s.catalog.createProduct({ state: 'PUBLISHED', price: 1, stock: 5 })
    await expectOk(s.shop.add(other.variants[0].id, 1))
    expect(updatedAt(first.id)).toBe(added + 120_000)
    s.clock.advance(60_000)
    await expectOk(s.shop.send('DELETE', `/v1/cart/items/${first.items[0].id}`))
    expect(updatedAt(first.id)).toBe(added + 180_000)
  })
  test('a line whose product was archived since it was added stays, unavailable: adding to it or changing it is 409', async () => {
    const s = await shopSetup()
    const cart = await expectOk(s.shop.add(s.variantId, 1))
    const item = cart.items[0].id
    await expectOk(s.catalog.send('PUT', `/v1/products/${s.product.id}`, { state: 'ARCHIVED' }))
    // The line is the buyer's: the message names the line to remove before the store's way back.
    for (const res of [await s.shop.add(s.variantId, 1), await s.shop.send('PATCH', `/v1/cart/items/${item}`, { quantity: 2 })]) {
      expect([res.status, res.body.error.code, res.body.error.message]).toEqual([
        409,
        'PRODUCT_UNAVAILABLE',
        `Product '${s.product.name}' (variant ${s.product.variants[0].sku}) is ARCHIVED, not PUBLISHED, so it cannot be bought. Remove the line (DELETE /v1/cart/items/${item}); the store can publish it again with PUT /v1/products/${s.product.id} {"state":"PUBLISHED"}.`,
      ])
    }
    expect(await s.shop.cart()).toMatchObject({ items: [expect.objectContaining({ id: item, quantity: 1, available: 0 })], itemCount: 1, subtotal: 19.99 })
    expect(await expectOk(s.shop.send('DELETE', `/v1/cart/items/${item}`))).toMatchObject({ items: [], itemCount: 0 })
  })
})

describe('a deleted product', () => {
  test('leaves every cart at once: the line is neither shown nor counted, and changing it is 404', async () => {
    const s = await shopSetup()
    const other = await registerBuyer(s.call, s.w.A.key.apiKey, 'other@example.com')
    const kept = await s.catalog.createProduct({ state: 'PUBLISHED', price: 5, stock: 10 })
    await expectOk(s.shop.add(s.variantId, 2))
    const mine = await expectOk(s.shop.add(kept.variants[0].id, 1))
    await expectOk(other.add(s.variantId, 3))
    const gone = mine.items.find((i: any) => i.variantId === s.variantId).id
    expect(mine).toMatchObject({ itemCount: 3, subtotal: 44.98 })

    await expectOk(s.catalog.send('DELETE', `/v1/products/${s.product.id}`), 204)
    expect(await s.shop.cart()).toMatchObject({ items: [expect.objectContaining({ variantId: kept.variants[0].id, quantity: 1, lineTotal: 5 })], itemCount: 1, subtotal: 5 })
    expect(await other.cart()).toMatchObject({ items: [], itemCount: 0, subtotal: 0 })
    for (const res of [await s.shop.send('PATCH', `/v1/cart/items/${gone}`, { quantity: 1 }), await s.shop.send('DELETE', `/v1/cart/items/${gone}`)]) {
      expect(res.status).toBe(404)
      expect(res.body.error.message).toContain(gone)
    }
    // Adding to the cart answers with it, without the deleted line either.
    const added = await expectOk(s.shop.add(kept.variants[0].id, 1))
    expect(added).toMatchObject({ items: [expect.objectContaining({ variantId: kept.variants[0].id, quantity: 2 })], itemCount: 2, subtotal: 10 })
  })

  test('a new product that takes its sku is a line of its own, never the old line', async () => {
    const s = await shopSetup()
    await expectOk(s.shop.add(s.variantId, 2))
    await expectOk(s.catalog.send('DELETE', `/v1/products/${s.product.id}`), 204)
    const successor = await s.catalog.createProduct({ state: 'PUBLISHED', sku: s.product.sku, price: 7.5, stock: 4 })
    expect(successor.sku).toBe(s.product.sku)
    expect(await s.shop.cart()).toMatchObject({ items: [], itemCount: 0, subtotal: 0 })
    const cart = await expectOk(s.shop.add(successor.variants[0].id, 1))
    expect(cart.items).toEqual([expect.objectContaining({ variantId: successor.variants[0].id, productId: successor.id, sku: s.product.sku, quantity: 1, unitPrice: 7.5, available: 4 })])
    expect(cart).toMatchObject({ itemCount: 1, subtotal: 7.5 })
  })

  test('checkout buys the other lines, and an order of nothing but deleted lines is 409 CART_EMPTY', async () => {
    const s = await shopSetup()
    const kept = await s.catalog.createProduct({ state: 'PUBLISHED', price: 5, stock: 10 })
    await expectOk(s.shop.add(s.variantId, 2))
    await expectOk(s.shop.add(kept.variants[0].id, 3))
    await expectOk(s.catalog.send('DELETE', `/v1/products/${s.product.id}`), 204)
    const order = await expectOk(s.shop.checkout(), 201)
    expect(order.items).toEqual([expect.objectContaining({ variantId: kept.variants[0].id, quantity: 3, lineTotal: 15 })])
    expect(order.total).toBe(15)
    expect(levels(s.deps, s.variantId)).toEqual({ stock: 10, reserved: 0 })
    expect(await s.shop.cart()).toMatchObject({ items: [], itemCount: 0 })

    const again = await s.catalog.createProduct({ state: 'PUBLISHED', price: 1, stock: 1 })
    await expectOk(s.shop.add(again.variants[0].id, 1))
    await expectOk(s.catalog.send('DELETE', `/v1/products/${again.id}`), 204)
    const empty = await s.shop.checkout()
    expect(empty.status).toBe(409)
    expect(empty.body.error.code).toBe('CART_EMPTY')
  })
})
