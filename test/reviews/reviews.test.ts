import { describe, expect, test } from 'bun:test'
import { apiKey, bearer, expectOk } from '../helpers/world'
import { eventsOf, registerBuyer } from '../helpers/orders'
import { expectSameNotFound } from '../helpers/catalog'
import { reviewSetup } from '../helpers/reviews'

const body = (over: Record<string, unknown> = {}) => ({ rating: 4, title: 'Boa camiseta', comment: 'Veste bem.', ...over })

describe('POST /v1/products/:id/reviews', () => {
  test('a buyer with a paid order reviews the product: 201 with the review body, review.created in the outbox', async () => {
    const s = await reviewSetup()
    const b = await s.paidBuyer(undefined, 'Ana')
    const review = await expectOk(b.review(s.product.id, body({ mediaIds: [s.w.A.media.id] })), 201)
    expect(review).toEqual({
      id: expect.stringMatching(/^rev_/),
      productId: s.product.id,
      customer: { id: b.customer.id, name: 'Ana' },
      rating: 4,
      title: 'Boa camiseta',
      comment: 'Veste bem.',
      // The spec's field and the URLs to show: the same photos, in the same order.
      mediaIds: [s.w.A.media.id],
      media: [{ id: s.w.A.media.id, url: s.w.A.media.url }],
      hidden: false,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    })
    expect(eventsOf(s.deps, s.w.A.group.storeId, 'review.created')).toEqual([{ reviewId: review.id, productId: s.product.id, rating: 4 }])
  })

  test('without a paid order it is 403 REVIEW_NOT_ALLOWED; a pending, cancelled or refunded order does not count', async () => {
    const s = await reviewSetup()
    const never = await registerBuyer(s.call, s.key, 'never@example.com')
    const res = await never.send('POST', `/v1/products/${s.product.id}/reviews`, body())
    expect([res.status, res.body.error.code]).toEqual([403, 'REVIEW_NOT_ALLOWED'])
    expect(res.body.error.message).toContain('can-review')

    const pending = await registerBuyer(s.call, s.key, 'pending@example.com')
    await pending.buy(s.variantId)
    expect((await pending.send('POST', `/v1/products/${s.product.id}/reviews`, body())).body.error.code).toBe('REVIEW_NOT_ALLOWED')

    const refunded = await s.paidBuyer()
    await expectOk(s.panel('POST', `/${refunded.order.id}/refund`, {}))
    expect(await expectOk(refunded.send('GET', `/v1/products/${s.product.id}/reviews/can-review`))).toEqual({ canReview: false, reason: 'NO_PAID_ORDER' })
    expect((await refunded.review(s.product.id, body())).body.error.code).toBe('REVIEW_NOT_ALLOWED')
  })

  test('shipped and delivered orders still count', async () => {
    const s = await reviewSetup()
    const b = await s.paidBuyer()
    await expectOk(s.panel('POST', `/${b.order.id}/transition`, { to: 'SHIPPED' }))
    await expectOk(s.panel('POST', `/${b.order.id}/transition`, { to: 'DELIVERED' }))
    await expectOk(b.review(s.product.id, body()), 201)
  })

  test('a second review of the same product is 409 ALREADY_REVIEWED', async () => {
    const s = await reviewSetup()
    const b = await s.paidBuyer()
    const first = await expectOk(b.review(s.product.id, body()), 201)
    const again = await b.review(s.product.id, body({ rating: 1 }))
    expect([again.status, again.body.error.code]).toEqual([409, 'ALREADY_REVIEWED'])
    expect(again.body.error.message).toContain(`PATCH /v1/reviews/${first.id}`)
  })

  test('two concurrent POSTs of the same customer give one 201 and one 409', async () => {
    const s = await reviewSetup()
    const b = await s.paidBuyer()
    const answers = await Promise.all([b.review(s.product.id, body({ rating: 5 })), b.review(s.product.id, body({ rating: 1 })), b.review(s.product.id, body({ rating: 2 }))])
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409])
    const list = await s.publicList(s.product.id)
    expect(list.total).toBe(1)
    expect(list.summary.count).toBe(1)
  })

  test('can-review tells which reason applies', async () => {
    const s = await reviewSetup()
    const never = await registerBuyer(s.call, s.key, 'never@example.com')
    expect(await expectOk(never.send('GET', `/v1/products/${s.product.id}/reviews/can-review`))).toEqual({ canReview: false, reason: 'NO_PAID_ORDER' })
    const b = await s.paidBuyer()
    expect(await expectOk(b.send('GET', `/v1/products/${s.product.id}/reviews/can-review`))).toEqual({ canReview: true, reason: null })
    await expectOk(b.review(s.product.id, body()), 201)
    expect(await expectOk(b.send('GET', `/v1/products/${s.product.id}/reviews/can-review`))).toEqual({ canReview: false, reason: 'ALREADY_REVIEWED' })
  })

  test('fields are validated: rating 1..5 whole, title up to 120, comment up to 5000, mediaIds images of the library', async () => {
    const s = await reviewSetup()
    const b = await s.paidBuyer()
    for (const bad of [body({ rating: 0 }), body({ rating: 6 }), body({ rating: 4.5 }), body({ title: 'x'.repeat(121) }), body({ comment: 'x'.repeat(5001) }), body({ extra: 1 }), { title: 'no rating' }]) {
      const res = await b.review(s.product.id, bad)
      expect([res.status, res.body.error.code]).toEqual([400, 'VALIDATION_ERROR'])
    }
    const foreign = await b.review(s.product.id, body({ mediaIds: [s.w.B.media.id] }))
    // A buyer cannot list the library (that takes the secret key): the message says where the ids come from.
    expect([foreign.status, foreign.body.error.code, foreign.body.error.message]).toEqual([
      404,
      'NOT_FOUND',
      `No media file with id '${s.w.B.media.id}' in this store. Check the id; review photos are pictures of the store's library, uploaded by the store's server (POST /v1/uploads, secret key), which passes their ids to the shop.`,
    ])
    // A title is one line; a comment keeps its line breaks and tabs, and neither takes a terminal's escape.
    const escaped = await b.review(s.product.id, body({ title: 'Boa\u001b[2J' }))
    expect([escaped.status, escaped.body.error.details]).toEqual([
      400,
      [{ path: 'title', message: 'title holds a control character (U+001B at position 4); remove control characters, newlines and tabs included' }],
    ])
    const nul = await b.review(s.product.id, body({ comment: 'linha 1\nlinha\u0000 2' }))
    expect([nul.status, nul.body.error.details]).toEqual([400, [{ path: 'comment', message: 'comment holds a control character (U+0000 at position 14); remove control characters' }]])
    const edit = await b.send('PATCH', '/v1/reviews/rev_any', { title: 'a\nb' })
    expect([edit.status, edit.body.error.details[0].path]).toEqual([400, 'title'])
    await expectOk(b.review(s.product.id, body({ title: 't'.repeat(120), comment: `${'c'.repeat(4990)}\r\n\tlinha 2` })), 201)
  })

  test("another store's product is the same 404 as an unknown one", async () => {
    const s = await reviewSetup()
    const bOfB = { ...apiKey(s.w.B.key.apiKey), ...bearer(s.w.B.customer.token) }
    const cross = await s.call('POST', `/v1/products/${s.product.id}/reviews`, { headers: bOfB, body: body() })
    const unknown = await s.call('POST', '/v1/products/prod_nope/reviews', { headers: bOfB, body: body() })
    expectSameNotFound(cross, unknown, s.product.id, 'prod_nope')
  })
})

