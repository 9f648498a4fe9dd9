import { describe, expect, test } from 'bun:test'
import { API_KEY_FORMAT } from '../../src/kernel/auth/credentials'
import { calmly, createTestApp } from '../helpers/app'
import { seedCatalog, storeCatalog } from '../helpers/catalog'
import { buyer, registerBuyer } from '../helpers/orders'
import { admin, apiKey, bearer, createKey, expectOk, twoStores } from '../helpers/world'

/** Store A and B, each with its secret key (w.X.key) and a publishable one; a PUBLISHED product in A. */
async function setup(settings: Record<string, string> = {}) {
  const t = createTestApp({ settings: { rateLimitRps: '0', ...settings } })
  const w = await twoStores(t.call, t.deps)
  const pk = (await createKey(t.call, w.A.student, 'shop front', 'publishable')).apiKey
  const seeded = await seedCatalog(t.call, w.A.key.apiKey)
  const product = await storeCatalog(t.call, w.A.key.apiKey).createProduct({ name: 'Caneca', state: 'PUBLISHED', price: 25, stock: 5, categoryId: seeded.category.id })
  return { ...t, w, pk, seeded, product, variantId: product.variants[0].id as string }
}

describe('publishable keys: made, listed and revoked like secret keys', () => {
  test('kind "publishable" makes a pk_ key of the same shape, shown once and listed with its kind', async () => {
    const t = createTestApp()
    const w = await twoStores(t.call, t.deps)
    const created = await expectOk(
      t.call('POST', '/v1/store/api-keys', { headers: bearer(w.A.student), body: { name: 'browser', kind: 'publishable' } }),
      201,
    )
    expect(created.kind).toBe('publishable')
    expect(created.prefix).toMatch(/^pk_[0-9a-z]{8}$/)
    expect(created.apiKey).toMatch(API_KEY_FORMAT)
    expect(created.apiKey.startsWith(`${created.prefix}_`)).toBe(true)
    // The same length as a secret key: only the letter before `k_` differs.
    expect(created.apiKey.length).toBe(w.A.key.apiKey.length)
    const list = await t.call('GET', '/v1/store/api-keys', { headers: bearer(w.A.student) })
    const listed = list.body.data.find((k: any) => k.id === created.id)
    expect(listed).toEqual({ id: created.id, name: 'browser', kind: 'publishable', prefix: created.prefix, createdAt: created.createdAt, createdBy: w.A.rms.active, lastUsedAt: null })
    expect(list.body.data.find((k: any) => k.id === w.A.key.id).kind).toBe('secret')
    expect(list.text).not.toContain(created.apiKey)
  })

  test('an unknown kind is a 400 that names the two kinds', async () => {
    const t = createTestApp()
    const w = await twoStores(t.call, t.deps)
    const res = await t.call('POST', '/v1/store/api-keys', { headers: bearer(w.A.student), body: { name: 'x', kind: 'public' } })
    expect(res.status).toBe(400)
    expect(res.body.error.code).toBe('VALIDATION_ERROR')
    expect(res.body.error.details[0].path).toBe('kind')
    expect(res.body.error.details[0].message).toContain('secret')
    expect(res.body.error.details[0].message).toContain('publishable')
  })

  test('a revoked publishable key is refused on the very next request', async () => {
    const t = createTestApp()
    const w = await twoStores(t.call, t.deps)
    const key = await createKey(t.call, w.A.student, 'browser', 'publishable')
    await expectOk(t.call('GET', '/v1/products', { headers: apiKey(key.apiKey) }))
    await expectOk(t.call('DELETE', `/v1/store/api-keys/${key.id}`, { headers: bearer(w.A.student) }), 204)
    const res = await t.call('GET', '/v1/products', { headers: apiKey(key.apiKey) })
    expect(res.status).toBe(401)
    expect(res.body.error.message).toContain('revoked')
  })
})

