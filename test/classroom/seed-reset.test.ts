import { describe, expect, test } from 'bun:test'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { resetStore } from '../../src/features/classroom/reset'
import { seedDemo } from '../../src/features/classroom/seed'
import { customers } from '../../src/kernel/auth/tables'
import { media } from '../../src/features/media/tables'
import { writeTransaction } from '../../src/kernel/db/database'
import type { AppError } from '../../src/kernel/errors'
import { createTestApp } from '../helpers/app'
import { storeCatalog } from '../helpers/catalog'
import { admin, apiKey, bearer, expectOk, twoStores } from '../helpers/world'

const setup = async () => {
  const t = createTestApp({ settings: { rateLimitRps: '0' } })
  return { ...t, w: await twoStores(t.call, t.deps) }
}

type Setup = Awaited<ReturnType<typeof setup>>
const seed = (t: Setup, groupId: string, body?: object) => t.call('POST', `/v1/admin/groups/${groupId}/seed-demo`, { headers: admin, body })
const all = async (t: Setup, key: string, path: string) => expectOk(t.call('GET', `/v1/${path}${path.includes('?') ? '&' : '?'}pageSize=100`, { headers: apiKey(key) }))
/** What a store's catalog looks like, without the ids that differ from run to run. */
const catalogOf = async (t: Setup, key: string) =>
  (await all(t, key, 'products')).data
    .map((p: any) => [p.name, p.price, p.state, p.variants.map((v: any) => [v.sku, v.price, v.stock, v.options])])
    .sort((a: any, b: any) => String(a[0]).localeCompare(String(b[0])))

