import { describe, expect, test } from 'bun:test'
import { catalogSetup, expectSameNotFound, productBody } from '../helpers/catalog'
import { expectOk } from '../helpers/world'

const ZERO_RATING = { average: 0, count: 0, distribution: { 5: 0, 4: 0, 3: 0, 2: 0, 1: 0 } }

describe('POST /v1/products', () => {
  test('a SIMPLE product gets one variant with its sku, price and stock; it starts as DRAFT with a zero rating', async () => {
    const { A } = await catalogSetup()
    const res = await A.send('POST', '/v1/products', { name: 'Caneca', sku: 'CAN-01', price: 19.99, stock: 7, description: 'Cerâmica' })
    expect(res.status).toBe(201)
    const p = res.body
    expect(p).toEqual({
      id: expect.stringMatching(/^prod_[0-9a-z]{20}$/),
      type: 'SIMPLE',
      name: 'Caneca',
      sku: 'CAN-01',
      description: 'Cerâmica',
      price: 19.99,
      stock: 7,
      state: 'DRAFT',
      categoryId: null,
      brandId: null,
      collectionIds: [],
      variants: [
        {
          id: expect.stringMatching(/^var_[0-9a-z]{20}$/),
          productId: p.id,
          sku: 'CAN-01',
          price: 19.99,
          stock: 7,
          reserved: 0,
          available: 7,
          minStock: 5,
          options: {},
          createdAt: '2026-01-01T00:00:00.000Z',
          updatedAt: '2026-01-01T00:00:00.000Z',
        },
      ],
      image: null,
      images: [],
      rating: ZERO_RATING,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    })
    expect(await A.product(p.id)).toEqual(p)
  })

  test('state, minStock, category, brand and collections can be given at creation', async () => {
    const { A } = await catalogSetup()
    const category = await A.createTerm('categories', 'Cozinha')
    const brand = await A.createTerm('brands', 'Tramontina')
    const c1 = await A.createTerm('collections', 'Natal')
    const c2 = await A.createTerm('collections', 'Casa')
    const p = await A.createProduct({ state: 'PUBLISHED', minStock: 2, categoryId: category.id, brandId: brand.id, collectionIds: [c1.id, c2.id, c1.id] })
    expect(p).toMatchObject({ state: 'PUBLISHED', categoryId: category.id, brandId: brand.id })
    expect(p.collectionIds).toEqual([c1.id, c2.id].sort())
    expect(p.variants[0].minStock).toBe(2)
  })

  test('an empty categoryId or brandId is a 404 naming the field, not a 500 (found by the fuzz drill)', async () => {
    const { A } = await catalogSetup()
    for (const field of ['categoryId', 'brandId']) {
      const res = await A.send('POST', '/v1/products', productBody({ [field]: '' }))
      expect(res.status).toBe(404)
      expect(res.body.error.code).toBe('NOT_FOUND')
    }
    const product = await A.createProduct()
    const put = await A.send('PUT', `/v1/products/${product.id}`, { brandId: '' })
    expect(put.status).toBe(404)
    expect((await A.product(product.id)).brandId).toBeNull()
  })

  test('a price with 3 decimals, a negative price or stock, and an unknown field are each a 400 naming the field', async () => {
    const { A } = await catalogSetup()
    const cases: [Record<string, unknown>, string, string][] = [
      [{ price: 10.005 }, 'price', 'must have at most 2 decimals, e.g. 19.99 (round a computed amount to cents: Math.round(x * 100) / 100)'],
      // Never rounded into a price that was not sent, however far past the cents the digits go.
      [{ price: 19.999999999 }, 'price', 'must have at most 2 decimals, e.g. 19.99 (round a computed amount to cents: Math.round(x * 100) / 100)'],
      [{ price: 0.1 + 0.2 }, 'price', 'must have at most 2 decimals, e.g. 19.99 (round a computed amount to cents: Math.round(x * 100) / 100)'],
      [{ price: -1 }, 'price', 'must not be negative'],
      [{ stock: -3 }, 'stock', 'must not be negative'],
      [{ stock: 1.5 }, 'stock', 'must be a whole number'],
      [{ type: 'BUNDLE' }, 'type', 'expected "SIMPLE"'],
      [{ rating: 5 }, 'rating', 'unknown or read-only field; remove it'],
    ]
    for (const [over, path, message] of cases) {
      const res = await A.send('POST', '/v1/products', productBody(over))
      expect(res.status).toBe(400)
      expect(res.body.error.code).toBe('VALIDATION_ERROR')
      expect(res.body.error.details).toEqual([{ path, message }])
    }
    const missing = await A.send('POST', '/v1/products', { name: 'Sem sku', price: 1 })
    expect(missing.body.error.details).toEqual([
      { path: 'sku', message: 'sku is required (or send variants: [{sku, price, stock, options}] for several variants)' },
      { path: 'stock', message: 'stock is required (or send variants: [{sku, price, stock, options}] for several variants)' },
    ])
    expect((await A.list()).total).toBe(0)
  })

  test('a sku already used in the store, in any case, is 409 CONFLICT; another store may use it', async () => {
    const { A, B } = await catalogSetup()
    await A.createProduct({ sku: 'ABC-1' })
    const again = await A.send('POST', '/v1/products', productBody({ sku: 'abc-1' }))
    expect(again.status).toBe(409)
    expect(again.body.error.message).toContain("The sku 'abc-1' is already used")
    await B.createProduct({ sku: 'ABC-1' })
    expect((await A.list()).total).toBe(1)
  })

  test("a categoryId, brandId or collectionId of another store is a 404 that names the field", async () => {
    const { A, B } = await catalogSetup()
    const theirs = { categoryId: (await B.createTerm('categories', 'B')).id, brandId: (await B.createTerm('brands', 'B')).id }
    const collection = await B.createTerm('collections', 'B')
    for (const [field, body] of [
      ['categoryId', { categoryId: theirs.categoryId }],
      ['brandId', { brandId: theirs.brandId }],
      ['collectionIds', { collectionIds: [collection.id] }],
    ] as const) {
      const res = await A.send('POST', '/v1/products', productBody(body))
      expect(res.status).toBe(404)
      expect(res.body.error.message).toStartWith(`${field}: No `)
    }
    const wrongKind = await A.send('POST', '/v1/products', productBody({ categoryId: theirs.brandId }))
    expect(wrongKind.body.error.message).toContain('is a brand id, not a category id')
    expect((await A.list()).total).toBe(0)
  })
})

