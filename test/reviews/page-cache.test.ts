import { describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { productRatings } from '../../src/features/catalog/tables'
import { reviewPageCache } from '../../src/features/reviews/page-cache'
import { customers } from '../../src/kernel/auth/tables'
import { writeTransaction } from '../../src/kernel/db/database'
import { bodyText } from '../helpers/app'
import { reviewSetup } from '../helpers/reviews'
import { expectOk } from '../helpers/world'

const review = (over: Record<string, unknown> = {}) => ({ rating: 4, title: 'Bom', comment: 'Gostei.', ...over })

/**
 * A product's review page is cached per store while the store's `reviews` version stays; triggers
 * raise it on every change the page shows, whichever feature makes it. Changes below are made through
 * the API where it has a way, and straight in the database where it has none.
 */
describe('cached review pages', () => {
  test('a page is made once and then served from the cache, through orders and stock changes', async () => {
    const s = await reviewSetup()
    await expectOk((await s.paidBuyer()).review(s.product.id, review()), 201)
    const cache = reviewPageCache(s.deps)
    const made = cache.made
    const first = await s.publicList(s.product.id)
    expect(await s.publicList(s.product.id)).toEqual(first)
    expect(cache.made - made).toBe(1)
    await s.paidBuyer()
    await expectOk(s.catalog.send('POST', `/v1/variants/${s.variantId}/stock/receive`, { quantity: 5 }))
    expect(await s.publicList(s.product.id)).toEqual(first)
    expect(cache.made - made).toBe(1)
    // Another query is another page.
    expect((await s.publicList(s.product.id, '?pageSize=1')).pageSize).toBe(1)
    expect(cache.made - made).toBe(2)
  })

  test('every change the page shows shows at once: an edit, hiding, photos and their files, a name, the summary, the product', async () => {
    const s = await reviewSetup()
    const b = await s.paidBuyer(undefined, 'Ana')
    const mine = await expectOk(b.review(s.product.id, review()), 201)
    const page = () => s.publicList(s.product.id)
    expect((await page()).data.map((r: any) => [r.title, r.customer.name, r.media.length])).toEqual([['Bom', 'Ana', 0]])

    await expectOk(b.send('PATCH', `/v1/reviews/${mine.id}`, { title: 'Muito bom', mediaIds: [s.w.A.media.id] }))
    expect((await page()).data.map((r: any) => [r.title, r.media.map((m: any) => m.id)])).toEqual([['Muito bom', [s.w.A.media.id]]])

    expect((await s.store('DELETE', `/v1/media/${s.w.A.media.id}?force=true`)).status).toBe(204)
    expect((await page()).data[0].media).toEqual([])

    await expectOk(s.store('PATCH', `/v1/store/reviews/${mine.id}`, { hidden: true }))
    expect(await page()).toMatchObject({ data: [], total: 0, summary: { count: 0 } })
    await expectOk(s.store('PATCH', `/v1/store/reviews/${mine.id}`, { hidden: false }))
    expect(await page()).toMatchObject({ total: 1, summary: { count: 1, average: 4 } })

    s.deps.db.update(customers).set({ name: 'Ana Souza' }).where(eq(customers.id, b.customer.id)).run()
    expect((await page()).data[0].customer.name).toBe('Ana Souza')

    s.deps.db.update(productRatings).set({ average: 3.5 }).where(eq(productRatings.productId, s.product.id)).run()
    expect((await page()).summary.average).toBe(3.5)

    await expectOk(b.send('DELETE', `/v1/reviews/${mine.id}`), 204)
    expect(await page()).toMatchObject({ data: [], total: 0, summary: { count: 0 } })

    await expectOk(s.catalog.send('DELETE', `/v1/products/${s.product.id}`), 204)
    expect((await s.store('GET', `/v1/products/${s.product.id}/reviews`)).status).toBe(404)
  })

  test('a page read inside a transaction is neither kept nor served from the cache', async () => {
    const s = await reviewSetup()
    const cache = reviewPageCache(s.deps)
    const count = () => (s.deps.sqlite.query('select count(*) as n from reviews').get() as { n: number }).n
    const read = () => JSON.parse(bodyText(cache.read(s.w.A.group.storeId, s.deps.publicUrl.for(), 'page', () => ({ reviews: count() }))))
    expect(read()).toEqual({ reviews: 0 })
    const b = await s.paidBuyer()
    expect(() =>
      writeTransaction(s.deps.db, (tx) => {
        tx.$client.query("insert into reviews (id, store_id, product_id, customer_id, rating, title, comment, created_at, updated_at) values ('rev_x', ?, ?, ?, 5, 't', '', 0, 0)").run(s.w.A.group.storeId, s.product.id, b.customer.id)
        expect(read()).toEqual({ reviews: 1 })
        throw new Error('rolled back')
      }),
    ).toThrow('rolled back')
    // A committed change takes the version the rolled-back one had.
    s.deps.db.update(customers).set({ name: 'Ana' }).where(eq(customers.id, b.customer.id)).run()
    expect(read()).toEqual({ reviews: 0 })
  })
})
