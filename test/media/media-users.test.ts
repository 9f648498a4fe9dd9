import { describe, expect, test } from 'bun:test'
import { asc, eq } from 'drizzle-orm'
import { reviewMedia } from '../../src/features/reviews/tables'
import { reviewSetup } from '../helpers/reviews'
import { apiKey, expectOk, upload } from '../helpers/world'

describe('DELETE /v1/media/:id?force=true on a file that is a review photo', () => {
  test("the review keeps its other photos in their order, at positions 0..n-1", async () => {
    const s = await reviewSetup()
    const [second, third] = [await upload(s.call, apiKey(s.key)), await upload(s.call, apiKey(s.key), 'sample.webp')]
    const b = await s.paidBuyer()
    const review = await expectOk(b.review(s.product.id, { rating: 5, title: 'Fotos', comment: 'Três fotos.', mediaIds: [s.w.A.media.id, second.id, third.id] }), 201)
    expect((await s.store('DELETE', `/v1/media/${s.w.A.media.id}?force=true`)).status).toBe(204)
    const shown = (await s.publicList(s.product.id)).data[0]
    expect([shown.id, shown.media.map((m: { id: string }) => m.id)]).toEqual([review.id, [second.id, third.id]])
    const stored = s.deps.db.select().from(reviewMedia).where(eq(reviewMedia.reviewId, review.id)).orderBy(asc(reviewMedia.position)).all()
    expect(stored.map((p) => [p.mediaId, p.position])).toEqual([
      [second.id, 0],
      [third.id, 1],
    ])
  })
})
