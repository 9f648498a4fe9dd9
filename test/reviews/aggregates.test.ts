import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { ratingSummary } from '../../src/features/catalog/ratings'
import { expectOk } from '../helpers/world'
import { reviewSetup } from '../helpers/reviews'
import { limit } from '../helpers/limits'

const BUYERS = 4

describe('review summary kept as aggregates', () => {
  test('after random create/edit/delete/hide/unhide, the stored summary equals a recomputation from the visible reviews on the product list, the detail and the review list', async () => {
    const s = await reviewSetup()
    const second = await s.catalog.createProduct({ state: 'PUBLISHED', price: 7, stock: 100 })
    const productIds: string[] = [s.product.id, second.id]
    const buyers: Awaited<ReturnType<typeof s.paidBuyer>>[] = []
    for (let i = 0; i < BUYERS; i++) buyers.push(await s.paidBuyer([s.variantId, second.variants[0].id]))
    // Which review each (buyer, product) has now, as the service answered it.
    const reviewOf = new Map<string, string>()

    const op = fc.record({
      kind: fc.constantFrom('create', 'edit', 'delete', 'hide', 'unhide'),
      buyer: fc.nat(BUYERS - 1),
      product: fc.nat(productIds.length - 1),
      rating: fc.integer({ min: 1, max: 5 }),
      // edit, delete, hide and unhide act on one of the reviews that exist, so every step changes something.
      pick: fc.nat(20),
    })

    async function expectConsistent() {
      const all = await expectOk(s.store('GET', '/v1/store/reviews?pageSize=100'))
      const products = await expectOk(s.store('GET', '/v1/products?pageSize=100'))
      for (const productId of productIds) {
        const visible = all.data.filter((r: any) => r.productId === productId && !r.hidden)
        const want = ratingSummary(visible.map((r: any) => r.rating))
        const list = await s.publicList(productId, '?pageSize=100')
        expect(list.summary).toEqual(want)
        expect(list.total).toBe(visible.length)
        expect(ratingSummary(list.data.map((r: any) => r.rating))).toEqual(want)
        expect((await expectOk(s.store('GET', `/v1/products/${productId}`))).rating).toEqual(want)
        expect(products.data.find((p: any) => p.id === productId).rating).toEqual(want)
        // The store's list carries the same summary of what its filters select, hidden reviews listed but not counted.
        const storeList = await expectOk(s.store('GET', `/v1/store/reviews?productId=${productId}&pageSize=1`))
        expect(storeList.summary).toEqual(want)
        // Its total counts every review it lists, the hidden ones too.
        expect(storeList.total).toBe(all.data.filter((r: any) => r.productId === productId).length)
      }
      expect(all.total).toBe(all.data.length)
      expect(all.summary).toEqual(ratingSummary(all.data.filter((r: any) => !r.hidden).map((r: any) => r.rating)))
      const mine = await expectOk(buyers[0]!.send('GET', '/v1/me/reviews?pageSize=100'))
      expect(mine.summary).toEqual(ratingSummary(mine.data.filter((r: any) => !r.hidden).map((r: any) => r.rating)))
    }

    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 12 }), async (ops) => {
        // Each run starts without reviews (their authors delete them), so a failure shrinks to its own steps.
        for (const [key, id] of reviewOf) {
          expect((await buyers[Number(key.split(':')[0])]!.send('DELETE', `/v1/reviews/${id}`)).status).toBe(204)
        }
        reviewOf.clear()
        for (const o of ops) {
          if (o.kind === 'create') {
            const productId = productIds[o.product]!
            const key = `${o.buyer}:${productId}`
            const res = await buyers[o.buyer]!.review(productId, { rating: o.rating, title: `r${o.rating}`, comment: '' })
            if (reviewOf.has(key)) expect(res.status).toBe(409)
            else reviewOf.set(key, (await expectOk(res, 201)).id)
            continue
          }
          const existing = [...reviewOf]
          if (existing.length === 0) continue
          const [key, id] = existing[o.pick % existing.length]!
          const b = buyers[Number(key.split(':')[0])]!
          if (o.kind === 'edit') {
            await expectOk(b.send('PATCH', `/v1/reviews/${id}`, { rating: o.rating }))
          } else if (o.kind === 'delete') {
            expect((await b.send('DELETE', `/v1/reviews/${id}`)).status).toBe(204)
            reviewOf.delete(key)
          } else {
            await expectOk(s.store('PATCH', `/v1/store/reviews/${id}`, { hidden: o.kind === 'hide' }))
          }
        }
        await expectConsistent()
      }),
      { numRuns: 40 },
    )
  }, limit(60_000))
})
