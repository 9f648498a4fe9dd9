import { describe, expect, test } from 'bun:test'
import { RouteTable } from '../../src/kernel/http/route-table'
import { ADMIN_TOKEN, createTestApp } from '../helpers/app'

/**
 * decisions.md: an unknown field sent is 400 VALIDATION_ERROR. For a query string that means every
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