describe('seed-demo', () => {
  test('fills an empty store with products, variants, pictures, taxonomy and customers', async () => {
    const t = await setup()
    const { A } = t.w
    const res = await seed(t, A.group.id)
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ groupId: A.group.id, storeId: A.group.storeId, categories: 3, brands: 4, collections: 2, products: 40, images: 40, orders: 6, reviews: 3 })
    const list = await all(t, A.key.apiKey, 'products')
    expect(list.total).toBe(40)
    expect(list.data.reduce((n: number, p: any) => n + p.variants.length, 0)).toBe(res.body.variants)
    expect(list.data.filter((p: any) => p.state === 'PUBLISHED')).toHaveLength(35)
    for (const p of list.data) {
      expect(p.image).toStartWith(`http://localhost:3000/v1/files/${A.group.storeId}/med_`)
      expect(p.categoryId).toMatch(/^cat_/)
      expect(p.brandId).toMatch(/^brd_/)
    }
    const picture = await t.app.handle(new Request(`http://localhost${new URL(list.data[0].image).pathname}`))
    expect(picture.headers.get('content-type')).toBe('image/png')
    expect((await all(t, A.key.apiKey, 'categories')).total).toBe(3)
    expect((await all(t, A.key.apiKey, 'media')).total).toBe(41) // the world's own upload, and the 40 pictures
    const [customer] = res.body.customers
    const login = await t.call('POST', '/v1/customers/login', { headers: apiKey(A.key.apiKey), body: customer })
    expect(login.status).toBe(200)
    const orders = await all(t, A.key.apiKey, 'store/orders')
    expect(orders.total).toBe(6)
    expect(orders.data.map((o: any) => o.status)).toEqual(Array(6).fill('PAID'))
    const reviews = await all(t, A.key.apiKey, 'store/reviews')
    expect(reviews.data.map((r: any) => r.rating).sort()).toEqual([3, 4, 5])
    const reviewed = await expectOk(t.call('GET', `/v1/products/${reviews.data[0].productId}`, { headers: apiKey(A.key.apiKey) }))
    expect(reviewed.rating.count).toBeGreaterThanOrEqual(1)
    const mine = await expectOk(t.call('GET', '/v1/orders', { headers: { ...apiKey(A.key.apiKey), ...bearer(login.body.token) } }))
    expect(mine.total).toBe(2)
  })

  test('the same seed gives the same catalog; another seed another one', async () => {
    const t = await setup()
    const { A, B } = t.w
    await expectOk(seed(t, A.group.id, { seed: 7 }), 201)
    await expectOk(seed(t, B.group.id, { seed: 7 }), 201)
    const a = await catalogOf(t, A.key.apiKey)
    expect(a).toHaveLength(40)
    expect(await catalogOf(t, B.key.apiKey)).toEqual(a)
    const other = await setup()
    await expectOk(seed(other, other.w.A.group.id, { seed: 8 }), 201)
    expect(await catalogOf(other, other.w.A.key.apiKey)).not.toEqual(a)
  })

  test('the body is optional: an empty JSON body (a Content-Type and no data) is none, and seeds as {"seed": 1}', async () => {
    const t = await setup()
    const { A, B } = t.w
    const json = { ...admin, 'content-type': 'application/json' }
    const broken = await t.call('POST', `/v1/admin/groups/${A.group.id}/seed-demo`, { headers: json, raw: '{"seed":' })
    expect([broken.status, broken.body.error.code]).toEqual([400, 'VALIDATION_ERROR'])
    await expectOk(t.call('POST', `/v1/admin/groups/${A.group.id}/seed-demo`, { headers: json, raw: ' ' }), 201)
    await expectOk(seed(t, B.group.id, { seed: 1 }), 201)
    expect(await catalogOf(t, A.key.apiKey)).toEqual(await catalogOf(t, B.key.apiKey))
  })

  test('every demo variant names its size, the first one of a product too', async () => {
    const t = await setup()
    await expectOk(seed(t, t.w.A.group.id, { seed: 7 }), 201)
    const products = (await all(t, t.w.A.key.apiKey, 'products')).data
    const several = products.filter((p: any) => p.variants.length > 1)
    expect(several.length).toBeGreaterThan(0)
    const asSku = (size: string) => size.normalize('NFD').replace(/[^A-Za-z0-9]/g, '').toUpperCase()
    for (const p of products) {
      // The sku ends with the size as a SKU writes it (Único: UNICO), so each variant's options must say the same size.
      expect(p.variants.map((v: any) => asSku(v.options.tamanho))).toEqual(p.variants.map((v: any) => v.sku.split('-').at(-1)))
    }
    expect(products.some((p: any) => p.variants.some((v: any) => v.options.tamanho === 'Único'))).toBe(true)
    expect(several[0].variants.map((v: any) => v.options.tamanho)).toEqual(several[0].variants[0].sku.endsWith('-P') ? ['P', 'M', 'G'] : ['38', '40', '42'])
  })

  test("every demo SKU is one the API takes: a form that sends a variant's fields back as they came is not refused", async () => {
    const t = await setup()
    await expectOk(seed(t, t.w.A.group.id, { seed: 7 }), 201)
    const products = (await all(t, t.w.A.key.apiKey, 'products')).data
    for (const p of products) {
      for (const v of p.variants) {
        const sent = await t.call('PATCH', `/v1/variants/${v.id}`, { headers: apiKey(t.w.A.key.apiKey), body: { sku: v.sku, price: v.price } })
        expect([v.sku, sent.status]).toEqual([v.sku, 200])
      }
    }
  })

  test('a store that already has a customer the demo would make is 409 before anything is written', async () => {
    const t = await setup()
    await expectOk(t.call('POST', '/v1/customers/register', { headers: apiKey(t.w.A.key.apiKey), body: { email: 'ana@demo.example', password: 'ana-password', name: 'Ana' } }), 201)
    const res = await seed(t, t.w.A.group.id)
    expect([res.status, res.body.error.code, res.body.error.message]).toEqual([
      409,
      'CONFLICT',
      `The store of '${t.w.A.group.name}' already has a customer with the e-mail ana@demo.example, which the demo makes. Reset it first (POST /v1/admin/groups/${t.w.A.group.id}/reset-store), then seed.`,
    ])
    // Nothing of the demo: no product, no category.
    expect((await all(t, t.w.A.key.apiKey, 'products')).total).toBe(0)
    expect((await all(t, t.w.A.key.apiKey, 'categories')).total).toBe(0)
  })

  test('while seed-demo fills a store, a reset of it and a second seed are 409; both work once it has answered', async () => {
    const t = await setup()
    const groupId = t.w.A.group.id
    // The seed marks the store before its first wait: the calls below run while it fills the store.
    const filling = seedDemo(t.deps, groupId)
    const refusal = async (work: Promise<unknown>) => {
      try {
        await work
      } catch (e) {
        return [(e as AppError).code, (e as AppError).message]
      }
      return 'not refused'
    }
    expect(await refusal(resetStore(t.deps, groupId))).toEqual(['CONFLICT', `seed-demo is filling the store of '${t.w.A.group.name}' now; reset it once seed-demo has answered.`])
    expect(await refusal(seedDemo(t.deps, groupId))).toEqual(['CONFLICT', `seed-demo is already filling the store of '${t.w.A.group.name}'; it answers once it is done.`])
    expect((await filling).products).toBe(40)
    expect((await expectOk(t.call('POST', `/v1/admin/groups/${groupId}/reset-store`, { headers: admin }))).removed.products).toBe(40)
    expect((await seed(t, groupId)).status).toBe(201)
  })

  test("a request of the group's that takes an e-mail the demo makes while it seeds stops the seed partway, and the 409 says so to the teacher", async () => {
    const t = await setup()
    const groupId = t.w.A.group.id
    const filling = seedDemo(t.deps, groupId)
    // Written while the seed makes its catalog, after it checked the e-mails (as the shop's own register would be).
    writeTransaction(t.deps.db, (tx) =>
      tx.insert(customers).values({ id: 'cus_meanwhile', storeId: t.w.A.group.storeId, email: 'bruno@demo.example', name: 'Bruno', passwordHash: 'x', createdAt: 0 }).run(),
    )
    let stopped: AppError | undefined
    try {
      await filling
    } catch (e) {
      stopped = e as AppError
    }
    expect([stopped?.code, stopped?.message]).toEqual([
      'CONFLICT',
      `seed-demo stopped partway: a request of the group wrote to the store meanwhile (A customer with e-mail bruno@demo.example already exists in this store. Log in instead: POST /v1/customers/login.) What it made so far stays. Reset the store (POST /v1/admin/groups/${groupId}/reset-store), then seed again while the group is not writing to it.`,
    ])
    // What it made stays, as it says; a reset and a seed start over.
    expect((await all(t, t.w.A.key.apiKey, 'products')).total).toBe(40)
    await expectOk(t.call('POST', `/v1/admin/groups/${groupId}/reset-store`, { headers: admin }))
    expect((await seed(t, groupId)).status).toBe(201)
  })

  test('a seed refused by the store as it is (its media quota full) says so, not that the group wrote meanwhile', async () => {
    const t = createTestApp({ settings: { rateLimitRps: '0', mediaQuotaMb: '1' } })
    const w = await twoStores(t.call, t.deps)
    // The library holds a file of the whole quota.
    writeTransaction(t.deps.db, (tx) =>
      tx.insert(media).values({ id: 'med_full', storeId: w.A.group.storeId, kind: 'IMAGE', mimeType: 'image/png', extension: 'png', sizeBytes: 1024 * 1024, filename: 'full.png', width: 1, height: 1, createdAt: 0 }).run(),
    )
    const res = await t.call('POST', `/v1/admin/groups/${w.A.group.id}/seed-demo`, { headers: admin })
    expect([res.status, res.body.error.code]).toEqual([413, 'QUOTA_EXCEEDED'])
    expect(res.body.error.message).toStartWith("The store's media quota has 0 KiB left")
  })

  test('a store that already has products is 409; an unknown group 404', async () => {
    const t = await setup()
    await expectOk(seed(t, t.w.A.group.id), 201)
    const again = await seed(t, t.w.A.group.id)
    expect([again.status, again.body.error.code]).toEqual([409, 'CONFLICT'])
    expect(again.body.error.message).toContain('reset-store')
    expect((await seed(t, 'grp_nope')).status).toBe(404)
  })

  test("a store with one product is 409 CONFLICT that says '1 product' and names the reset route", async () => {
    const t = await setup()
    const { A } = t.w
    await storeCatalog(t.call, A.key.apiKey).createProduct()
    const res = await seed(t, A.group.id)
    expect([res.status, res.body.error.code]).toEqual([409, 'CONFLICT'])
    expect(res.body.error.message).toBe(
      `The store of 'Group A' already has 1 product. Reset it first (POST /v1/admin/groups/${A.group.id}/reset-store), then seed.`,
    )
  })
})

