import { describe, expect, test } from 'bun:test'
import { catalogReadCache } from '../../src/features/catalog/read-cache'
import { createTestApp, type CallResult } from '../helpers/app'
import { expectSameNotFound, storeCatalog } from '../helpers/catalog'
import { buyer, registerBuyer } from '../helpers/orders'
import { apiKey, bearer, createKey, expectOk, twoStores } from '../helpers/world'

/**
 * A publishable key sits in a shop page, where anyone can copy it: it sees PUBLISHED products only.
 * A DRAFT or ARCHIVED product is absent from its lists and reads to it as an unknown id; the secret
 * key and student tokens see every state.
 */
async function setup() {
  const t = createTestApp({ settings: { rateLimitRps: '0' } })
  const w = await twoStores(t.call, t.deps)
  const pk = (await createKey(t.call, w.A.student, 'shop front', 'publishable')).apiKey
  const store = storeCatalog(t.call, w.A.key.apiKey)
  const category = await store.createTerm('categories', 'Canecas')
  const make = (name: string, state: string) => store.createProduct({ name, state, categoryId: category.id, price: 30, stock: 10 })
  const blue = await make('Caneca Azul', 'PUBLISHED')
  const draft = await make('Caneca Rascunho', 'DRAFT')
  const green = await make('Caneca Verde', 'PUBLISHED')
  const archived = await make('Caneca Antiga', 'ARCHIVED')
  const get = (headers: Record<string, string>) => (path: string) => t.call('GET', path, { headers })
  return {
    ...t,
    w,
    pk,
    store,
    category,
    blue,
    draft,
    green,
    archived,
    shop: get(apiKey(pk)),
    secret: get(apiKey(w.A.key.apiKey)),
    student: get(bearer(w.A.student)),
    setState: (id: string, state: string) => expectOk(store.send('PUT', `/v1/products/${id}`, { state })),
  }
}

const names = (page: { data: { name: string }[] }) => page.data.map((p) => p.name)

/** Everything a caller reads of one product: its detail, its first variant and its review page. */
const productReads = (id: string, variantId: string) => [`/v1/products/${id}`, `/v1/variants/${variantId}`, `/v1/products/${id}/reviews`]

/** The answers of a caller who does not see the product must be those of ids that do not exist. */
async function expectUnknown(read: (path: string) => Promise<CallResult>, product: { id: string; variants: { id: string }[] }) {
  const [detail, variant, reviews] = await Promise.all(productReads(product.id, product.variants[0]!.id).map(read))
  const [noDetail, noVariant, noReviews] = await Promise.all(productReads('prod_doesnotexist', 'var_doesnotexist').map(read))
  for (const [hidden, unknown, id, unknownId] of [
    [detail!, noDetail!, product.id, 'prod_doesnotexist'],
    [variant!, noVariant!, product.variants[0]!.id, 'var_doesnotexist'],
    [reviews!, noReviews!, product.id, 'prod_doesnotexist'],
  ] as const) {
    expectSameNotFound(hidden, unknown, id, unknownId)
    // The same body: nothing more, nothing less than an unknown id gets.
    expect(Object.keys(hidden.body.error)).toEqual(Object.keys(unknown.body.error))
    expect(hidden.text).not.toContain('Caneca')
    // What a 404 says of states (with a publishable key, that it finds PUBLISHED products only) it says of every id.
    for (const word of ['DRAFT', 'ARCHIVED', 'PUBLISHED']) expect({ word, said: hidden.text.includes(word) }).toEqual({ word, said: unknown.text.includes(word) })
  }
}

