import { describe, expect, test } from 'bun:test'
import { apiKey, bearer, expectOk } from '../helpers/world'
import { buyer, eventsOf, expectLedgerConsistent, levels, registerBuyer, shopSetup } from '../helpers/orders'

describe('POST /v1/orders/checkout', () => {
  test('creates a PENDING order with a snapshot of the cart, reserves the stock and empties the cart', async () => {
    const s = await shopSetup()
    const second = await s.catalog.createProduct({ state: 'PUBLISHED', name: 'Caneca', price: 0.1, stock: 5 })
    await expectOk(s.shop.add(s.variantId, 3))
    await expectOk(s.shop.add(second.variants[0].id, 3))
    const order = await expectOk(s.shop.checkout(), 201)
    expect(order).toMatchObject({
      number: 1,
      status: 'PENDING',
      subtotal: 60.27,
      total: 60.27,
      currency: 'BRL',
      customer: { id: s.w.A.customer.id, name: 'Buyer', email: 'buyer@example.com' },
      payments: [],
      refunds: [],
      shipment: null,
      cancelReason: null,
      createdAt: '2026-01-01T00:00:00.000Z',
      expiresAt: '2026-01-01T01:00:00.000Z',
    })
    expect(order.id).toStartWith('ord_')
    expect(order.items).toEqual([
      { variantId: s.variantId, productId: s.product.id, name: 'Camiseta Básica', sku: s.product.sku, unitPrice: 19.99, quantity: 3, lineTotal: 59.97 },
      { variantId: second.variants[0].id, productId: second.id, name: 'Caneca', sku: second.sku, unitPrice: 0.1, quantity: 3, lineTotal: 0.3 },
    ])
    expect(levels(s.deps, s.variantId)).toEqual({ stock: 10, reserved: 3 })
    expect((await s.catalog.variant(s.variantId)).available).toBe(7)
    expect((await s.shop.cart()).items).toEqual([])
    const moves = expectLedgerConsistent(s.deps, s.variantId)
    expect(moves.at(-1)).toMatchObject({ kind: 'RESERVE', quantity: 3, orderId: order.id })
    expect(eventsOf(s.deps, s.w.A.group.storeId, 'order.created')).toEqual([{ orderId: order.id, number: 1, customerId: s.w.A.customer.id, total: 60.27 }])
  })

  test('the order keeps its prices and names when the catalog changes later', async () => {
    const s = await shopSetup()
    const order = await s.shop.buy(s.variantId, 2)
    await expectOk(s.catalog.send('PATCH', `/v1/variants/${s.variantId}`, { price: 99 }))
    await expectOk(s.catalog.send('PUT', `/v1/products/${s.product.id}`, { name: 'Renamed' }))
    const again = await s.shop.order(order.id)
    expect(again.items[0]).toMatchObject({ name: 'Camiseta Básica', unitPrice: 19.99, lineTotal: 39.98 })
    expect(again.total).toBe(39.98)
  })

  test('every line is reserved or none: a short line is 409 INSUFFICIENT_STOCK listing it, nothing is reserved and the cart stays', async () => {
    const s = await shopSetup()
    const scarce = await s.catalog.createProduct({ state: 'PUBLISHED', stock: 2 })
    await expectOk(s.shop.add(s.variantId, 4))
    await expectOk(s.shop.add(scarce.variants[0].id, 2))
    // Another buyer takes one of the two scarce units in between.
    const other = await registerBuyer(s.call, s.w.A.key.apiKey, 'other@example.com')
    await other.buy(scarce.variants[0].id, 1)
    const res = await s.shop.checkout()
    expect(res.status).toBe(409)
    expect(res.body.error.code).toBe('INSUFFICIENT_STOCK')
    expect(res.body.error.details).toEqual([expect.objectContaining({ variantId: scarce.variants[0].id, requested: 2, available: 1 })])
    expect(levels(s.deps, s.variantId)).toEqual({ stock: 10, reserved: 0 })
    expect(levels(s.deps, scarce.variants[0].id)).toEqual({ stock: 2, reserved: 1 })
    expect((await s.shop.cart()).itemCount).toBe(6)
    expect((await expectOk(s.shop.send('GET', '/v1/orders'))).total).toBe(0)
  })

  test('a line whose product was unpublished since is 409 PRODUCT_UNAVAILABLE naming the line to remove, and nothing is reserved', async () => {
    const s = await shopSetup()
    const item = (await expectOk(s.shop.add(s.variantId, 1))).items[0].id
    await expectOk(s.catalog.send('PUT', `/v1/products/${s.product.id}`, { state: 'ARCHIVED' }))
    const res = await s.shop.checkout()
    expect([res.status, res.body.error.code, res.body.error.message]).toEqual([
      409,
      'PRODUCT_UNAVAILABLE',
      `'${s.product.name}' (${s.product.variants[0].sku}) can no longer be bought. Remove that item from the cart (DELETE /v1/cart/items/${item}) and check out again.`,
    ])
    expect(levels(s.deps, s.variantId).reserved).toBe(0)
    // Two such lines: each id is in details, which the message points to.
    const other = await s.catalog.createProduct({ state: 'PUBLISHED', price: 2, stock: 5 })
    const second = (await expectOk(s.shop.add(other.variants[0].id, 1))).items.find((i: { variantId: string }) => i.variantId === other.variants[0].id).id
    await expectOk(s.catalog.send('PUT', `/v1/products/${other.id}`, { state: 'DRAFT' }))
    const both = await s.shop.checkout()
    expect(both.body.error.message).toEndWith('Remove those items from the cart (DELETE /v1/cart/items/:id, each itemId in details) and check out again.')
    expect(both.body.error.details.map((d: { itemId: string }) => d.itemId).sort()).toEqual([item, second].sort())
  })

  test('a body sent to checkout is a 400 naming its fields, and no order is made: checkout orders the cart; {} is no body', async () => {
    const s = await shopSetup()
    await expectOk(s.shop.add(s.variantId, 1))
    const headers = { ...apiKey(s.w.A.key.apiKey), authorization: `Bearer ${s.w.A.customer.token}` }
    const items = await s.call('POST', '/v1/orders/checkout', { headers: { ...headers, 'x-request-id': 'with-items' }, body: { items: [{ variantId: s.variantId, quantity: 3 }] } })
    expect([items.status, items.body.error.code, items.body.error.message]).toEqual([
      400,
      'VALIDATION_ERROR',
      'POST /v1/orders/checkout takes no body (it had "items"): send the request without one. What each route takes is in /docs.',
    ])
    expect((await expectOk(s.shop.send('GET', '/v1/orders'))).total).toBe(0)
    expect(levels(s.deps, s.variantId).reserved).toBe(0)
    // The request inspector shows what was sent with the refusal.
    const seen = await expectOk(s.call('GET', '/v1/store/requests/with-items', { headers: bearer(s.w.A.student) }))
    expect([seen.status, JSON.parse(seen.requestBody)]).toEqual([400, { items: [{ variantId: s.variantId, quantity: 3 }] }])
    const order = await expectOk(s.call('POST', '/v1/orders/checkout', { headers, body: {} }), 201)
    expect(order.items.map((i: { quantity: number }) => i.quantity)).toEqual([1])
    // The OpenAPI document lists the 400 and the 413 such a body may get.
    const document = (await s.call('GET', '/openapi.json')).body
    expect(Object.keys(document.paths['/v1/orders/checkout'].post.responses)).toEqual(expect.arrayContaining(['400', '413']))
  })

  test('an empty cart is 409 CART_EMPTY', async () => {
    const s = await shopSetup()
    const res = await s.shop.checkout()
    expect(res.status).toBe(409)
    expect(res.body.error.code).toBe('CART_EMPTY')
    expect(res.body.error.message).toContain('POST /v1/cart/items')
  })

  test('order numbers count up per store', async () => {
    const s = await shopSetup()
    const b = await s.call('POST', '/v1/products', { headers: apiKey(s.w.B.key.apiKey), body: { name: 'B', sku: 'B-1', price: 1, stock: 10, state: 'PUBLISHED' } })
    const inB = buyer(s.call, s.w.B.key.apiKey, s.w.B.customer.token)
    const other = await registerBuyer(s.call, s.w.A.key.apiKey, 'other@example.com')
    expect((await s.shop.buy(s.variantId)).number).toBe(1)
    expect((await inB.buy(b.body.variants[0].id)).number).toBe(1)
    expect((await other.buy(s.variantId)).number).toBe(2)
    expect((await s.shop.buy(s.variantId)).number).toBe(3)
    expect((await inB.buy(b.body.variants[0].id)).number).toBe(2)
  })
})

