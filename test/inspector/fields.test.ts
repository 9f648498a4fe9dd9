import { describe, expect, test } from 'bun:test'
import { createTestApp } from '../helpers/app'
import { admin, apiKey, bearer, expectOk, twoStores } from '../helpers/world'
import { openStream } from './sse'

// The binding contract names an entry's fields; an app written against it reads these and no others.
const CONTRACT = ['id', 'createdAt', 'method', 'path', 'query', 'status', 'durationMs', 'credential', 'rm', 'errorCode', 'errorMessage']
/** What the server adds to every entry: how many calls a counted entry stands for, and the newest one's time. */
const COUNTED = ['count', 'lastCreatedAt']
/** Who made the call (X-Storefront-Client), for the panel's filter, and whether a browser page held the secret key. */
const CLIENT = ['client', 'fromPage']
/** What the single entry adds: the contract's two bodies, and the headers and flags that say how they were kept. */
const DETAIL = ['requestBody', 'responseBody', 'requestHeaders', 'requestBodyTruncated', 'responseBodyTruncated', 'bodiesDropped', 'routeAuth']

const ENTRY_KEYS = [...CONTRACT, ...COUNTED, ...CLIENT].sort()
const DETAIL_KEYS = [...CONTRACT, ...COUNTED, ...CLIENT, ...DETAIL].sort()
const keysOf = (o: object) => Object.keys(o).sort()

async function setup() {
  const t = createTestApp({ settings: { rateLimitRps: '0' } })
  return { ...t, w: await twoStores(t.call, t.deps) }
}

describe("an inspector entry has the contract's field names", () => {
  test('a list entry and a single entry, failed and successful, in the store\u2019s view and the teacher\u2019s', async () => {
    const t = await setup()
    const sk = apiKey(t.w.A.key.apiKey)
    const failedAt = t.clock.now()
    const refused = await t.call('GET', '/v1/products/nope', { headers: { ...sk, 'x-request-id': 'the-404' } })
    expect(refused.status).toBe(404)
    t.clock.advance(5000)
    await expectOk(t.call('GET', '/v1/products?pageSize=1', { headers: { ...sk, 'x-request-id': 'the-200' } }))

    const views = [
      { list: '/v1/store/requests', headers: bearer(t.w.A.student) },
      { list: `/v1/admin/groups/${t.w.A.group.id}/requests`, headers: admin },
    ]
    for (const { list, headers } of views) {
      const [ok, failed] = (await expectOk(t.call('GET', `${list}?path=/v1/products`, { headers }))).data
      expect(keysOf(failed)).toEqual(ENTRY_KEYS)
      expect(keysOf(ok)).toEqual(ENTRY_KEYS)
      expect(failed).toMatchObject({
        id: 'the-404',
        createdAt: new Date(failedAt).toISOString(),
        lastCreatedAt: new Date(failedAt).toISOString(),
        status: 404,
        errorCode: 'NOT_FOUND',
        errorMessage: refused.body.error.message,
      })
      expect(ok).toMatchObject({ id: 'the-200', createdAt: new Date(failedAt + 5000).toISOString(), query: 'pageSize=1', status: 200, errorCode: null, errorMessage: null })

      const one = await expectOk(t.call('GET', `${list}/the-404`, { headers }))
      expect(keysOf(one)).toEqual(DETAIL_KEYS)
      expect(one).toMatchObject({ ...failed, durationMs: expect.any(Number) })
      expect(JSON.parse(one.responseBody)).toEqual(refused.body)
      const success = await expectOk(t.call('GET', `${list}/the-200`, { headers }))
      expect(keysOf(success)).toEqual(DETAIL_KEYS)
      expect(success).toMatchObject({ errorCode: null, errorMessage: null, requestBody: null, responseBody: null })
    }
  })

  test('`since` reads createdAt: an entry made at that instant is in, one made a millisecond before is out', async () => {
    const t = await setup()
    const sk = apiKey(t.w.A.key.apiKey)
    await t.call('GET', '/v1/products/nope', { headers: { ...sk, 'x-request-id': 'earlier' } })
    t.clock.advance(1)
    await t.call('GET', '/v1/products/nope', { headers: { ...sk, 'x-request-id': 'later' } })
    const list = async (q: string) => (await expectOk(t.call('GET', `/v1/store/requests?status=404${q}`, { headers: bearer(t.w.A.student) }))).data
    const [later, earlier] = await list('')
    expect([later.id, earlier.id]).toEqual(['later', 'earlier'])
    expect(Date.parse(later.createdAt) - Date.parse(earlier.createdAt)).toBe(1)
    expect((await list(`&since=${later.createdAt}`)).map((e: any) => e.id)).toEqual(['later'])
    expect((await list(`&since=${earlier.createdAt}`)).map((e: any) => e.id)).toEqual(['later', 'earlier'])
  })

  test("an entry on the live stream, the store's and the teacher's, has the list's fields and values", async () => {
    const t = await setup()
    const streams = [await openStream(t.app, '/v1/store/requests/stream', bearer(t.w.A.student)), await openStream(t.app, `/v1/admin/groups/${t.w.A.group.id}/requests/stream`, admin)]
    const refused = await t.call('POST', '/v1/products', { headers: { ...apiKey(t.w.A.key.apiKey), 'x-request-id': 'streamed' }, body: {} })
    expect(refused.status).toBe(400)
    const [listed] = (await expectOk(t.call('GET', '/v1/store/requests?status=400', { headers: bearer(t.w.A.student) }))).data
    for (const s of streams) {
      const event = await s.next()
      expect(keysOf(event.data)).toEqual(ENTRY_KEYS)
      expect(event.data).toEqual({ ...listed, durationMs: expect.any(Number) })
      expect([event.data.errorCode, event.data.errorMessage]).toEqual(['VALIDATION_ERROR', refused.body.error.message])
      await s.close()
    }
  })

  test('the OpenAPI document names the same fields for RequestEntry and RequestDetail', async () => {
    const t = createTestApp()
    const doc = (await t.call('GET', '/openapi.json')).body
    const schemas = doc.components.schemas
    expect(Object.keys(schemas.RequestEntry.properties).sort()).toEqual(ENTRY_KEYS)
    expect(Object.keys(schemas.RequestDetail.properties).sort()).toEqual(DETAIL_KEYS)
    expect([...schemas.RequestEntry.required].sort()).toEqual(ENTRY_KEYS)
  })
})