describe('a publishable key sees PUBLISHED products only', () => {
  test('its lists leave DRAFT and ARCHIVED products out, and every total counts only the published ones', async () => {
    const t = await setup()
    for (const query of ['', 'state=PUBLISHED', 'search=caneca', `categoryId=${t.category.id}`, 'sort=name', 'search=caneca&sort=-price', 'minPrice=1']) {
      const page = await expectOk(t.shop(`/v1/products?${query}`))
      expect({ query, names: names(page).sort(), total: page.total }).toEqual({ query, names: ['Caneca Azul', 'Caneca Verde'], total: 2 })
    }
    // A page past the first still counts the published ones only.
    const second = await expectOk(t.shop('/v1/products?pageSize=1&page=2&sort=name'))
    expect([names(second), second.total]).toEqual([['Caneca Verde'], 2])
    // A search that only a draft matches finds nothing.
    const draftOnly = await expectOk(t.shop('/v1/products?search=rascunho'))
    expect([draftOnly.data, draftOnly.total]).toEqual([[], 0])
  })

  test('a DRAFT or ARCHIVED product, its variants and its review page are 404 exactly like unknown ids', async () => {
    const t = await setup()
    await expectUnknown(t.shop, t.draft)
    await expectUnknown(t.shop, t.archived)
    // The 404 says what a publishable key finds, which a student who made a draft needs to hear.
    const note = 'with a publishable key only PUBLISHED products are found (publish a draft with the secret key: PUT /v1/products/:id {"state": "PUBLISHED"}).'
    expect((await t.shop(`/v1/products/${t.draft.id}`)).body.error.message).toBe(`No product with id '${t.draft.id}' in this store. Check the id; GET /v1/products lists them; ${note}`)
    expect((await t.shop(`/v1/variants/${t.draft.variants[0].id}`)).body.error.message).toBe(
      `No variant with id '${t.draft.variants[0].id}' in this store. Check the id; a product's variants are listed in GET /v1/products/:id; ${note}`,
    )
    expect((await t.secret('/v1/products/prod_doesnotexist')).body.error.message).toBe("No product with id 'prod_doesnotexist' in this store. Check the id; GET /v1/products lists them.")
    // The published one reads as before.
    expect((await expectOk(t.shop(`/v1/products/${t.blue.id}`))).name).toBe('Caneca Azul')
    expect((await expectOk(t.shop(`/v1/variants/${t.blue.variants[0].id}`))).sku).toBe(t.blue.sku)
    expect((await expectOk(t.shop(`/v1/products/${t.blue.id}/reviews`))).total).toBe(0)
  })

  test('state=DRAFT or ARCHIVED on the list is 403 SECRET_KEY_REQUIRED saying drafts are read with the secret key from the server', async () => {
    const t = await setup()
    for (const state of ['DRAFT', 'ARCHIVED']) {
      const res = await t.shop(`/v1/products?state=${state}&search=caneca`)
      expect([res.status, res.body.error.code]).toEqual([403, 'SECRET_KEY_REQUIRED'])
      expect(res.body.error.message).toBe(
        `The shop front lists PUBLISHED products only: state=${state} is not for a publishable key (pk_...), which any visitor of the page can copy. ` +
          "Drafts and archived products are read with the secret key (sk_...) from your app's server; with this key leave `state` out or send state=PUBLISHED.",
      )
    }
  })

  test('the secret key and a student token still see every state, in lists, details, variants and review pages', async () => {
    const t = await setup()
    for (const read of [t.secret, t.student]) {
      const all = await expectOk(read('/v1/products?sort=name'))
      expect([names(all), all.total]).toEqual([['Caneca Antiga', 'Caneca Azul', 'Caneca Rascunho', 'Caneca Verde'], 4])
      expect(names(await expectOk(read('/v1/products?state=DRAFT')))).toEqual(['Caneca Rascunho'])
      expect(names(await expectOk(read('/v1/products?state=ARCHIVED')))).toEqual(['Caneca Antiga'])
      for (const p of [t.draft, t.archived]) {
        const [detail, variant, reviews] = await Promise.all(productReads(p.id, p.variants[0].id).map(read))
        expect([detail!.status, detail!.body.state, variant!.status, variant!.body.productId, reviews!.status, reviews!.body.total]).toEqual([200, p.state, 200, p.id, 200, 0])
      }
    }
  })
})

