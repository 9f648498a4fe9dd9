import { describe, expect, test } from 'bun:test'
import { RouteTable } from '../../src/kernel/http/route-table'
import { ADMIN_TOKEN, createTestApp } from '../helpers/app'

/**
 * An unknown field sent is 400 VALIDATION_ERROR. For a query string that means every
 * route's query schema refuses a parameter it does not name; a lax one silently drops a filter (a `q`
 * where the product list takes `search` answered every product).
 */
describe('query parameters a route does not take', () => {
  test("every route's query schema refuses an unknown parameter", () => {
    const t = createTestApp()
    const routes = new RouteTable()
    routes.fill(t.app.routes)
    const withQuery = routes.all().filter((r) => r.query)
    expect(withQuery.length).toBeGreaterThan(10)
    const lax = withQuery
      .filter((r) => {
        const result = r.query!['~standard'].validate({ not_a_parameter: '1' }) as { issues?: { code?: string }[] }
        return !result.issues?.some((i) => i.code === 'unrecognized_keys')
      })
      .map((r) => `${r.method} ${r.path}`)
    expect(lax).toEqual([])
  })

  test('over HTTP, the 400 names the parameters the route takes (a plain paged list: the teacher\u2019s groups)', async () => {
    const t = createTestApp()
    const res = await t.call('GET', '/v1/admin/groups?pagesize=5', { headers: { 'x-admin-token': ADMIN_TOKEN } })
    expect([res.status, res.body.error.details]).toEqual([400, [{ path: 'pagesize', message: 'not a parameter of this route, which takes page, pageSize' }]])
  })
})

describe('a parameter sent twice, and a comma in a value', () => {
  test('a parameter the route takes once, sent twice, is a 400 saying so; a comma stays in the value', async () => {
    const t = createTestApp()
    const admin = { 'x-admin-token': ADMIN_TOKEN }
    for (const [query, name] of [['page=1&page=2', 'page'], ['from=2026-01-01&from=2026-01-02', 'from']] as const) {
      const path = query.startsWith('page') ? '/v1/admin/groups' : '/v1/admin/activity'
      const res = await t.call('GET', `${path}?${query}`, { headers: admin })
      expect([res.status, res.body.error.details]).toEqual([400, [{ path: name, message: `${name} is sent 2 times, and this route takes it once: send one ${name}=` }]])
    }
    // A comma is part of the value, not a list of two: `to` is checked as the whole text.
    const res = await t.call('GET', '/v1/admin/activity?to=2026-01-01T00:00:00Z,x', { headers: admin })
    expect(res.body.error.details).toEqual([{ path: 'to', message: 'to must be an ISO date, year first, such as 2026-11-21, or a date and time such as 2026-11-21T14:00:00Z' }])
  })
})
