import { describe, expect, test } from 'bun:test'
import { CAPACITY, SHOP_FRONT_CAPACITY } from '../../src/features/inspector/log'
import { admin, apiKey, bearer, expectOk } from '../helpers/world'
import { storeWithShopPage } from './store'

// The publishable key sits in a shop page, where any classmate can copy it, and the shop-front rate
// limit lets each client address send 50 calls a second: kept in the store's ring, such calls (each one
// passing the limit) would push the store's own calls out. They have a ring of their own.

/** The default rate limit: 50 calls a second, so one call every 20 ms of the clock is never refused. */
const EVERY_MS = 20

async function setup() {
  const t = await storeWithShopPage()
  const { w, list } = t
  /** Every page of the list (the teacher's view of it with `teacher`), in order. */
  const pages = async (query = '', teacher = false) => {
    const ids: string[] = []
    let total = -1
    for (let page = 1; ; page++) {
      const q = `?pageSize=100&page=${page}${query}`
      const p = teacher ? await expectOk(t.call('GET', `/v1/admin/groups/${w.group.id}/requests${q}`, { headers: admin })) : await list(q)
      total = p.total
      ids.push(...p.data.map((e: any) => e.id))
      if (p.data.length < 100) return { ids, total }
    }
  }
  /** The calls of the set-up (logging in, making the keys): the store's own. */
  const before = await pages()
  return { ...t, pages, before }
}