describe('kept answers follow the caller', () => {
  test('lists, details and review pages kept for the secret key are never served to a publishable key', async () => {
    const t = await setup()
    const cache = catalogReadCache(t.deps)
    const queries = ['/v1/products', '/v1/products?search=caneca', `/v1/products?categoryId=${t.category.id}`]
    // The secret key reads first: its answers, drafts included, are kept.
    for (const path of queries) expect((await expectOk(t.secret(path))).total).toBe(4)
    for (const p of [t.draft, t.archived]) for (const path of productReads(p.id, p.variants[0].id)) await expectOk(t.secret(path))
    const made = cache.made
    for (const path of queries) expect((await expectOk(t.secret(path))).total).toBe(4)
    expect(cache.made).toBe(made) // served from the cache
    // Then the publishable key, with the same paths.
    for (const path of queries) {
      const page = await expectOk(t.shop(path))
      expect({ path, names: names(page).sort(), total: page.total }).toEqual({ path, names: ['Caneca Azul', 'Caneca Verde'], total: 2 })
    }
    await expectUnknown(t.shop, t.draft)
    await expectUnknown(t.shop, t.archived)
    // The 404 says what a publishable key finds, which a student who made a draft needs to hear.
    const note = 'with a publishable key only PUBLISHED products are found (publish a draft with the secret key: PUT /v1/products/:id {"state": "PUBLISHED"}).'
    expect((await t.shop(`/v1/products/${t.draft.id}`)).body.error.message).toBe(`No product with id '${t.draft.id}' in this store. Check the id; GET /v1/products lists them; ${note}`)
    expect((await t.shop(`/v1/variants/${t.draft.variants[0].id}`)).body.error.message).toBe(
      `No variant with id '${t.draft.variants[0].id}' in this store. Check the id; a product's variants are listed in GET /v1/products/:id; ${note}`,
    )
    expect((await t.secret('/v1/products/prod_doesnotexist')).body.error.message).toBe("No product with id 'prod_doesnotexist' in this store. Check the id; GET /v1/products lists them.")
    // And the other way round: what the publishable key had kept does not hide drafts from the secret key.
    for (const path of queries) expect((await expectOk(t.secret(path))).total).toBe(4)
    expect((await expectOk(t.secret(`/v1/products/${t.draft.id}`))).state).toBe('DRAFT')
  })

  test('a product moved from PUBLISHED to DRAFT leaves what the publishable key reads at once, and comes back when published again', async () => {
    const t = await setup()
    const blueReads = productReads(t.blue.id, t.blue.variants[0].id)
    // Kept for the publishable key while the product is published.
    expect(names(await expectOk(t.shop('/v1/products?sort=name')))).toEqual(['Caneca Azul', 'Caneca Verde'])
    for (const path of blueReads) await expectOk(t.shop(path))
    await t.setState(t.blue.id, 'DRAFT')
    const after = await expectOk(t.shop('/v1/products?sort=name'))
    expect([names(after), after.total]).toEqual([['Caneca Verde'], 1])
    await expectUnknown(t.shop, t.blue)
    await t.setState(t.blue.id, 'ARCHIVED')
    await expectUnknown(t.shop, t.blue)
    await t.setState(t.blue.id, 'PUBLISHED')
    expect((await expectOk(t.shop('/v1/products?sort=name'))).total).toBe(2)
    for (const path of blueReads) await expectOk(t.shop(path))
  })
})

