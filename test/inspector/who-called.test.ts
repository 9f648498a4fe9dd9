import { describe, expect, test } from 'bun:test'
import { createTestApp } from '../helpers/app'
import { admin, apiKey, bearer, createKey, expectOk, oneStore } from '../helpers/world'

async function setup() {
  const t = createTestApp({ settings: { rateLimitRps: '0' } })
  const w = await oneStore(t.call, t.deps, 'a')
  const pk = (await createKey(t.call, w.student, 'shop page', 'publishable')).apiKey
  const one = (id: string) => expectOk(t.call('GET', `/v1/store/requests/${id}`, { headers: bearer(w.student) }))
  const list = (query: string) => expectOk(t.call('GET', `/v1/store/requests${query}`, { headers: bearer(w.student) }))
  return { ...t, w, pk, one, list }
}

describe('the inspector records what a call presented and who made it', () => {
  test('a buyer route refused for a missing customer token is recorded as the key that was sent, and names the credential the route takes', async () => {
    const t = await setup()
    const refused = await t.call('GET', '/v1/cart', { headers: { ...apiKey(t.pk), 'x-request-id': 'no-token' } })
    expect(refused.status).toBe(401)
    expect(await t.one('no-token')).toMatchObject({ status: 401, credential: 'publishable', rm: null, routeAuth: 'customer' })
    // The secret key with X-Student-RM: still the secret key, and no customer token it never sent.
    await t.call('GET', '/v1/cart', { headers: { ...apiKey(t.w.key.apiKey), 'x-student-rm': t.w.rms.active, 'x-request-id': 'secret-no-token' } })
    expect(await t.one('secret-no-token')).toMatchObject({ status: 401, credential: 'secret', routeAuth: 'customer' })
    // With the customer's token it is a customer call.
    const passed = await t.call('GET', '/v1/cart', { headers: { ...apiKey(t.pk), ...bearer(t.w.customer.token), 'x-request-id': 'with-token' } })
    expect(passed.status).toBe(200)
    expect(await t.one('with-token')).toMatchObject({ status: 200, credential: 'customer', routeAuth: null })
    // A secret route refused to the publishable key names its own kind.
    await t.call('GET', '/v1/store/orders', { headers: { ...apiKey(t.pk), 'x-request-id': 'pk-on-secret' } })
    expect(await t.one('pk-on-secret')).toMatchObject({ status: 403, credential: 'publishable', routeAuth: 'secret' })
  })

  test('a call with the secret key from a web page (its browser sent an Origin) names the page; a server\'s call, a publishable key\'s and a student\'s do not', async () => {
    const t = await setup()
    const calls: [string, Record<string, string>][] = [
      ['sk-page', { ...apiKey(t.w.key.apiKey), origin: 'http://192.168.0.12:5500' }],
      ['sk-file', { ...apiKey(t.w.key.apiKey), origin: 'null' }],
      ['sk-server', apiKey(t.w.key.apiKey)],
      ['pk-page', { ...apiKey(t.pk), origin: 'http://192.168.0.12:5500' }],
      ['student-page', { ...bearer(t.w.student), origin: 'http://192.168.0.12:5500' }],
    ]
    for (const [id, headers] of calls) await expectOk(t.call('GET', '/v1/products', { headers: { ...headers, 'x-request-id': id } }))
    const pages = await Promise.all(calls.map(async ([id]) => [id, (await t.one(id)).fromPage]))
    expect(pages).toEqual([
      ['sk-page', 'http://192.168.0.12:5500'],
      ['sk-file', 'null'],
      ['sk-server', null],
      ['pk-page', null],
      ['student-page', null],
    ])
    // The list carries it too, and a long Origin is cut.
    await expectOk(t.call('GET', '/v1/products', { headers: { ...apiKey(t.w.key.apiKey), origin: `http://${'a'.repeat(300)}.example`, 'x-request-id': 'sk-long' } }))
    const listed = (await t.list('?path=/v1/products&pageSize=100')).data.find((e: any) => e.id === 'sk-long')
    expect(listed.fromPage.length).toBeLessThanOrEqual(201)
    expect(listed.fromPage).toStartWith('http://aaaa')
  })

  test('X-Student-RM beside the secret key names the student in the entry', async () => {
    const t = await setup()
    await t.call('GET', '/v1/products/prod_missing', { headers: { ...apiKey(t.w.key.apiKey), 'x-student-rm': t.w.rms.active, 'x-request-id': 'by-rm' } })
    expect(await t.one('by-rm')).toMatchObject({ status: 404, credential: 'secret', rm: t.w.rms.active, client: 'app' })
  })

  test('X-Storefront-Client files a call under the panel or the teacher; any other value or none is the app; the list filters by it', async () => {
    const t = await setup()
    const calls: [string, Record<string, string>][] = [
      ['app-none', {}],
      ['app-other', { 'x-storefront-client': 'my-shop' }],
      ['from-panel', { 'x-storefront-client': 'panel' }],
      ['from-teacher', { 'x-storefront-client': 'teacher' }],
    ]
    for (const [id, headers] of calls) await expectOk(t.call('GET', '/v1/products', { headers: { ...apiKey(t.w.key.apiKey), ...headers, 'x-request-id': id } }))
    const ids = async (client: string) => (await t.list(`?client=${client}&path=/v1/products&pageSize=100`)).data.map((e: any) => [e.id, e.client])
    expect(await ids('app')).toEqual([
      ['app-other', 'app'],
      ['app-none', 'app'],
    ])
    expect(await ids('panel')).toEqual([['from-panel', 'panel']])
    expect(await ids('teacher')).toEqual([['from-teacher', 'teacher']])
    // The teacher's view filters the same way.
    const teacher = await expectOk(t.call('GET', `/v1/admin/groups/${t.w.group.id}/requests?client=panel&path=/v1/products`, { headers: admin }))
    expect(teacher.data.map((e: any) => e.id)).toEqual(['from-panel'])
    const wrong = await t.call('GET', '/v1/store/requests?client=phone', { headers: bearer(t.w.student) })
    expect(wrong.status).toBe(400)
    expect(wrong.body.error.message).toContain('client must be app, panel or teacher')
  })
})
