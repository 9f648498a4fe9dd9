import { describe, expect, test } from 'bun:test'
import { createTestApp } from '../helpers/app'
import { admin, apiKey, bearer, createKey, expectOk, twoStores } from '../helpers/world'

/** Two stores (A, B) with their students, keys, a revoked key and a publishable key of A. */
async function setup(settings: Record<string, string> = { rateLimitRps: '0' }) {
  const t = createTestApp({ settings })
  const w = await twoStores(t.call, t.deps)
  const pk = (await createKey(t.call, w.A.student, 'browser', 'publishable')).apiKey
  return { ...t, w, pk }
}

type Setup = Awaited<ReturnType<typeof setup>>
const listOf = async (t: Setup, who: Record<string, string>, query = '') => expectOk(t.call('GET', `/v1/store/requests${query}`, { headers: who }))

describe('the request inspector keeps what each store sent and got back', () => {
  test("a call to no route made with the store's key (a typo, a wrong method) is one of its calls: in its inspector with the 404 or 405, and counted as an error", async () => {
    const t = await setup()
    const sk = apiKey(t.w.A.key.apiKey)
    const report = async () => (await expectOk(t.call('GET', '/v1/admin/activity', { headers: admin }))).groups.find((g: any) => g.groupId === t.w.A.group.id)
    t.deps.activity.flush()
    const before = await report()
    const typo = await t.call('GET', '/v1/prodcts?page=2', { headers: { ...sk, 'x-request-id': 'typo-1' } })
    expect([typo.status, typo.body.error.message]).toEqual([404, 'There is no route GET /v1/prodcts. Did you mean /v1/products? Every route is listed at /docs.'])
    const method = await t.call('DELETE', '/v1/products', { headers: { ...sk, 'x-request-id': 'method-1' } })
    expect(method.status).toBe(405)
    t.deps.activity.flush()
    const after = await report()
    expect([after.calls - before.calls, after.errors - before.errors]).toEqual([2, 2])
    // Without a credential, or with one that names no store, there is no store to show it to.
    expect((await t.call('GET', '/v1/prodcts', { headers: { 'x-request-id': 'anonymous-1' } })).status).toBe(404)
    expect((await t.call('GET', '/v1/prodcts', { headers: { 'x-api-key': 'sk_unknown_key', 'x-request-id': 'unknown-1' } })).status).toBe(404)

    const list = await listOf(t, bearer(t.w.A.student), '?status=4xx')
    expect(list.data.map((e: any) => [e.id, e.method, e.path, e.query, e.status, e.errorCode, e.credential])).toEqual([
      ['method-1', 'DELETE', '/v1/products', '', 405, 'METHOD_NOT_ALLOWED', 'secret'],
      ['typo-1', 'GET', '/v1/prodcts', 'page=2', 404, 'NOT_FOUND', 'secret'],
    ])
    expect(list.data[1].errorMessage).toBe(typo.body.error.message)
    expect((await listOf(t, bearer(t.w.B.student))).data.map((e: any) => e.id)).not.toContain('typo-1')
  })

  test("a call to no route still spends the store's rate limit: a loop on a mistyped path is slowed like any other", async () => {
    const t = await setup({ rateLimitRps: '1', rateLimitBurst: '30' })
    t.clock.advance(60_000) // the bucket full again after the set-up's calls
    const sk = apiKey(t.w.A.key.apiKey)
    const statuses: number[] = []
    for (let i = 0; i < 31; i++) statuses.push((await t.call('GET', '/v1/prodcts', { headers: sk })).status)
    expect(statuses).toEqual([...Array(30).fill(404), 429])
  })

  test("a failed POST keeps both bodies, cut to the error; the password in it is '[redacted]' and appears nowhere", async () => {
    const t = await setup()
    const sk = apiKey(t.w.A.key.apiKey)
    const sent = { name: 'Bia', email: 'not-an-email', password: 'hunter2-never-kept' }
    const refused = await t.call('POST', '/v1/customers/register', { headers: { ...sk, 'x-request-id': 'my-register-1' }, body: sent })
    expect(refused.status).toBe(400)

    const list = await listOf(t, bearer(t.w.A.student), '?path=/v1/customers')
    expect(list.total).toBe(1)
    expect(list.data[0]).toEqual({
      id: 'my-register-1',
      createdAt: new Date(t.clock.now()).toISOString(),
      method: 'POST',
      path: '/v1/customers/register',
      query: '',
      status: 400,
      durationMs: expect.any(Number),
      credential: 'secret',
      rm: null,
      client: 'app',
      fromPage: null,
      errorCode: refused.body.error.code,
      errorMessage: refused.body.error.message,
      count: 1,
      lastCreatedAt: new Date(t.clock.now()).toISOString(),
    })
    const detail = await t.call('GET', '/v1/store/requests/my-register-1', { headers: bearer(t.w.A.student) })
    expect(JSON.parse(detail.body.requestBody)).toEqual({ ...sent, password: '[redacted]' })
    expect(JSON.parse(detail.body.responseBody)).toEqual(refused.body)
    expect(detail.body.requestHeaders['x-api-key']).toBe('[redacted]')
    expect(detail.body.requestHeaders['content-type']).toBe('application/json')
    expect(detail.body).toMatchObject({ requestBodyTruncated: false, responseBodyTruncated: false, bodiesDropped: false })
    expect(detail.text).not.toContain('hunter2-never-kept')
    expect(detail.text).not.toContain(t.w.A.key.apiKey)
  })

  test('a key, token or signing secret written anywhere in a body or query is redacted too', async () => {
    const t = await setup()
    const sk = t.w.A.key.apiKey
    const body = `{"name":"x","note":"my key is ${sk} and my secret whsec_0123456789abcdef","nested":{"currentPassword":12345},"apiKey":"${sk}"}`
    const r = await t.call('POST', `/v1/products?token=${t.w.A.student}&page=2`, { headers: { ...apiKey(sk), 'content-type': 'application/json' }, raw: body })
    expect(r.status).toBe(400)
    const [entry] = (await listOf(t, bearer(t.w.A.student), '?method=post&path=/v1/products')).data
    expect(entry.query).toBe('token=%5Bredacted%5D&page=2')
    const detail = await expectOk(t.call('GET', `/v1/store/requests/${entry.id}`, { headers: bearer(t.w.A.student) }))
    expect(JSON.parse(detail.requestBody)).toEqual({ name: 'x', note: 'my key is [redacted] and my secret [redacted]', nested: { currentPassword: '[redacted]' }, apiKey: '[redacted]' })
    expect(JSON.stringify(detail)).not.toContain(sk.slice(12))
    expect(JSON.stringify(detail)).not.toContain(t.w.A.student.slice(8))
  })

  test('a successful call is listed without bodies; a GET with a query keeps its query', async () => {
    const t = await setup()
    await expectOk(t.call('GET', '/v1/products?pageSize=3', { headers: apiKey(t.w.A.key.apiKey) }))
    const [entry] = (await listOf(t, bearer(t.w.A.student), '?status=2xx&path=/v1/products')).data
    expect(entry).toMatchObject({ method: 'GET', path: '/v1/products', query: 'pageSize=3', status: 200, errorCode: null, errorMessage: null, credential: 'secret' })
    const detail = await expectOk(t.call('GET', `/v1/store/requests/${entry.id}`, { headers: bearer(t.w.A.student) }))
    expect(detail).toMatchObject({ requestHeaders: {}, requestBody: null, responseBody: null, bodiesDropped: false })
  })

  test("a revoked key's 401 is in its own store's log and never in the other's", async () => {
    const t = await setup()
    const r = await t.call('GET', '/v1/products', { headers: { ...apiKey(t.w.A.revoked.apiKey), 'x-request-id': 'revoked-call' } })
    expect(r.status).toBe(401)
    const a = await listOf(t, bearer(t.w.A.student), '?status=401')
    expect(a.data.map((e: any) => [e.id, e.credential, e.errorCode])).toEqual([['revoked-call', 'secret', 'UNAUTHENTICATED']])
    expect(a.data[0].errorMessage).toBe(r.body.error.message)
    const b = await listOf(t, bearer(t.w.B.student), '?status=401')
    expect(b.total).toBe(0)
    expect((await t.call('GET', '/v1/store/requests/revoked-call', { headers: bearer(t.w.B.student) })).status).toBe(404)
  })

  test('a publishable key on a management route is kept with credential "publishable" and SECRET_KEY_REQUIRED', async () => {
    const t = await setup()
    const r = await t.call('POST', '/v1/products', { headers: apiKey(t.pk), body: { name: 'X', sku: 'X-1', price: 1, stock: 1 } })
    expect(r.status).toBe(403)
    const [entry] = (await listOf(t, bearer(t.w.A.student), '?status=403')).data
    expect(entry).toMatchObject({ credential: 'publishable', status: 403, errorCode: 'SECRET_KEY_REQUIRED', errorMessage: r.body.error.message })
  })

  test('a call whose credential names no store (an unknown key, the admin token) is kept nowhere', async () => {
    const t = await setup()
    await t.call('GET', '/v1/products', { headers: apiKey('sk_aaaaaaaa_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb') })
    await t.call('GET', '/v1/admin/groups', { headers: admin })
    for (const s of [t.w.A, t.w.B]) expect((await listOf(t, bearer(s.student), '?status=401')).total).toBe(0)
  })

  test('a student token and an attributed key carry the RM; a customer call is "customer"', async () => {
    const t = await setup()
    await expectOk(t.call('GET', '/v1/store/settings', { headers: bearer(t.w.A.student) }))
    await expectOk(t.call('GET', '/v1/products', { headers: { ...apiKey(t.w.A.key.apiKey), 'x-student-rm': t.w.A.rms.spare } }))
    await expectOk(t.call('GET', '/v1/cart', { headers: { ...apiKey(t.w.A.key.apiKey), ...bearer(t.w.A.customer.token) } }))
    const rows = (await listOf(t, bearer(t.w.A.student))).data.map((e: any) => [e.path, e.credential, e.rm])
    expect(rows.slice(0, 3)).toEqual([
      ['/v1/cart', 'customer', null],
      ['/v1/products', 'secret', t.w.A.rms.spare],
      ['/v1/store/settings', 'student', t.w.A.rms.active],
    ])
    expect((await listOf(t, bearer(t.w.A.student), `?rm=${t.w.A.rms.spare}`)).data.map((e: any) => e.path)).toEqual(['/v1/products'])
  })

  test('reading the inspector is not itself kept', async () => {
    const t = await setup()
    const before = (await listOf(t, bearer(t.w.A.student))).total
    await listOf(t, bearer(t.w.A.student))
    await t.call('GET', '/v1/store/requests/nope', { headers: bearer(t.w.A.student) })
    await t.call('GET', '/v1/store/requests?status=abc', { headers: bearer(t.w.A.student) })
    expect((await listOf(t, bearer(t.w.A.student))).total).toBe(before)
  })
})