describe('GET /v1/products/:id', () => {
  test("another store's product is a 404 exactly like an unknown id", async () => {
    const { A, B } = await catalogSetup()
    const p = await A.createProduct()
    expectSameNotFound(await B.send('GET', `/v1/products/${p.id}`), await B.send('GET', '/v1/products/prod_doesnotexist0000000'), p.id, 'prod_doesnotexist0000000')
  })

  test('a variant id where a product id belongs is a 404 that says it is a variant id', async () => {
    const { A } = await catalogSetup()
    const p = await A.createProduct()
    const res = await A.send('GET', `/v1/products/${p.variants[0].id}`)
    expect(res.status).toBe(404)
    expect(res.body.error.message).toContain(`'${p.variants[0].id}' is a variant id, not a product id`)
  })
})

describe('PUT /v1/products/:id', () => {
  test('changes base data, and moves the state between DRAFT, PUBLISHED and ARCHIVED in any order', async () => {
    const { A, clock } = await catalogSetup()
    const p = await A.createProduct()
    const category = await A.createTerm('categories', 'Nova')
    clock.advance(60_000)
    const changed = await expectOk(A.send('PUT', `/v1/products/${p.id}`, { name: 'Camiseta Premium', description: 'Algodão', categoryId: category.id, state: 'PUBLISHED' }))
    expect(changed).toMatchObject({ id: p.id, name: 'Camiseta Premium', description: 'Algodão', categoryId: category.id, state: 'PUBLISHED', updatedAt: '2026-01-01T00:01:00.000Z', createdAt: p.createdAt })
    expect(changed.variants).toEqual(p.variants)
    for (const state of ['ARCHIVED', 'DRAFT', 'ARCHIVED', 'PUBLISHED']) {
      expect((await expectOk(A.send('PUT', `/v1/products/${p.id}`, { state }))).state).toBe(state)
    }
    const cleared = await expectOk(A.send('PUT', `/v1/products/${p.id}`, { categoryId: null }))
    expect(cleared.categoryId).toBeNull()
    expect(cleared.name).toBe('Camiseta Premium')
  })

  test('collectionIds replaces the list', async () => {
    const { A } = await catalogSetup()
    const [c1, c2] = [await A.createTerm('collections', 'one'), await A.createTerm('collections', 'two')]
    const p = await A.createProduct({ collectionIds: [c1.id] })
    expect((await expectOk(A.send('PUT', `/v1/products/${p.id}`, { collectionIds: [c2.id] }))).collectionIds).toEqual([c2.id])
    expect((await expectOk(A.send('PUT', `/v1/products/${p.id}`, { collectionIds: [] }))).collectionIds).toEqual([])
  })

  test('a product update with stock is a 400 that names the stock endpoints, and changes nothing', async () => {
    const { A } = await catalogSetup()
    const p = await A.createProduct({ stock: 10 })
    const res = await A.send('PUT', `/v1/products/${p.id}`, { name: 'Renamed', stock: 99 })
    expect(res.status).toBe(400)
    expect(res.body.error.details).toEqual([
      { path: 'stock', message: expect.stringContaining('POST /v1/variants/:id/stock/receive or POST /v1/variants/:id/stock/adjust') },
    ])
    expect(res.body.error.message).toContain('stock: changes only through POST /v1/variants/:id/stock/receive')
    expect(await A.product(p.id)).toEqual(p)
  })

  test('a product update with price is a 400 that names PATCH /v1/variants/:id; so is sku', async () => {
    const { A } = await catalogSetup()
    const p = await A.createProduct()
    for (const field of ['price', 'sku']) {
      const res = await A.send('PUT', `/v1/products/${p.id}`, { [field]: field === 'price' ? 10 : 'NEW' })
      expect(res.status).toBe(400)
      expect(res.body.error.message).toContain(`${field}: is set per variant: PATCH /v1/variants/:id`)
    }
    const unknownState = await A.send('PUT', `/v1/products/${p.id}`, { state: 'SOLD_OUT' })
    expect(unknownState.status).toBe(400)
    expect(unknownState.body.error.details[0].path).toBe('state')
  })

  test("another store's product is a 404 like an unknown id, and stays unchanged", async () => {
    const { A, B } = await catalogSetup()
    const p = await A.createProduct()
    const unknown = 'prod_doesnotexist0000000'
    expectSameNotFound(
      await B.send('PUT', `/v1/products/${p.id}`, { name: 'Stolen' }),
      await B.send('PUT', `/v1/products/${unknown}`, { name: 'Stolen' }),
      p.id,
      unknown,
    )
    expect((await A.product(p.id)).name).toBe(p.name)
  })
})