describe('a customer who came with the publishable key', () => {
  test('adding a variant of a DRAFT product is 404 as an unknown variant; with the secret key it stays 409 PRODUCT_UNAVAILABLE', async () => {
    const t = await setup()
    const b = await registerBuyer(t.call, t.pk, 'ana@example.com', 'Ana')
    const hidden = await b.add(t.draft.variants[0].id)
    const unknown = await b.add('var_doesnotexist')
    expectSameNotFound(hidden, unknown, t.draft.variants[0].id, 'var_doesnotexist')
    expect(hidden.text).not.toContain('Rascunho')
    expect((await b.cart()).items).toEqual([])
    // The same customer through the store's own server.
    const bySecret = buyer(t.call, t.w.A.key.apiKey, b.headers.authorization!.slice('Bearer '.length))
    const refused = await bySecret.add(t.draft.variants[0].id)
    expect([refused.status, refused.body.error.code, refused.body.error.details]).toEqual([
      409,
      'PRODUCT_UNAVAILABLE',
      [{ variantId: t.draft.variants[0].id, productId: t.draft.id, state: 'DRAFT' }],
    ])
  })

  test('can-review and posting a review of a DRAFT product are 404 as an unknown product', async () => {
    const t = await setup()
    const b = await registerBuyer(t.call, t.pk, 'bia@example.com', 'Bia')
    // Bought and paid while published, then taken back to DRAFT.
    const order = await b.buy(t.blue.variants[0].id)
    await expectOk(b.pay(order.id))
    expect((await expectOk(b.send('GET', `/v1/products/${t.blue.id}/reviews/can-review`))).canReview).toBe(true)
    await t.setState(t.blue.id, 'DRAFT')
    const review = { rating: 5, title: 'Boa', comment: 'Gostei' }
    for (const [method, path, body] of [
      ['GET', '/reviews/can-review', undefined],
      ['POST', '/reviews', review],
    ] as const) {
      const hidden = await b.send(method, `/v1/products/${t.blue.id}${path}`, body)
      const unknown = await b.send(method, `/v1/products/prod_doesnotexist${path}`, body)
      expectSameNotFound(hidden, unknown, t.blue.id, 'prod_doesnotexist')
    }
    // Their own order keeps its snapshot of what they bought.
    expect((await b.order(order.id)).items.map((i: { name: string }) => i.name)).toEqual(['Caneca Azul'])
  })

  test("a review of an ARCHIVED product leaves the customer's list and is 404 as an unknown review to PATCH and DELETE; the secret key still reaches it", async () => {
    const t = await setup()
    const b = await registerBuyer(t.call, t.pk, 'bia@example.com', 'Bia')
    const order = await b.buy(t.blue.variants[0].id)
    await expectOk(b.pay(order.id))
    const order2 = await b.buy(t.green.variants[0].id)
    await expectOk(b.pay(order2.id))
    const review = { rating: 5, title: 'Boa', comment: 'Gostei' }
    const onBlue = await expectOk(b.send('POST', `/v1/products/${t.blue.id}/reviews`, review), 201)
    const onGreen = await expectOk(b.send('POST', `/v1/products/${t.green.id}/reviews`, review), 201)
    await t.setState(t.blue.id, 'ARCHIVED')

    const mine = await expectOk(b.send('GET', '/v1/me/reviews'))
    expect([mine.data.map((r: { id: string }) => r.id), mine.total, mine.summary.count]).toEqual([[onGreen.id], 1, 1])
    for (const [method, body] of [['PATCH', { rating: 1 }], ['DELETE', undefined]] as const) {
      const hidden = await b.send(method, `/v1/reviews/${onBlue.id}`, body)
      const unknown = await b.send(method, '/v1/reviews/rev_doesnotexist', body)
      expectSameNotFound(hidden, unknown, onBlue.id, 'rev_doesnotexist')
    }
    // The same customer through the store's server (the secret key) sees and keeps it, unchanged.
    const fromServer = buyer(t.call, t.w.A.key.apiKey, b.headers.authorization!.slice('Bearer '.length))
    const all = await expectOk(fromServer.send('GET', '/v1/me/reviews'))
    expect(all.data.find((r: { id: string }) => r.id === onBlue.id)).toEqual(onBlue)
    // Published again, it is theirs to change again.
    await t.setState(t.blue.id, 'PUBLISHED')
    expect((await expectOk(b.send('PATCH', `/v1/reviews/${onBlue.id}`, { rating: 4 }))).rating).toBe(4)
  })
})

describe('the OpenAPI document says what a publishable key sees', () => {
  test('the product list, its state parameter, the detail, the variant and the review routes describe it', async () => {
    const t = createTestApp()
    const doc = (await t.call('GET', '/openapi.json')).body
    const list = doc.paths['/v1/products'].get
    expect(list.description).toContain('A publishable key (pk_...) lists PUBLISHED products only, and `total` counts only those')
    expect(list.description).toContain('`state=DRAFT` or `ARCHIVED` with it is 403 SECRET_KEY_REQUIRED')
    expect(list.parameters.find((p: { name: string }) => p.name === 'state').schema.description).toContain(
      'a publishable key (pk_...) lists PUBLISHED products only, and DRAFT or ARCHIVED with it is 403 SECRET_KEY_REQUIRED',
    )
    expect(list.responses['403']).toEqual({ $ref: '#/components/responses/SecretKeyRequired' })
    expect(doc.components.responses.SecretKeyRequired.description).toContain('`state=DRAFT` or `ARCHIVED` on the product list')
    for (const op of [
      doc.paths['/v1/products/{id}'].get,
      doc.paths['/v1/variants/{id}'].get,
      doc.paths['/v1/products/{id}/reviews'].get,
      doc.paths['/v1/products/{id}/reviews'].post,
      doc.paths['/v1/products/{id}/reviews/can-review'].get,
    ]) {
      expect(op.description).toMatch(/With a publishable key \(pk_\.\.\.\) .*DRAFT or ARCHIVED .*404 NOT_FOUND, (the same answer )?as an unknown id/)
    }
    expect(doc.paths['/v1/cart/items'].post.description).toContain('404 NOT_FOUND with a publishable key (pk_...)')
  })
})