describe('reset-store', () => {
  test("empties the store's data and files, keeps members, keys and settings, and leaves another store untouched", async () => {
    const t = await setup()
    const { A, B } = t.w
    await expectOk(seed(t, A.group.id), 201)
    const seededB = await expectOk(seed(t, B.group.id), 201)
    await expectOk(t.call('POST', '/v1/webhooks', { headers: apiKey(A.key.apiKey), body: { url: 'https://10.1.1.1/hook', events: ['*'] } }), 201)
    await expectOk(t.call('PUT', '/v1/store/settings', { headers: bearer(A.student), body: { primaryColor: '#123456' } }))
    const bBefore = await catalogOf(t, B.key.apiKey)
    expect((await all(t, A.key.apiKey, 'products')).total).toBe(40) // cached before the reset

    const res = await t.call('POST', `/v1/admin/groups/${A.group.id}/reset-store`, { headers: admin })
    expect(res.status).toBe(200)
    expect(res.body.removed).toMatchObject({ products: 40, media: 41, customers: 4, orders: 6, reviews: 3, webhook_endpoints: 1 })

    for (const path of ['products', 'media', 'categories', 'brands', 'collections', 'webhooks', 'store/orders', 'store/reviews']) {
      expect({ path, total: (await all(t, A.key.apiKey, path)).total }).toEqual({ path, total: 0 })
    }
    expect(existsSync(join(t.dir, 'media', A.group.storeId))).toBe(false)
    const customer = await t.call('GET', '/v1/customers/me', { headers: { ...apiKey(A.key.apiKey), ...bearer(A.customer.token) } })
    expect(customer.status).toBe(401)
    // Members, keys and settings stay.
    expect((await expectOk(t.call('GET', '/v1/store/members', { headers: bearer(A.student) }))).data).toHaveLength(3)
    expect((await expectOk(t.call('GET', '/v1/store/settings', { headers: bearer(A.student) }))).primaryColor).toBe('#123456')

    // Store B is as it was, files included.
    expect(await catalogOf(t, B.key.apiKey)).toEqual(bBefore)
    expect(readdirSync(join(t.dir, 'media', B.group.storeId))).toHaveLength(41)
    const login = await t.call('POST', '/v1/customers/login', { headers: apiKey(B.key.apiKey), body: seededB.customers[0] })
    expect(login.status).toBe(200)

    // And A can start again.
    expect((await seed(t, A.group.id)).status).toBe(201)
    expect((await all(t, A.key.apiKey, 'products')).total).toBe(40)
  })
})
