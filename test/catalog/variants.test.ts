import { describe, expect, test } from 'bun:test'
import { catalogSetup, expectSameNotFound } from '../helpers/catalog'
import { expectOk } from '../helpers/world'
import { MAX_VARIANTS_PER_PRODUCT } from '../../src/features/catalog/variants'

describe('POST /v1/products/:id/variants', () => {
  test('adds a variant with options and its own sku, price and stock; the product shows both', async () => {
    const { A, clock } = await catalogSetup()
    const p = await A.createProduct({ name: 'Camiseta', sku: 'TSH-M', price: 49.9, stock: 3 })
    clock.advance(5000)
    const res = await A.send('POST', `/v1/products/${p.id}/variants`, { sku: 'TSH-L', price: 54.9, stock: 4, options: { size: 'L' }, minStock: 1 })
    expect(res.status).toBe(201)
    expect(res.body).toEqual({
      id: expect.stringMatching(/^var_/),
      productId: p.id,
      sku: 'TSH-L',
      price: 54.9,
      stock: 4,
      reserved: 0,
      available: 4,
      minStock: 1,
      options: { size: 'L' },
      createdAt: '2026-01-01T00:00:05.000Z',
      updatedAt: '2026-01-01T00:00:05.000Z',
    })
    const after = await A.product(p.id)
    expect(after.variants.map((v: any) => v.sku)).toEqual(['TSH-M', 'TSH-L'])
    expect(after).toMatchObject({ sku: 'TSH-M', price: 49.9, stock: 7, updatedAt: '2026-01-01T00:00:05.000Z' })
  })

  test(`a product has at most ${MAX_VARIANTS_PER_PRODUCT} variants: one more is 409 LIMIT_REACHED naming the limit, and nothing is added`, async () => {
    const { A } = await catalogSetup()
    const variants = Array.from({ length: MAX_VARIANTS_PER_PRODUCT }, (_, i) => ({ sku: `MEIA-${i}`, price: 9.9, stock: 1, options: { n: String(i) } }))
    const p = await expectOk(A.send('POST', '/v1/products', { name: 'Meia', variants }), 201)
    const more = await A.send('POST', `/v1/products/${p.id}/variants`, { sku: 'MEIA-X', price: 9.9, stock: 1, options: { n: 'x' } })
    expect([more.status, more.body.error.code, more.body.error.details]).toEqual([409, 'LIMIT_REACHED', [{ limit: MAX_VARIANTS_PER_PRODUCT, current: MAX_VARIANTS_PER_PRODUCT }]])
    expect(more.body.error.message).toContain('Sell the others as another product (POST /v1/products).')
    expect((await A.product(p.id)).variants).toHaveLength(MAX_VARIANTS_PER_PRODUCT)
    // The sku was not taken: another product may use it.
    await A.createProduct({ name: 'Meia X', sku: 'MEIA-X', price: 9.9, stock: 1 })
  })

  test('two variants of a product with the same options are 409; a used sku is 409', async () => {
    const { A } = await catalogSetup()
    const p = await A.createProduct({ sku: 'BASE' })
    await expectOk(A.send('POST', `/v1/products/${p.id}/variants`, { sku: 'V-1', price: 1, stock: 0, options: { size: 'M', color: 'blue' } }), 201)
    const twin = await A.send('POST', `/v1/products/${p.id}/variants`, { sku: 'V-2', price: 1, stock: 0, options: { color: 'blue', size: 'M' } })
    expect(twin.status).toBe(409)
    expect(twin.body.error.message).toContain('Variant V-1 of this product already has the options')
    const sku = await A.send('POST', `/v1/products/${p.id}/variants`, { sku: 'base', price: 1, stock: 0, options: { size: 'S' } })
    expect(sku.status).toBe(409)
    expect((await A.product(p.id)).variants).toHaveLength(2)
  })

  test("a variant for another store's product is a 404 like an unknown id; a variant id there says so", async () => {
    const { A, B } = await catalogSetup()
    const p = await A.createProduct()
    const body = { sku: 'X-1', price: 1, stock: 0, options: { size: 'S' } }
    const unknown = 'prod_doesnotexist0000000'
    expectSameNotFound(await B.send('POST', `/v1/products/${p.id}/variants`, body), await B.send('POST', `/v1/products/${unknown}/variants`, body), p.id, unknown)
    const mixUp = await A.send('POST', `/v1/products/${p.variants[0].id}/variants`, body)
    expect(mixUp.body.error.message).toContain('is a variant id, not a product id')
    expect((await A.product(p.id)).variants).toHaveLength(1)
  })
})

