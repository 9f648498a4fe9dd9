import { describe, expect, test } from 'bun:test'
import { expectSameNotFound } from '../helpers/catalog'
import { apiKey, bearer, expectOk } from '../helpers/world'
import { registerBuyer, shopSetup } from '../helpers/orders'

describe('GET /v1/store/orders', () => {
  test("lists the store's orders newest first, filtered by status, customer and time, paginated", async () => {
    const s = await shopSetup({ stock: 100 })
    const other = await registerBuyer(s.call, s.w.A.key.apiKey, 'other@example.com', 'Outra')
    const ids: string[] = []
    for (let i = 0; i < 5; i++) {
      const who = i % 2 ? other : s.shop
      ids.push((await who.buy(s.variantId)).id)
      s.clock.advance(60_000)
    }
    await expectOk(s.shop.pay(ids[0]!))
    await expectOk(s.shop.pay(ids[2]!))
    const all = await expectOk(s.panel('GET', ''))
    expect(all.data.map((o: any) => o.id)).toEqual([...ids].reverse())
    expect(all).toMatchObject({ page: 1, pageSize: 20, total: 5 })
    const paid = await expectOk(s.panel('GET', '?status=PAID'))
    expect(paid.data.map((o: any) => o.id)).toEqual([ids[2], ids[0]])
    const theirs = await expectOk(s.panel('GET', `?customerId=${other.customer.id}`))
    expect(theirs.data.map((o: any) => o.customer.name)).toEqual(['Outra', 'Outra'])
    const window = await expectOk(s.panel('GET', '?from=2026-01-01T00:01:00Z&to=2026-01-01T00:03:00Z'))
    expect(window.data.map((o: any) => o.id)).toEqual([ids[2], ids[1]])
    const page2 = await expectOk(s.panel('GET', '?pageSize=2&page=2'))
    expect(page2.data.map((o: any) => o.id)).toEqual([ids[2], ids[1]])
    expect(page2.total).toBe(5)
    expect((await s.panel('GET', '?status=LOST')).status).toBe(400)
    expect((await s.panel('GET', '?from=yesterday')).status).toBe(400)
    // A student token sees the same; store B sees none of A's.
    const byStudent = await expectOk(s.call('GET', '/v1/store/orders', { headers: bearer(s.w.A.student) }))
    expect(byStudent.total).toBe(5)
    const inB = await expectOk(s.call('GET', '/v1/store/orders', { headers: apiKey(s.w.B.key.apiKey) }))
    expect(inB.total).toBe(0)
  })

  test("from and to take a date alone, an offset or a local time, read in the server's time zone; a + sent unencoded is named", async () => {
    const s = await shopSetup({ stock: 100 })
    // The orders are made at 00:00 to 00:04 UTC on 1 January: 21:00 to 21:04 on 31 December in São Paulo.
    s.clock.timeZone = 'America/Sao_Paulo'
    const ids: string[] = []
    for (let i = 0; i < 5; i++) {
      ids.push((await s.shop.buy(s.variantId)).id)
      s.clock.advance(60_000)
    }
    const listed = async (query: string) => (await expectOk(s.panel('GET', query))).data.map((o: any) => o.id)
    const newestFirst = [...ids].reverse()
    // A date alone is a day of the server's zone; as `to` it includes that whole day.
    expect(await listed('?to=2025-12-31')).toEqual(newestFirst)
    expect(await listed('?from=2025-12-31')).toEqual(newestFirst)
    expect(await listed('?from=2026-01-01')).toEqual([])
    expect(await listed('?to=2025-12-30')).toEqual([])
    // The same minutes with an offset, in local time without one, and in UTC.
    for (const window of ['from=2025-12-31T21:01:00-03:00&to=2025-12-31T21:03-03:00', 'from=2025-12-31T21:01:00&to=2025-12-31T21:03', 'from=2026-01-01T00:01:00Z&to=2026-01-01T00:03:00.000Z', 'from=2026-01-01T03:01:00%2B03:00&to=2026-01-01T00:03Z']) {
      expect(await listed(`?${window}`)).toEqual([ids[2], ids[1]])
    }
    const wrong = async (query: string) => {
      const r = await s.panel('GET', query)
      expect(r.status).toBe(400)
      expect(r.body.error.code).toBe('VALIDATION_ERROR')
      return r.body.error.details
    }
    expect(await wrong('?from=2026-01-01T03:01:00+03:00')).toEqual([
      { path: 'from', message: "from has a space where its offset's + was: a + in a query string is read as a space. Write it as %2B (2026-01-01T03:01:00%2B03:00), or give the time in UTC with Z" },
    ])
    expect(await wrong('?to=31/12/2025')).toEqual([{ path: 'to', message: 'to must be an ISO date, year first, such as 2026-11-21, or a date and time such as 2026-11-21T14:00:00Z' }])
  })

  test("GET /v1/store/orders/:id shows any customer's order; another store's order is a 404 like an unknown id and cannot be moved", async () => {
    const s = await shopSetup()
    const order = await s.shop.buy(s.variantId)
    const seen = await expectOk(s.panel('GET', `/${order.id}`))
    expect(seen).toEqual(await s.shop.order(order.id))
    const b = (method: string, path: string, body?: unknown) => s.call(method, `/v1/store/orders${path}`, { headers: apiKey(s.w.B.key.apiKey), body })
    const unknownId = 'ord_doesnotexist000000000'
    expectSameNotFound(await b('GET', `/${order.id}`), await b('GET', `/${unknownId}`), order.id, unknownId)
    expectSameNotFound(await b('POST', `/${order.id}/transition`, { to: 'CANCELLED' }), await b('POST', `/${unknownId}/transition`, { to: 'CANCELLED' }), order.id, unknownId)
    expectSameNotFound(await b('POST', `/${order.id}/refund`, {}), await b('POST', `/${unknownId}/refund`, {}), order.id, unknownId)
    expect((await s.shop.order(order.id)).status).toBe('PENDING')
  })
})
