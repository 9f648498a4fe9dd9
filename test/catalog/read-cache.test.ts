import { describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { moveStock } from '../../src/features/catalog/stock'
import { productRatings, products, stockMovements } from '../../src/features/catalog/tables'
import { productImages } from '../../src/features/product-images/tables'
import { stores } from '../../src/kernel/auth/tables'
import { writeTransaction } from '../../src/kernel/db/database'
import { createTestApp } from '../helpers/app'
import { catalogSetup, storeCatalog, storeCtx } from '../helpers/catalog'
import { statementsOf } from '../helpers/statement-log'
import { createKey, expectOk, twoStores } from '../helpers/world'

/**
 * Product reads are cached per store; triggers raise the store's catalog version on any change a read
 * shows. These changes are made the way other features will make them (directly in the database),
 * and each must show in the very next read.
 */
describe('cached product reads', () => {
  test('a list or detail read after a change by another feature shows the change at once', async () => {
    const t = await catalogSetup()
    const p = await t.A.createProduct({ stock: 10 })
    const read = async () => [await t.A.list(), await t.A.product(p.id)]
    await read() // fill the cache
    writeTransaction(t.deps.db, (tx) => moveStock(tx, t.deps, storeCtx(t.w.A.group.storeId), { variantId: p.variants[0].id, kind: 'RESERVE', quantity: 3, reason: 'order' }))
    let [list, detail] = await read()
    expect(list.data[0].variants[0]).toMatchObject({ reserved: 3, available: 7 })
    expect(detail.stock).toBe(7)

    t.deps.db.update(productRatings).set({ count: 1, sum: 4, average: 4, r4: 1 }).where(eq(productRatings.productId, p.id)).run()
    ;[list, detail] = await read()
    expect(list.data[0].rating).toEqual({ average: 4, count: 1, distribution: { 5: 0, 4: 1, 3: 0, 2: 0, 1: 0 } })
    expect(detail.rating.count).toBe(1)

    t.deps.db.insert(productImages).values({ id: 'img_1', storeId: t.w.A.group.storeId, productId: p.id, mediaId: null, url: 'https://img.example/1.jpg', isPrimary: true, position: 0, createdAt: 0 }).run()
    ;[list, detail] = await read()
    expect(list.data[0].image).toBe('https://img.example/1.jpg')
    expect(detail.images).toEqual([{ id: 'img_1', productId: p.id, mediaId: null, url: 'https://img.example/1.jpg', isPrimary: true, position: 0 }])
  })

  test("a list's total is counted once for all its pages and orders, per key kind, and again after a change", async () => {
    const t = await catalogSetup()
    for (let i = 0; i < 5; i++) await t.A.createProduct({ name: `Caneca ${i}`, price: 10 + i, state: i === 4 ? 'DRAFT' : 'PUBLISHED' })
    const shopFront = storeCatalog(t.call, (await createKey(t.call, t.w.A.student, 'shop', 'publishable')).apiKey)
    // The SQL count(*) of the matches, as a list of these filters runs it.
    const counts = async (list: () => Promise<{ total: number; data: unknown[] }>) => {
      const { result, statements } = await statementsOf(list)
      return { total: result.total, shown: result.data.length, counted: statements.filter((sql) => /count\(\*\)/.test(sql)).length }
    }
    expect(await counts(() => t.A.list('minPrice=11&pageSize=2'))).toEqual({ total: 4, shown: 2, counted: 1 })
    // Its other pages and orders: the total is kept.
    expect(await counts(() => t.A.list('minPrice=11&pageSize=2&page=2'))).toEqual({ total: 4, shown: 2, counted: 0 })
    expect(await counts(() => t.A.list('minPrice=11&sort=name&pageSize=3'))).toEqual({ total: 4, shown: 3, counted: 0 })
    // Other filters, or the shop front's view of the same ones (PUBLISHED only), count their own.
    expect(await counts(() => t.A.list('minPrice=12&pageSize=2'))).toEqual({ total: 3, shown: 2, counted: 1 })
    expect(await counts(() => shopFront.list('minPrice=11&pageSize=2&page=2'))).toEqual({ total: 3, shown: 1, counted: 1 })
    // A product that matches: every kept total of the store is counted again.
    await t.A.createProduct({ name: 'Caneca 5', price: 20, state: 'PUBLISHED' })
    expect(await counts(() => t.A.list('minPrice=11&pageSize=2&page=3'))).toEqual({ total: 5, shown: 1, counted: 1 })
    expect(await counts(() => shopFront.list('minPrice=11&pageSize=2&page=2'))).toEqual({ total: 4, shown: 2, counted: 1 })
  })

  test('a kept search page survives a stock change, which still shows; a rename or a delete finds it again', async () => {
    const t = await catalogSetup()
    const p = await t.A.createProduct({ name: 'Mochila Verde', stock: 10 })
    await t.A.createProduct({ name: 'Caneca Azul' })
    expect((await t.A.list('search=mochila')).total).toBe(1)
    writeTransaction(t.deps.db, (tx) => moveStock(tx, t.deps, storeCtx(t.w.A.group.storeId), { variantId: p.variants[0].id, kind: 'RESERVE', quantity: 4, reason: 'order' }))
    const afterOrder = await t.A.list('search=mochila')
    expect(afterOrder.data.map((x: { id: string; stock: number }) => [x.id, x.stock])).toEqual([[p.id, 6]])

    t.deps.db.update(products).set({ name: 'Caneca Verde' }).where(eq(products.id, p.id)).run()
    expect((await t.A.list('search=mochila')).total).toBe(0)
    expect((await t.A.list('search=caneca')).total).toBe(2)
    await expectOk(t.A.send('DELETE', `/v1/products/${p.id}`), 204)
    expect((await t.A.list('search=caneca')).total).toBe(1)
  })

  test('deleting a collection or a brand shows in cached product reads', async () => {
    const t = await catalogSetup()
    const col = await t.A.createTerm('collections', 'Natal')
    const brand = await t.A.createTerm('brands', 'Acme')
    const p = await t.A.createProduct({ collectionIds: [col.id], brandId: brand.id })
    expect((await t.A.product(p.id)).collectionIds).toEqual([col.id])
    await expectOk(t.A.send('DELETE', `/v1/collections/${col.id}`), 204)
    await expectOk(t.A.send('DELETE', `/v1/brands/${brand.id}`), 204)
    const after = await t.A.product(p.id)
    expect(after).toMatchObject({ collectionIds: [], brandId: null })
  })

  test('a cached read answers with the headers of its own request: request id, CORS, rate limit', async () => {
    const t = createTestApp({ settings: { rateLimitRps: '50' } })
    const w = await twoStores(t.call, t.deps)
    const A = storeCatalog(t.call, w.A.key.apiKey)
    await A.createProduct({})
    for (const id of ['first-read', 'from-the-cache']) {
      const res = await t.call('GET', '/v1/products/', { headers: { ...A.headers, 'x-request-id': id } })
      expect(res.status).toBe(200)
      expect(res.headers.get('x-request-id')).toBe(id)
      expect(res.headers.get('access-control-allow-origin')).toBe('*')
      expect(res.headers.get('ratelimit-limit')).toBe('100')
      expect(res.headers.get('content-type')).toBe('application/json')
    }
  })

  test("one store's cached reads are never served to another store", async () => {
    const t = await catalogSetup()
    await t.A.createProduct({ name: 'only in A' })
    expect((await t.A.list()).total).toBe(1)
    expect(await t.B.list()).toEqual({ data: [], page: 1, pageSize: 20, total: 0 })
  })

  test('a store with a catalog can be deleted whole: the triggers keep out of the way', async () => {
    const t = await catalogSetup()
    const p = await t.A.createProduct({ collectionIds: [(await t.A.createTerm('collections', 'c')).id] })
    await expectOk(t.A.send('POST', `/v1/variants/${p.variants[0].id}/stock/receive`, { quantity: 2 }))
    t.deps.db.delete(stores).where(eq(stores.id, t.w.A.group.storeId)).run()
    expect(t.deps.db.select().from(products).all()).toEqual([])
    expect(t.deps.db.select().from(stockMovements).all()).toEqual([])
    expect(t.deps.sqlite.query('select count(*) as n from product_search').get()).toEqual({ n: 0 })
  })
})