describe('GET and PATCH /v1/variants/:id', () => {
  test('GET shows the variant; PATCH changes price, sku, minStock and options and leaves stock alone', async () => {
    const { A, clock } = await catalogSetup()
    const p = await A.createProduct({ price: 10, stock: 8 })
    const v = p.variants[0]
    expect(await A.variant(v.id)).toEqual(v)
    clock.advance(1000)
    const patched = await expectOk(A.send('PATCH', `/v1/variants/${v.id}`, { price: 12.5, sku: 'RENAMED', minStock: 0, options: { color: 'red' } }))
    expect(patched).toEqual({ ...v, price: 12.5, sku: 'RENAMED', minStock: 0, options: { color: 'red' }, updatedAt: '2026-01-01T00:00:01.000Z' })
    const product = await A.product(p.id)
    // The product's body changed with it (its price, its variant): so does its updatedAt.
    expect(product).toMatchObject({ price: 12.5, sku: 'RENAMED', stock: 8, updatedAt: '2026-01-01T00:00:01.000Z' })
    clock.advance(1000)
    expect(await expectOk(A.send('PATCH', `/v1/variants/${v.id}`, {}))).toEqual(patched)
    expect((await A.product(p.id)).updatedAt).toBe('2026-01-01T00:00:01.000Z')
  })

  test('a variant update with stock is a 400 that names the stock endpoints; reserved and available are read-only', async () => {
    const { A } = await catalogSetup()
    const v = (await A.createProduct({ stock: 8 })).variants[0]
    const stock = await A.send('PATCH', `/v1/variants/${v.id}`, { stock: 100 })
    expect(stock.status).toBe(400)
    expect(stock.body.error.message).toContain('stock: changes only through POST /v1/variants/:id/stock/receive or POST /v1/variants/:id/stock/adjust')
    const readOnly = await A.send('PATCH', `/v1/variants/${v.id}`, { reserved: 0, available: 3 })
    expect(readOnly.body.error.details).toEqual([
      { path: 'reserved', message: 'unknown or read-only field; remove it' },
      { path: 'available', message: 'unknown or read-only field; remove it' },
    ])
    const price = await A.send('PATCH', `/v1/variants/${v.id}`, { price: 1.999 })
    expect(price.body.error.details).toEqual([{ path: 'price', message: 'must have at most 2 decimals, e.g. 19.99 (round a computed amount to cents: Math.round(x * 100) / 100)' }])
    expect((await A.variant(v.id)).stock).toBe(8)
  })

  test('a sku taken by another variant of the store is 409', async () => {
    const { A } = await catalogSetup()
    await A.createProduct({ sku: 'TAKEN' })
    const v = (await A.createProduct()).variants[0]
    const res = await A.send('PATCH', `/v1/variants/${v.id}`, { sku: 'taken' })
    expect(res.status).toBe(409)
    expect(res.body.error.code).toBe('CONFLICT')
  })

  test("another store's variant is a 404 like an unknown id on GET and PATCH; a product id there says so", async () => {
    const { A, B } = await catalogSetup()
    const p = await A.createProduct({ price: 10 })
    const v = p.variants[0]
    const unknown = 'var_doesnotexist00000000'
    expectSameNotFound(await B.send('GET', `/v1/variants/${v.id}`), await B.send('GET', `/v1/variants/${unknown}`), v.id, unknown)
    expectSameNotFound(
      await B.send('PATCH', `/v1/variants/${v.id}`, { price: 1 }),
      await B.send('PATCH', `/v1/variants/${unknown}`, { price: 1 }),
      v.id,
      unknown,
    )
    const mixUp = await A.send('PATCH', `/v1/variants/${p.id}`, { price: 1 })
    expect(mixUp.status).toBe(404)
    expect(mixUp.body.error.message).toContain(`'${p.id}' is a product id, not a variant id`)
    expect((await A.variant(v.id)).price).toBe(10)
  })
})