describe('a shop front that holds only a publishable key', () => {
  test('browses, registers a customer, fills a cart, checks out, pays and reads its order and reviews', async () => {
    const t = await setup()
    const shop = apiKey(t.pk)
    const list = await expectOk(t.call('GET', '/v1/products?state=PUBLISHED', { headers: shop }))
    expect(list.data.map((p: any) => p.name)).toEqual(['Caneca'])
    const detail = await expectOk(t.call('GET', `/v1/products/${t.product.id}`, { headers: shop }))
    expect(detail.variants[0].id).toBe(t.variantId)
    expect((await expectOk(t.call('GET', `/v1/variants/${t.variantId}`, { headers: shop }))).id).toBe(t.variantId)
    for (const kind of ['categories', 'brands', 'collections'] as const) {
      const terms = await expectOk(t.call('GET', `/v1/${kind}`, { headers: shop }))
      expect(terms.data.length).toBe(1)
      await expectOk(t.call('GET', `/v1/${kind}/${terms.data[0].id}`, { headers: shop }))
    }
    const reviews = await expectOk(t.call('GET', `/v1/products/${t.product.id}/reviews`, { headers: shop }))
    expect(reviews.summary).toMatchObject({ count: 0 })

    const b = await registerBuyer(t.call, t.pk, 'ana@example.com', 'Ana')
    const login = await expectOk(t.call('POST', '/v1/customers/login', { headers: shop, body: { email: 'ana@example.com', password: 'password-123' } }))
    expect((await expectOk(t.call('GET', '/v1/customers/me', { headers: { ...shop, ...bearer(login.token) } }))).email).toBe('ana@example.com')
    await expectOk(b.add(t.variantId, 2))
    expect((await b.cart()).subtotal).toBe(50)
    const order = await expectOk(b.checkout(), 201)
    const paid = await expectOk(b.pay(order.id, { method: 'CREDIT_CARD', installments: 2 }))
    expect(paid.status).toBe('PAID')
    expect(paid.payments.map((p: any) => [p.status, p.amount, p.installments])).toEqual([['APPROVED', 50, 2]])
    const mine = await expectOk(b.send('GET', '/v1/orders'))
    expect(mine.data.map((o: any) => [o.id, o.status])).toEqual([[order.id, 'PAID']])
    expect((await expectOk(b.send('GET', `/v1/products/${t.product.id}/reviews/can-review`))).canReview).toBe(true)
    const review = await expectOk(b.send('POST', `/v1/products/${t.product.id}/reviews`, { rating: 5, title: 'Ótima', comment: 'Gostei' }), 201)
    expect((await expectOk(b.send('GET', '/v1/me/reviews'))).data.map((r: any) => r.id)).toEqual([review.id])
    // The store's own view, through the secret key, shows the same paid order.
    const seen = await expectOk(t.call('GET', `/v1/store/orders/${order.id}`, { headers: apiKey(t.w.A.key.apiKey) }))
    expect(seen.status).toBe('PAID')
  })

  test('every management route answers 403 SECRET_KEY_REQUIRED, says where the secret key belongs, and changes nothing', async () => {
    const t = await setup()
    const sk = apiKey(t.w.A.key.apiKey)
    const b = buyer(t.call, t.w.A.key.apiKey, t.w.A.customer.token)
    await expectOk(b.add(t.variantId, 1))
    const order = await expectOk(b.checkout(), 201)
    await expectOk(b.pay(order.id))
    const hook = await expectOk(t.call('POST', '/v1/webhooks', { headers: sk, body: { url: 'https://10.9.8.7/hook', events: ['*'] } }), 201)
    const attempts = [
      ['POST', '/v1/products', { name: 'Pirata', sku: 'PIRATE', price: 1, stock: 1 }],
      ['PUT', `/v1/products/${t.product.id}`, { name: 'Renamed' }],
      ['POST', `/v1/variants/${t.variantId}/stock/receive`, { quantity: 100 }],
      ['POST', `/v1/store/orders/${order.id}/refund`, {}],
      ['GET', '/v1/store/orders', undefined],
      ['POST', `/v1/webhooks/${hook.id}/sign`, { payload: '{"forged":true}' }],
      ['GET', '/v1/webhooks', undefined],
      ['DELETE', `/v1/products/${t.product.id}`, undefined],
    ] as const
    for (const [method, path, body] of attempts) {
      // Alone and with a customer token: the publishable key never opens a management route.
      for (const headers of [apiKey(t.pk), { ...apiKey(t.pk), ...bearer(t.w.A.customer.token) }]) {
        const res = await t.call(method, path, { headers, body })
        expect(`${method} ${path} ${res.status} ${res.body.error?.code}`).toBe(`${method} ${path} 403 SECRET_KEY_REQUIRED`)
        expect(res.body.error.message).toContain('secret key (sk_...)')
        expect(res.body.error.message).toContain("app's server")
      }
    }
    const product = await expectOk(t.call('GET', `/v1/products/${t.product.id}`, { headers: sk }))
    expect(product.name).toBe('Caneca')
    expect(product.variants[0].available).toBe(4)
    expect((await expectOk(t.call('GET', `/v1/store/orders/${order.id}`, { headers: sk }))).status).toBe('PAID')
    expect((await expectOk(t.call('GET', '/v1/products', { headers: sk }))).data.map((p: any) => p.sku)).not.toContain('PIRATE')
  })

  test('the panel routes and teacher routes refuse it as they refuse the secret key', async () => {
    const t = await setup()
    for (const [path, headers] of [
      ['/v1/store/api-keys', apiKey(t.pk)],
      ['/v1/store/members', apiKey(t.pk)],
      ['/v1/admin/groups', apiKey(t.pk)],
    ] as const) {
      const withPk = await t.call('GET', path, { headers })
      const withSk = await t.call('GET', path, { headers: apiKey(t.w.A.key.apiKey) })
      expect([withPk.status, withPk.body.error.code]).toEqual([401, 'WRONG_CREDENTIAL'])
      expect(withPk.body.error.message).toBe(withSk.body.error.message)
    }
  })

  test('sent as a Bearer token it is told to go in X-API-Key', async () => {
    const t = await setup()
    const res = await t.call('GET', '/v1/products', { headers: bearer(t.pk) })
    expect(res.status).toBe(401)
    expect(res.body.error.code).toBe('WRONG_CREDENTIAL')
    expect(res.body.error.message).toContain('X-API-Key')
  })

  test("a publishable key's calls count for the group's shop front, never for the student X-Student-RM names; the secret key's still do", async () => {
    const t = await setup()
    const { A } = t.w
    const report = async () => (await expectOk(t.call('GET', `/v1/admin/activity?groupId=${A.group.id}`, { headers: admin }))).groups[0]
    const before = await report()
    const rm = { 'x-student-rm': A.rms.spare }
    t.clock.advance(60_000)
    for (let i = 0; i < 3; i++) await expectOk(t.call('GET', '/v1/products', { headers: { ...apiKey(t.pk), ...rm } }))
    await t.call('GET', '/v1/store/orders', { headers: { ...apiKey(t.pk), ...rm } }) // refused: still the shop front's call
    await expectOk(t.call('GET', '/v1/cart', { headers: { ...apiKey(t.pk), ...bearer(A.customer.token), ...rm } })) // a buyer route
    const shopAt = new Date(t.clock.now()).toISOString()
    t.clock.advance(60_000)
    await expectOk(t.call('GET', '/v1/products', { headers: { ...apiKey(A.key.apiKey), ...rm } }))
    await expectOk(t.call('GET', '/v1/cart', { headers: { ...apiKey(A.key.apiKey), ...bearer(A.customer.token), ...rm } }))
    const after = await report()
    const spare = (r: any) => r.students.find((s: any) => s.rm === A.rms.spare)
    // Only the two secret-key calls are the student's; the five publishable ones are the shop front's.
    expect(spare(before)).toMatchObject({ calls: 0, errors: 0 })
    expect(spare(after)).toEqual({ rm: A.rms.spare, name: 'Spare a', member: true, calls: 2, errors: 0, lastCallAt: new Date(t.clock.now()).toISOString() })
    expect(before.shopFront).toEqual({ calls: 0, errors: 0, lastCallAt: null })
    expect(after.shopFront).toEqual({ calls: 5, errors: 1, lastCallAt: shopAt })
    // The group counts all seven; none of them is unattributed.
    expect([after.calls - before.calls, after.errors - before.errors, after.unattributed - before.unattributed]).toEqual([7, 1, 0])
    const csv = (await t.call('GET', `/v1/admin/activity?groupId=${A.group.id}&format=csv`, { headers: admin })).text.split('\r\n')
    expect(csv).toContain(`${A.group.id},Group A,,(shop front),5,1,${shopAt}`)
    const series = (await expectOk(t.call('GET', `/v1/admin/activity/series?groupId=${A.group.id}`, { headers: admin }))).groups[0]
    const total = (xs: number[]) => xs.reduce((a, b) => a + b, 0)
    expect([total(series.shopFront.calls), total(series.shopFront.errors), total(spare(series).calls)]).toEqual([5, 1, 2])
    const keys = (await expectOk(t.call('GET', '/v1/store/api-keys', { headers: bearer(A.student) }))).data
    const pkRow = keys.find((k: any) => k.kind === 'publishable')
    expect(pkRow.lastUsedAt).toBe(shopAt)
  })

  test("a refused call still counts toward the shop front's rate limit", async () => {
    const t = createTestApp({ settings: { rateLimitRps: '1', rateLimitBurst: '3' } })
    // The set-up runs at a calm pace (the clock moves between its calls), so it stays under the limit.
    const calm = calmly(t)
    const w = await twoStores(calm, t.deps)
    const pk = (await createKey(calm, w.A.student, 'shop front', 'publishable')).apiKey
    t.clock.advance(10_000)
    const answers: string[] = []
    for (let i = 0; i < 5; i++) {
      const res = await t.call('GET', '/v1/store/orders', { headers: apiKey(pk) })
      answers.push(`${res.status} ${res.body.error.code} ${res.headers.get('ratelimit-remaining')}`)
    }
    expect(answers).toEqual(['403 SECRET_KEY_REQUIRED 2', '403 SECRET_KEY_REQUIRED 1', '403 SECRET_KEY_REQUIRED 0', '429 RATE_LIMITED 0', '429 RATE_LIMITED 0'])
  })
})

describe('the OpenAPI document follows each route declaration', () => {
  test('shop-front operations list the publishable key, management ones only the secret key or a student token', async () => {
    const t = createTestApp()
    const doc = (await t.call('GET', '/openapi.json')).body
    expect(doc.components.securitySchemes.publishableKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-Key' })
    expect(doc.paths['/v1/products'].get.security).toEqual([{ publishableKey: [] }, { secretKey: [] }, { studentToken: [] }])
    expect(doc.paths['/v1/products'].post.security).toEqual([{ secretKey: [] }, { studentToken: [] }])
    expect(doc.paths['/v1/webhooks/{id}/sign'].post.security).toEqual([{ secretKey: [] }, { studentToken: [] }])
    expect(doc.paths['/v1/cart'].get.security).toEqual([
      { publishableKey: [], customerToken: [] },
      { secretKey: [], customerToken: [] },
    ])
    const kind = doc.paths['/v1/store/api-keys'].post.requestBody.content['application/json'].schema.properties.kind
    expect(kind.enum).toEqual(['secret', 'publishable'])
    expect(kind.default).toBe('secret')
  })
})
