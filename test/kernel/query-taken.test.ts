import { describe, expect, test } from 'bun:test'
import { createTestApp } from '../helpers/app'
import { admin, apiKey, bearer, expectOk, twoStores, upload } from '../helpers/world'
import { openStream } from '../inspector/sse'

const NONE = 'not a parameter of this route, which takes no query parameters; remove it'

const setup = async () => {
  const t = createTestApp({ settings: { rateLimitRps: '0' } })
  const world = await twoStores(t.call, t.deps)
  return { ...t, world, key: apiKey(world.A.key.apiKey), student: bearer(world.A.student) }
}

describe('a route with a credential takes only the query it declares', () => {
  test('a query parameter on a route that takes none is a 400 saying so, not silently ignored', async () => {
    const t = await setup()
    // The store's settings are one object, not a list: ?pageSize=1 would be answered whole, with no sign it was not read.
    const settings = await t.call('GET', '/v1/store/settings?pageSize=1', { headers: t.student })
    expect([settings.status, settings.body.error.code, settings.body.error.details]).toEqual([400, 'VALIDATION_ERROR', [{ path: 'pageSize', message: NONE }]])
    const me = await t.call('GET', '/v1/store/auth/me?page=2&pageSize=1', { headers: t.student })
    expect(me.body.error.details).toEqual([
      { path: 'page', message: NONE },
      { path: 'pageSize', message: NONE },
    ])
    // A product's detail with an option it does not have.
    const product = await expectOk(t.call('POST', '/v1/products', { headers: t.key, body: { name: 'Caneca', sku: 'CAN-1', price: 19.99, stock: 3 } }), 201)
    const detail = await t.call('GET', `/v1/products/${product.id}?include=variants`, { headers: t.key })
    expect([detail.status, detail.body.error.message]).toEqual([400, `Invalid query string: include: ${NONE}. The expected shape of this route is in /docs.`])
    // Without the parameter, the same calls answer as before.
    expect((await expectOk(t.call('GET', '/v1/store/settings', { headers: t.student }))).storeName).toBe(t.world.A.group.name)
    expect((await expectOk(t.call('GET', `/v1/products/${product.id}`, { headers: t.key }))).id).toBe(product.id)
  })

  test("jQuery's cache-busting _ is never a parameter; a live stream takes the lastEventId an EventSource polyfill adds", async () => {
    const t = await setup()
    const product = await expectOk(t.call('POST', '/v1/products', { headers: t.key, body: { name: 'Caneca', sku: 'CAN-1', price: 19.99, stock: 3 } }), 201)
    expect((await expectOk(t.call('GET', `/v1/products/${product.id}?_=1764230400000`, { headers: t.key }))).id).toBe(product.id)
    expect((await expectOk(t.call('GET', '/v1/products?_=1764230400000&search=caneca', { headers: t.key }))).total).toBe(1)
    const stream = await openStream(t.app, '/v1/store/requests/stream?lastEventId=req_abc', t.student)
    expect([stream.response.status, stream.response.headers.get('content-type')]).toEqual([200, 'text/event-stream; charset=utf-8'])
    await stream.close()
    const other = await t.call('GET', '/v1/store/requests/stream?since=1', { headers: t.student })
    expect([other.status, other.body.error.details]).toEqual([400, [{ path: 'since', message: 'not a parameter of this route, which takes lastEventId' }]])
  })

  test("the teacher's stream of a group takes lastEventId too, and nothing else", async () => {
    const t = await setup()
    const path = `/v1/admin/groups/${t.world.A.group.id}/requests/stream`
    const stream = await openStream(t.app, `${path}?lastEventId=req_abc`, admin)
    expect(stream.response.status).toBe(200)
    await stream.close()
    const other = await t.call('GET', `${path}?since=1`, { headers: admin })
    expect([other.status, other.body.error.details]).toEqual([400, [{ path: 'since', message: 'not a parameter of this route, which takes lastEventId' }]])
  })

  test('the OpenAPI document lists the 400 of such a route', async () => {
    const t = await setup()
    const doc = (await t.call('GET', '/openapi.json')).body
    expect(Object.keys(doc.paths['/v1/store/members'].get.responses)).toContain('400')
    expect(Object.keys(doc.paths['/v1/products/{id}'].get.responses)).toContain('400')
  })

  test("the public URLs ignore their query: a file's (a cache-busting ?v=2), /health, the student login", async () => {
    const t = await setup()
    const media = await upload(t.call, t.key, 'sample.png')
    const file = await t.app.handle(new Request(`http://localhost${new URL(media.url).pathname}?v=2`))
    expect([file.status, file.headers.get('content-type')]).toEqual([200, 'image/png'])
    expect((await expectOk(t.call('GET', '/health?probe=1'))).status).toBe('ok')
    const login = await t.call('POST', '/v1/store/auth/login?from=panel', { body: { rm: t.world.A.rms.spare, password: t.world.A.rms.spare } })
    expect(login.status).toBe(200)
  })
})