describe('filters and pages', () => {
  test('status class and exact code, method, path prefix and since; newest first; total counts every match', async () => {
    const t = await setup()
    const sk = apiKey(t.w.A.key.apiKey)
    const start = t.clock.now()
    t.clock.advance(1000)
    for (let i = 0; i < 3; i++) await t.call('GET', `/v1/products/nope-${i}`, { headers: sk })
    await expectOk(t.call('GET', '/v1/products', { headers: sk }))
    await t.call('DELETE', '/v1/products/nope-x', { headers: sk })
    const ids = async (q: string) => (await listOf(t, bearer(t.w.A.student), q)).data.map((e: any) => `${e.method} ${e.path} ${e.status}`)
    const since = `&since=${new Date(start + 1).toISOString()}`
    expect(await ids(`?status=4xx${since}`)).toEqual(['DELETE /v1/products/nope-x 404', 'GET /v1/products/nope-2 404', 'GET /v1/products/nope-1 404', 'GET /v1/products/nope-0 404'])
    expect(await ids(`?status=404&method=delete${since}`)).toEqual(['DELETE /v1/products/nope-x 404'])
    expect(await ids(`?status=2xx&path=/v1/products${since}`)).toEqual(['GET /v1/products 200'])
    expect(await ids(`?path=/v1/products/nope-${since}&pageSize=2&page=2`)).toEqual(['GET /v1/products/nope-1 404', 'GET /v1/products/nope-0 404'])
    const page = await listOf(t, bearer(t.w.A.student), `?path=/v1/products/nope-${since}&pageSize=2`)
    expect([page.total, page.page, page.pageSize]).toEqual([4, 1, 2])
    // Everything A did before `start` (the setup's calls) is left out by since.
    expect((await listOf(t, bearer(t.w.A.student), `?${since.slice(1)}`)).total).toBe(5)
    // The same instant with an offset, or as a local time of the server's zone.
    const local = new Date(start + 1 - 3 * 3_600_000).toISOString().slice(0, -1)
    expect((await listOf(t, bearer(t.w.A.student), `?since=${local}-03:00`)).total).toBe(5)
    t.clock.timeZone = 'America/Sao_Paulo'
    expect((await listOf(t, bearer(t.w.A.student), `?since=${local}`)).total).toBe(5)
  })

  test('a wrong filter is a 400 that says what to send', async () => {
    const t = await setup()
    for (const [q, says] of <[string, string][]>[
      ['status=abc', 'status must be 2xx, 4xx, 5xx'],
      ['since=yesterday', 'since must be an ISO date, year first'],
      // Date.parse reads these (11 December or 12 November; the year 2001): an ISO filter does not.
      ['since=11%2F12%2F2026', 'since must be an ISO date, year first'],
      ['since=1', 'since must be an ISO date, year first'],
      ['since=2026-01-01T09:00:00+05:30', "since has a space where its offset's + was: a + in a query string is read as a space. Write it as %2B (2026-01-01T09:00:00%2B05:30)"],
      ['method=G%20T', 'method must be an HTTP method'],
    ]) {
      const r = await t.call('GET', `/v1/store/requests?${q}`, { headers: bearer(t.w.A.student) })
      expect(r.status).toBe(400)
      expect(r.body.error.code).toBe('VALIDATION_ERROR')
      expect(JSON.stringify(r.body.error)).toContain(says)
    }
  })
})