describe("the shop front's calls are kept apart from the store's own", () => {
  test('one address sending the publishable key at the rate limit for 25 s is never refused, and the store keeps its own 404', async () => {
    const t = await setup()
    const real = await t.call('GET', '/v1/products/prod_missing', { headers: { ...apiKey(t.w.key.apiKey), 'x-request-id': 'real-404' } })
    expect(real.status).toBe(404)
    let refused = 0
    for (let i = 0; i < 25 * (1000 / EVERY_MS); i++) {
      t.clock.advance(EVERY_MS)
      const r = await t.call('GET', `/v1/products/prod_x${i}`, { headers: { ...apiKey(t.pk), 'x-request-id': `pk-${i}` } })
      if (r.status !== 404) refused++
    }
    expect(refused).toBe(0)
    t.clock.advance(1000)

    const listed = await t.list('?pageSize=1')
    expect(listed.total).toBe(t.before.total + 1 + SHOP_FRONT_CAPACITY)
    expect(listed.data[0].id).toBe('pk-1249')
    const one = await expectOk(t.call('GET', '/v1/store/requests/real-404', { headers: bearer(t.w.student) }))
    expect(one).toMatchObject({ id: 'real-404', status: 404, credential: 'secret', errorCode: 'NOT_FOUND', errorMessage: real.body.error.message, bodiesDropped: false })
    expect(JSON.parse(one.responseBody)).toEqual(real.body)
    // The shop front's newest 500 are kept, the older ones gone.
    expect((await expectOk(t.call('GET', '/v1/store/requests/pk-750', { headers: bearer(t.w.student) }))).credential).toBe('publishable')
    const gone = await t.call('GET', '/v1/store/requests/pk-749', { headers: bearer(t.w.student) })
    expect([gone.status, gone.body.error.message]).toEqual([
      404,
      `No request 'pk-749' among this store's last ${CAPACITY} calls (and its shop front's last ${SHOP_FRONT_CAPACITY}). Request ids come from the X-Request-Id header of an answer; GET /v1/store/requests lists the calls kept.`,
    ])
    // The teacher is sent to the teacher's list of the group, not to the students' route.
    const teacher = await t.call('GET', `/v1/admin/groups/${t.w.group.id}/requests/pk-749`, { headers: admin })
    expect([teacher.status, teacher.body.error.message]).toEqual([
      404,
      `No request 'pk-749' among this store's last ${CAPACITY} calls (and its shop front's last ${SHOP_FRONT_CAPACITY}). Request ids come from the X-Request-Id header of an answer; GET /v1/admin/groups/${t.w.group.id}/requests lists the calls kept.`,
    ])
  })

  test("secret-key, student and customer calls interleaved with 2,000 publishable-key calls all stay listed, in order; total and paging read both as one list", async () => {
    const t = await setup()
    const { token: customer } = t.w.customer
    const own: string[] = []
    const shop: string[] = []
    /** Every call in the order made. */
    const order: string[] = []
    for (let i = 0; i < 2000; i++) {
      t.clock.advance(EVERY_MS)
      // The shop front: a product that is not there, a buyer route with its customer token.
      const pkCall = i % 2 ? { path: `/v1/products/prod_x${i}`, headers: apiKey(t.pk), status: 404 } : { path: '/v1/cart', headers: { ...apiKey(t.pk), ...bearer(customer) }, status: 200 }
      const pkId = `pk-${i}`
      expect((await t.call('GET', pkCall.path, { headers: { ...pkCall.headers, 'x-request-id': pkId } })).status).toBe(pkCall.status)
      shop.push(pkId)
      order.push(pkId)
      if (i % 10 !== 9) continue
      // The store's own: its server (secret key, alone or with a customer's token) and a student in the panel.
      const n = own.length
      const ownCall = [
        { path: `/v1/products/prod_own${n}`, headers: apiKey(t.w.key.apiKey), status: 404 },
        { path: '/v1/products', headers: bearer(t.w.student), status: 200 },
        { path: '/v1/cart', headers: { ...apiKey(t.w.key.apiKey), ...bearer(customer) }, status: 200 },
      ][n % 3]!
      const ownId = `own-${n}`
      expect((await t.call('GET', ownCall.path, { headers: { ...ownCall.headers, 'x-request-id': ownId } })).status).toBe(ownCall.status)
      own.push(ownId)
      order.push(ownId)
    }
    t.clock.advance(1000)
    expect(own.length).toBe(200)

    const kept = new Set([...own, ...shop.slice(-SHOP_FRONT_CAPACITY)])
    const expected = [...order.filter((id) => kept.has(id)).reverse(), ...t.before.ids]
    const all = await t.pages()
    expect(all.total).toBe(t.before.total + own.length + SHOP_FRONT_CAPACITY)
    expect(all.ids).toEqual(expected)
    // The teacher reads the same list.
    expect(await t.pages('', true)).toEqual(all)
    // A filter over both: the 404s of the store's server and of the shop front, newest first.
    const notFound = await t.pages('&status=404')
    const ownNotFound = own.filter((_, n) => n % 3 === 0)
    expect(notFound.ids).toEqual(expected.filter((id) => ownNotFound.includes(id) || (id.startsWith('pk-') && Number(id.slice(3)) % 2 === 1)))
    expect(notFound.total).toBe(ownNotFound.length + SHOP_FRONT_CAPACITY / 2)
    // A customer call is the shop front's with the publishable key, the store's own with the secret key.
    const carts = await t.pages(`&path=${encodeURIComponent('/v1/cart')}`)
    const ownCarts = own.filter((_, n) => n % 3 === 2)
    expect(carts.ids).toEqual(expected.filter((id) => ownCarts.includes(id) || (id.startsWith('pk-') && Number(id.slice(3)) % 2 === 0)))
    expect(carts.total).toBe(ownCarts.length + SHOP_FRONT_CAPACITY / 2)
    expect((await expectOk(t.call('GET', `/v1/store/requests/${ownCarts[0]}`, { headers: bearer(t.w.student) }))).credential).toBe('customer')
    // The oldest of the store's failures still has its bodies: the shop front's failures have a budget of their own.
    const oldest = await expectOk(t.call('GET', '/v1/store/requests/own-0', { headers: bearer(t.w.student) }))
    expect(oldest).toMatchObject({ status: 404, credential: 'secret', bodiesDropped: false })
    expect(JSON.parse(oldest.responseBody).error.code).toBe('NOT_FOUND')
  })
})
