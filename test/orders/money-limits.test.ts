import { describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import fc from 'fast-check'
import { variants } from '../../src/features/catalog/tables'
import { cartItems } from '../../src/features/cart/tables'
import { MAX_CART_LINES, MAX_LINE_QUANTITY, MAX_PRICE } from '../../src/kernel/money'
import { expectOk } from '../helpers/world'
import { shopSetup } from '../helpers/orders'

type Setup = Awaited<ReturnType<typeof shopSetup>>

/** The exact cents a JSON amount stands for, read from its decimal digits (never through a float). */
function centsOf(amount: number): bigint {
  const [units, decimals = ''] = String(amount).split('.')
  expect(decimals.length).toBeLessThanOrEqual(2)
  return BigInt(units!) * 100n + BigInt(decimals.padEnd(2, '0'))
}

/** `count` PUBLISHED products; the i-th costs `priceCents(i)` and has `stock` units. Their variant ids. */
async function products(s: Setup, count: number, priceCents: (i: number) => number, stock = MAX_LINE_QUANTITY) {
  const ids: string[] = []
  for (let i = 0; i < count; i++) {
    const p = await s.catalog.createProduct({ state: 'PUBLISHED', price: priceCents(i) / 100, stock })
    ids.push(p.variants[0].id)
  }
  return ids
}

const expectRefused = (res: { status: number; body: any }, status: number, code: string, limit: string) => {
  expect([res.status, res.body.error.code]).toEqual([status, code])
  expect(res.body.error.message).toContain(limit)
}

describe('money stays exact: prices, quantities and lines are bounded', () => {
  test(`a price above ${MAX_PRICE} is 400 naming the limit, on product create, variant create and variant price patch`, async () => {
    const s = await shopSetup()
    const over = { price: MAX_PRICE + 0.01 }
    const created = await s.catalog.send('POST', '/v1/products', { name: 'Iate', sku: 'YACHT', price: MAX_PRICE + 0.01, stock: 1 })
    expectRefused(created, 400, 'VALIDATION_ERROR', String(MAX_PRICE))
    expect(created.body.error.details).toEqual([{ path: 'price', message: expect.stringContaining(`at most ${MAX_PRICE}`) }])
    expectRefused(await s.catalog.send('POST', `/v1/products/${s.product.id}/variants`, { sku: 'BIG', stock: 1, ...over }), 400, 'VALIDATION_ERROR', String(MAX_PRICE))
    expectRefused(await s.catalog.send('PATCH', `/v1/variants/${s.variantId}`, over), 400, 'VALIDATION_ERROR', String(MAX_PRICE))
    expect((await s.catalog.variant(s.variantId)).price).toBe(19.99)
    // The limit itself is a price; a list filter above every price still answers.
    expect((await expectOk(s.catalog.send('PATCH', `/v1/variants/${s.variantId}`, { price: MAX_PRICE }))).price).toBe(MAX_PRICE)
    expect((await s.catalog.list(`maxPrice=${MAX_PRICE * 10}`)).total).toBe(1)
  })

  test(`adds of one variant past ${MAX_LINE_QUANTITY} units are 409 CONFLICT naming the limit, and leave the cart as it was`, async () => {
    const s = await shopSetup({ stock: 5000 })
    await expectOk(s.shop.add(s.variantId, 600))
    const full = await expectOk(s.shop.add(s.variantId, 400))
    expect(full.items[0].quantity).toBe(MAX_LINE_QUANTITY)
    const more = await s.shop.add(s.variantId, 1)
    expectRefused(more, 409, 'CONFLICT', `at most ${MAX_LINE_QUANTITY}`)
    expect(more.body.error.message).toContain('It holds 1000 and is full: check out first.')
    expect(more.body.error.details).toEqual([{ variantId: s.variantId, sku: s.product.sku, quantity: 1001, limit: MAX_LINE_QUANTITY }])
    expect(await s.shop.cart()).toEqual(full)
    // One body above the limit is a 400, by POST or PATCH.
    expectRefused(await s.shop.add(s.variantId, 1001), 400, 'VALIDATION_ERROR', `at most ${MAX_LINE_QUANTITY}`)
    expectRefused(await s.shop.send('PATCH', `/v1/cart/items/${full.items[0].id}`, { quantity: 1001 }), 400, 'VALIDATION_ERROR', `at most ${MAX_LINE_QUANTITY}`)
    expect(await s.shop.cart()).toEqual(full)
  })

  test(`a cart with ${MAX_CART_LINES} lines refuses one more line with 409 CONFLICT naming the limit; its lines still grow`, async () => {
    const s = await shopSetup()
    const ids = await products(s, MAX_CART_LINES, (i) => 100 + i)
    for (const id of ids) await expectOk(s.shop.add(id, 1))
    const before = await s.shop.cart()
    expect(before.items).toHaveLength(MAX_CART_LINES)
    const extra = await s.shop.add(s.variantId, 1)
    expectRefused(extra, 409, 'CONFLICT', `at most ${MAX_CART_LINES}`)
    expect(extra.body.error.details).toEqual([{ lines: MAX_CART_LINES, limit: MAX_CART_LINES }])
    expect(await s.shop.cart()).toEqual(before)
    expect((await expectOk(s.shop.add(ids[0]!, 2))).items[0].quantity).toBe(3)
  })

  test('the biggest cart totals exactly in the cart, the order, its payment and its refund; one more unit or a dearer price is refused', async () => {
    const s = await shopSetup()
    // The dearest prices, with every cent digit different: 1,000,000.00 down to 999,999.01.
    const price = (i: number) => MAX_PRICE * 100 - i
    const ids = await products(s, MAX_CART_LINES, price)
    for (const id of ids) await expectOk(s.shop.add(id, MAX_LINE_QUANTITY))
    const expected = ids.reduce((sum, _, i) => sum + BigInt(price(i)) * BigInt(MAX_LINE_QUANTITY), 0n)
    expect(expected).toBe(9_999_995_050_000n)
    const cart = await s.shop.cart()
    expect(centsOf(cart.subtotal)).toBe(expected)
    expect(cart.items.map((i: any) => centsOf(i.lineTotal))).toEqual(ids.map((_, i) => BigInt(price(i)) * 1000n))
    expectRefused(await s.shop.add(ids[0]!, 1), 409, 'CONFLICT', `at most ${MAX_LINE_QUANTITY}`)
    expectRefused(await s.catalog.send('PATCH', `/v1/variants/${ids[1]}`, { price: MAX_PRICE + 0.01 }), 400, 'VALIDATION_ERROR', String(MAX_PRICE))

    const order = await expectOk(s.shop.checkout(), 201)
    expect([centsOf(order.subtotal), centsOf(order.total)]).toEqual([expected, expected])
    const paid = await expectOk(s.shop.pay(order.id))
    expect(centsOf(paid.payments[0].amount)).toBe(expected)
    const refunded = await expectOk(s.panel('POST', `/${order.id}/refund`, { restock: false }))
    expect(centsOf(refunded.refunds[0].amount)).toBe(expected)
  })

  test('rows written before the limits are still read; the cart refuses to grow them and checkout refuses them, naming the limit', async () => {
    const s = await shopSetup({ stock: 1000 })
    const dear = (await s.catalog.createProduct({ state: 'PUBLISHED', price: 10, stock: 20 })).variants[0].id
    const cart = await expectOk(s.shop.add(s.variantId, 5))
    // As an older version could leave them: a price of 999,999,999.99 and a line of 1,090,000 units.
    s.deps.db.update(variants).set({ priceCents: 99_999_999_999 }).where(eq(variants.id, dear)).run()
    s.deps.db.update(variants).set({ stock: 2_000_000 }).where(eq(variants.id, s.variantId)).run()
    s.deps.db.update(cartItems).set({ quantity: 1_090_000 }).where(eq(cartItems.id, cart.items[0].id)).run()

    expect((await s.catalog.variant(dear)).price).toBe(999_999_999.99)
    expect((await s.shop.cart()).items[0]).toMatchObject({ quantity: 1_090_000, lineTotal: 21_789_100 })
    const dearAdd = await s.shop.add(dear, 1)
    expectRefused(dearAdd, 409, 'CONFLICT', String(MAX_PRICE))
    expect(dearAdd.body.error.message).toContain(`PATCH /v1/variants/${dear}`)
    expectRefused(await s.shop.add(s.variantId, 1), 409, 'CONFLICT', `at most ${MAX_LINE_QUANTITY}`)
    const checkout = await s.shop.checkout()
    expectRefused(checkout, 409, 'CONFLICT', `at most ${MAX_LINE_QUANTITY}`)
    expect(checkout.body.error.message).toContain(`PATCH /v1/cart/items/${cart.items[0].id}`)
    await expectOk(s.shop.send('PATCH', `/v1/cart/items/${cart.items[0].id}`, { quantity: MAX_LINE_QUANTITY }))
    expect((await expectOk(s.shop.checkout(), 201)).total).toBe(19_990)
  })

  test('stock received or adjusted past 1000000000 units of a variant is 409 CONFLICT naming the limit; the stock stays', async () => {
    const s = await shopSetup()
    s.deps.db.update(variants).set({ stock: 999_999_990 }).where(eq(variants.id, s.variantId)).run()
    const receive = await s.catalog.send('POST', `/v1/variants/${s.variantId}/stock/receive`, { quantity: 11 })
    expectRefused(receive, 409, 'CONFLICT', 'at most 1000000000 units')
    expect(receive.body.error.message).toContain('Add at most 10')
    expectRefused(await s.catalog.send('POST', `/v1/variants/${s.variantId}/stock/adjust`, { quantity: 11, reason: 'count' }), 409, 'CONFLICT', 'at most 1000000000 units')
    expect((await s.catalog.variant(s.variantId)).stock).toBe(999_999_990)
    const filled = await expectOk(s.catalog.send('POST', `/v1/variants/${s.variantId}/stock/receive`, { quantity: 10 }))
    expect(filled.stock).toBe(1_000_000_000)
  })
})

describe('totals against BigInt', () => {
  // Each line: a price within the limit and up to three adds of it; an add past the line limit is refused.
  const line = fc.record({ cents: fc.integer({ min: 0, max: MAX_PRICE * 100 }), adds: fc.array(fc.integer({ min: 1, max: MAX_LINE_QUANTITY }), { minLength: 1, maxLength: 3 }) })

  test('cart and order totals equal the BigInt sum of their lines, for random prices and adds within the limits', async () => {
    const s = await shopSetup()
    await fc.assert(
      fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 5 }), async (lines) => {
        const ids = await products(s, lines.length, (i) => lines[i]!.cents, 3 * MAX_LINE_QUANTITY)
        const held = lines.map(() => 0)
        for (const [i, l] of lines.entries()) {
          for (const q of l.adds) {
            const res = await s.shop.add(ids[i]!, q)
            const fits = held[i]! + q <= MAX_LINE_QUANTITY
            expect(res.status).toBe(fits ? 200 : 409)
            if (fits) held[i]! += q
          }
        }
        const lineCents = lines.map((l, i) => BigInt(l.cents) * BigInt(held[i]!))
        const expected = lineCents.reduce((a, b) => a + b, 0n)
        const cart = await s.shop.cart()
        expect(cart.items.map((i: any) => centsOf(i.lineTotal))).toEqual(lineCents)
        expect(centsOf(cart.subtotal)).toBe(expected)
        const order = await expectOk(s.shop.checkout(), 201)
        expect(order.items.map((i: any) => centsOf(i.lineTotal))).toEqual(lineCents)
        expect([centsOf(order.subtotal), centsOf(order.total)]).toEqual([expected, expected])
      }),
      { numRuns: 25 },
    )
  })
})