describe('the teacher reads any group', () => {
  test("the teacher opens each call of a group by its id: two calls of one group answer their own entries, another group's call is 404 there", async () => {
    const t = await setup()
    const sk = apiKey(t.w.A.key.apiKey)
    for (const id of ['call-one', 'call-two']) await t.call('GET', '/v1/products', { headers: { ...sk, 'x-request-id': id } })
    await t.call('GET', '/v1/products', { headers: { ...apiKey(t.w.B.key.apiKey), 'x-request-id': 'call-of-b' } })
    const of = (groupId: string, id: string) => t.call('GET', `/v1/admin/groups/${groupId}/requests/${id}`, { headers: admin })
    // The same group in both paths, then the same call under two groups: each answer is its own path's.
    for (const id of ['call-one', 'call-two']) expect((await expectOk(of(t.w.A.group.id, id))).id).toBe(id)
    expect((await expectOk(of(t.w.B.group.id, 'call-of-b'))).id).toBe('call-of-b')
    expect((await of(t.w.A.group.id, 'call-of-b')).status).toBe(404)
  })

  test("list, detail and filters of a group's calls; an unknown group is 404", async () => {
    const t = await setup()
    await t.call('GET', '/v1/products/missing', { headers: { ...apiKey(t.w.B.key.apiKey), 'x-request-id': 'b-missing' } })
    const list = await expectOk(t.call('GET', `/v1/admin/groups/${t.w.B.group.id}/requests?status=404`, { headers: admin }))
    expect(list.data.map((e: any) => e.id)).toEqual(['b-missing'])
    const one = await expectOk(t.call('GET', `/v1/admin/groups/${t.w.B.group.id}/requests/b-missing`, { headers: admin }))
    expect(one.errorCode).toBe('NOT_FOUND')
    expect((await t.call('GET', `/v1/admin/groups/${t.w.A.group.id}/requests/b-missing`, { headers: admin })).status).toBe(404)
    const unknown = await t.call('GET', '/v1/admin/groups/grp_nope/requests', { headers: admin })
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'NOT_FOUND'])
    // A store's credential does not open the teacher's route, even for its own group.
    expect((await t.call('GET', `/v1/admin/groups/${t.w.B.group.id}/requests`, { headers: bearer(t.w.B.student) })).status).toBe(401)
  })
})