describe("the customer's orders", () => {
  test('GET /v1/orders lists only their own, newest first, with a status filter; another customer gets 404 for them', async () => {
    const s = await shopSetup()
    const first = await s.shop.buy(s.variantId)
    s.clock.advance(1000)
    const second = await s.shop.buy(s.variantId)
    await expectOk(s.shop.pay(second.id))
    const other = await registerBuyer(s.call, s.w.A.key.apiKey, 'other@example.com')
    const theirs = await other.buy(s.variantId)
    const list = await expectOk(s.shop.send('GET', '/v1/orders'))
    expect(list.data.map((o: any) => o.id)).toEqual([second.id, first.id])
    expect(list).toMatchObject({ page: 1, pageSize: 20, total: 2 })
    const paid = await expectOk(s.shop.send('GET', '/v1/orders?status=PAID'))
    expect(paid.data.map((o: any) => o.id)).toEqual([second.id])
    const cross = await s.shop.send('GET', `/v1/orders/${theirs.id}`)
    const unknown = await s.shop.send('GET', '/v1/orders/ord_doesnotexist000000000')
    expect(cross.status).toBe(404)
    expect(cross.body.error.message.replace(theirs.id, 'X')).toBe(unknown.body.error.message.replace('ord_doesnotexist000000000', 'X'))
    expect((await other.cancel(first.id)).status).toBe(404)
    expect((await other.pay(first.id)).status).toBe(404)
    expect((await s.shop.order(first.id)).status).toBe('PENDING')
  })
})