describe('PATCH and DELETE /v1/reviews/:id', () => {
  test('the author edits their review; the summary follows', async () => {
    const s = await reviewSetup()
    const b = await s.paidBuyer()
    const review = await expectOk(b.review(s.product.id, body({ rating: 2, mediaIds: [s.w.A.media.id] })), 201)
    const edited = await expectOk(b.send('PATCH', `/v1/reviews/${review.id}`, { rating: 5, title: 'Mudei de ideia', mediaIds: [] }))
    expect(edited).toMatchObject({ id: review.id, rating: 5, title: 'Mudei de ideia', comment: 'Veste bem.', media: [] })
    expect((await s.publicList(s.product.id)).summary).toEqual({ average: 5, count: 1, distribution: { 5: 1, 4: 0, 3: 0, 2: 0, 1: 0 } })
  })

  test("another customer's review is 403 FORBIDDEN for PATCH and DELETE, and stays as it was", async () => {
    const s = await reviewSetup()
    const author = await s.paidBuyer()
    const other = await s.paidBuyer()
    const review = await expectOk(author.review(s.product.id, body()), 201)
    const patch = await other.send('PATCH', `/v1/reviews/${review.id}`, { rating: 1 })
    expect([patch.status, patch.body.error.code]).toEqual([403, 'FORBIDDEN'])
    const del = await other.send('DELETE', `/v1/reviews/${review.id}`)
    expect([del.status, del.body.error.code]).toEqual([403, 'FORBIDDEN'])
    expect((await s.publicList(s.product.id)).data).toEqual([review])
  })

  test('the author deletes their review (204) and may then review again', async () => {
    const s = await reviewSetup()
    const b = await s.paidBuyer()
    const review = await expectOk(b.review(s.product.id, body({ rating: 1 })), 201)
    expect((await b.send('DELETE', `/v1/reviews/${review.id}`)).status).toBe(204)
    const list = await s.publicList(s.product.id)
    expect([list.total, list.summary]).toEqual([0, { average: 0, count: 0, distribution: { 5: 0, 4: 0, 3: 0, 2: 0, 1: 0 } }])
    expect((await b.send('DELETE', `/v1/reviews/${review.id}`)).status).toBe(404)
    await expectOk(b.review(s.product.id, body()), 201)
  })

  test("deleting a review the store hid does not undo it: the author's next review of the product starts hidden, until the store shows it", async () => {
    const s = await reviewSetup()
    const b = await s.paidBuyer()
    const other = await s.paidBuyer()
    const first = await expectOk(b.review(s.product.id, body({ rating: 1 })), 201)
    await expectOk(s.store('PATCH', `/v1/store/reviews/${first.id}`, { hidden: true }))
    expect((await b.send('DELETE', `/v1/reviews/${first.id}`)).status).toBe(204)
    expect(await expectOk(b.send('GET', `/v1/products/${s.product.id}/reviews/can-review`))).toEqual({ canReview: true, reason: null })
    const again = await expectOk(b.review(s.product.id, body({ rating: 1, title: 'De novo' })), 201)
    expect([again.hidden, again.title]).toEqual([true, 'De novo'])
    expect(eventsOf(s.deps, s.w.A.group.storeId, 'review.created').map((e) => e.reviewId)).toEqual([first.id, again.id])
    // Another customer's review of the product is not held.
    const theirs = await expectOk(other.review(s.product.id, body({ rating: 5 })), 201)
    expect(theirs.hidden).toBe(false)
    const shown = await s.publicList(s.product.id)
    expect([shown.data.map((r: { id: string }) => r.id), shown.summary.count, shown.summary.average]).toEqual([[theirs.id], 1, 5])
    // Editing keeps it hidden; the store showing it lets the hold go: after that, a new review is shown.
    expect((await expectOk(b.send('PATCH', `/v1/reviews/${again.id}`, { rating: 2 }))).hidden).toBe(true)
    await expectOk(s.store('PATCH', `/v1/store/reviews/${again.id}`, { hidden: false }))
    expect((await s.publicList(s.product.id)).summary.count).toBe(2)
    expect((await b.send('DELETE', `/v1/reviews/${again.id}`)).status).toBe(204)
    expect((await expectOk(b.review(s.product.id, body({ rating: 3 })), 201)).hidden).toBe(false)
  })

  test("another store's review is the same 404 as an unknown one", async () => {
    const s = await reviewSetup()
    const review = await expectOk((await s.paidBuyer()).review(s.product.id, body()), 201)
    const bOfB = { ...apiKey(s.w.B.key.apiKey), ...bearer(s.w.B.customer.token) }
    const cross = await s.call('PATCH', `/v1/reviews/${review.id}`, { headers: bOfB, body: { rating: 1 } })
    const unknown = await s.call('PATCH', '/v1/reviews/rev_nope', { headers: bOfB, body: { rating: 1 } })
    expectSameNotFound(cross, unknown, review.id, 'rev_nope')
    const moderated = await s.call('PATCH', `/v1/store/reviews/${review.id}`, { headers: apiKey(s.w.B.key.apiKey), body: { hidden: true } })
    expect(moderated.status).toBe(404)
  })
})