describe('DELETE /v1/products/:id', () => {
  test('is 204 with no body; the product and its variants leave every read, and its sku is free again', async () => {
    const { A } = await catalogSetup()
    const p = await A.createProduct({ name: 'Apagável', sku: 'DEL-1' })
    const keep = await A.createProduct({ name: 'Fica' })
    const res = await A.send('DELETE', `/v1/products/${p.id}`)
    expect(res.status).toBe(204)
    expect(res.text).toBe('')
    expect((await A.send('GET', `/v1/products/${p.id}`)).status).toBe(404)
    expect((await A.send('GET', `/v1/variants/${p.variants[0].id}`)).status).toBe(404)
    expect((await A.send('POST', `/v1/variants/${p.variants[0].id}/stock/receive`, { quantity: 1 })).status).toBe(404)
    const list = await A.list()
    expect(list.data.map((x: any) => x.id)).toEqual([keep.id])
    expect(list.total).toBe(1)
    expect((await A.list('search=apagavel')).total).toBe(0)
    expect((await A.send('DELETE', `/v1/products/${p.id}`)).status).toBe(404)
    await A.createProduct({ sku: 'DEL-1' })
  })

  test("another store's product is a 404 like an unknown id, and is not deleted", async () => {
    const { A, B } = await catalogSetup()
    const p = await A.createProduct()
    const unknown = 'prod_doesnotexist0000000'
    expectSameNotFound(await B.send('DELETE', `/v1/products/${p.id}`), await B.send('DELETE', `/v1/products/${unknown}`), p.id, unknown)
    expect((await A.product(p.id)).id).toBe(p.id)
  })
})