describe('moderation and lists', () => {
  test('hidden leaves the public list and the summary; /store/reviews sees all with filters; unhide brings it back', async () => {
    const s = await reviewSetup()
    const [a, b, c] = [await s.paidBuyer(), await s.paidBuyer(), await s.paidBuyer()]
    const ra = await expectOk(a.review(s.product.id, body({ rating: 5 })), 201)
    await expectOk(b.review(s.product.id, body({ rating: 4 })), 201)
    await expectOk(c.review(s.product.id, body({ rating: 1 })), 201)
    expect((await s.publicList(s.product.id)).summary).toEqual({ average: 3.33, count: 3, distribution: { 5: 1, 4: 1, 3: 0, 2: 0, 1: 1 } })

    const hidden = await expectOk(s.store('PATCH', `/v1/store/reviews/${ra.id}`, { hidden: true }))
    expect(hidden).toMatchObject({ id: ra.id, hidden: true })
    const list = await s.publicList(s.product.id)
    expect(list.total).toBe(2)
    expect(list.data.map((r: any) => r.id)).not.toContain(ra.id)
    expect(list.summary).toEqual({ average: 2.5, count: 2, distribution: { 5: 0, 4: 1, 3: 0, 2: 0, 1: 1 } })
    const product = await expectOk(s.store('GET', `/v1/products/${s.product.id}`))
    expect(product.rating).toEqual(list.summary)

    const moderation = await expectOk(s.store('GET', '/v1/store/reviews'))
    expect(moderation.total).toBe(3)
    // Each review names its product, as it is called now, so the moderation screen needs no lookup per review.
    expect(moderation.data.map((r: any) => [r.productId, r.productName])).toEqual(Array(3).fill([s.product.id, s.product.name]))
    await expectOk(s.store('PUT', `/v1/products/${s.product.id}`, { name: 'Caneca renomeada' }))
    expect((await expectOk(s.store('GET', '/v1/store/reviews?pageSize=1'))).data[0].productName).toBe('Caneca renomeada')
    expect((await expectOk(s.store('GET', '/v1/store/reviews?hidden=true'))).data.map((r: any) => r.id)).toEqual([ra.id])
    expect((await expectOk(s.store('GET', '/v1/store/reviews?hidden=false'))).total).toBe(2)
    expect((await expectOk(s.store('GET', '/v1/store/reviews?rating=1'))).data.map((r: any) => r.rating)).toEqual([1])
    expect((await expectOk(s.store('GET', `/v1/store/reviews?productId=${s.product.id}&rating=5`))).total).toBe(1)
    expect((await expectOk(s.store('GET', '/v1/store/reviews?productId=prod_other'))).total).toBe(0)
    expect((await s.store('GET', '/v1/store/reviews?rating=9')).status).toBe(400)
    const stars = await s.store('GET', '/v1/store/reviews?rating=five')
    expect([stars.status, stars.body.error.details]).toEqual([400, [{ path: 'rating', message: 'rating runs from 1 to 5, e.g. rating=5' }]])
    // The student token works in place of the key.
    expect((await expectOk(s.call('GET', '/v1/store/reviews', { headers: bearer(s.w.A.student) }))).total).toBe(3)

    // The author still sees their hidden review.
    expect((await expectOk(a.send('GET', '/v1/me/reviews'))).data).toEqual([hidden])

    await expectOk(s.store('PATCH', `/v1/store/reviews/${ra.id}`, { hidden: false }))
    expect((await s.publicList(s.product.id)).summary.count).toBe(3)
  })

  test('a product list after a review shows the new rating (the read cache follows)', async () => {
    const s = await reviewSetup()
    const before = await expectOk(s.store('GET', '/v1/products'))
    expect(before.data.find((p: any) => p.id === s.product.id).rating.count).toBe(0)
    await expectOk((await s.paidBuyer()).review(s.product.id, body({ rating: 5 })), 201)
    const after = await expectOk(s.store('GET', '/v1/products'))
    expect(after.data.find((p: any) => p.id === s.product.id).rating).toEqual({ average: 5, count: 1, distribution: { 5: 1, 4: 0, 3: 0, 2: 0, 1: 0 } })
  })

  test('/me/reviews lists only the customer\u2019s own reviews, newest first', async () => {
    const s = await reviewSetup()
    const second = await s.catalog.createProduct({ state: 'PUBLISHED', price: 5, stock: 10 })
    const b = await s.paidBuyer([s.variantId, second.variants[0].id])
    const other = await s.paidBuyer()
    const r1 = await expectOk(b.review(s.product.id, body()), 201)
    const r2 = await expectOk(b.review(second.id, body()), 201)
    await expectOk(other.review(s.product.id, body()), 201)
    const mine = await expectOk(b.send('GET', '/v1/me/reviews'))
    expect(mine.total).toBe(2)
    expect(mine.data.map((r: any) => r.id).sort()).toEqual([r1.id, r2.id].sort())
  })

  test('a library file used as a review photo is 409 MEDIA_IN_USE; force unlinks it from the review', async () => {
    const s = await reviewSetup()
    const b = await s.paidBuyer()
    const review = await expectOk(b.review(s.product.id, body({ mediaIds: [s.w.A.media.id] })), 201)
    const refused = await s.store('DELETE', `/v1/media/${s.w.A.media.id}`)
    expect([refused.status, refused.body.error.code]).toEqual([409, 'MEDIA_IN_USE'])
    expect(refused.body.error.details).toEqual([{ usedBy: 'reviewPhoto', reviewId: review.id, productId: s.product.id }])
    expect((await s.store('DELETE', `/v1/media/${s.w.A.media.id}?force=true`)).status).toBe(204)
    expect((await s.publicList(s.product.id)).data[0].media).toEqual([])
  })
})
