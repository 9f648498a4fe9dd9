import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { compiledOnce, STATEMENTS_KEPT } from '../../src/kernel/db/database'
import { openDatabase } from '../../src/kernel/db/open'
import { tempDir } from '../helpers/temp'
import { shopSetup } from '../helpers/orders'
import { statementsOf } from '../helpers/statement-log'
import { apiKey, expectOk } from '../helpers/world'

const MINUTE = 60_000
/** A `?` that is a parameter of its own: not `+?`, not `?1`. */
const BARE_PARAMETER = /(?<!\+)\?(?![0-9])/

/** The text of every statement run while `work` runs, outside quoted strings and names. */
const unquoted = (statements: string[]) => statements.map((text) => text.replace(/'[^']*'|"[^"]*"|`[^`]*`/g, ''))

describe('statements compiled once (compiledOnce)', () => {
  test('writes each bare parameter as +?, and leaves quoted text, numbered parameters and +? as they are', () => {
    expect(compiledOnce('select a from t where b = ? and c in (select value from json_each(?)) limit ?')).toBe(
      'select a from t where b = +? and c in (select value from json_each(+?)) limit +?',
    )
    expect(compiledOnce(`select '?', "a?b", \`c?\` from t where d = ?1 and e = ?`)).toBe(`select '?', "a?b", \`c?\` from t where d = ?1 and e = +?`)
    expect(compiledOnce("select 'it''s ?' where x = ?")).toBe("select 'it''s ?' where x = +?")
    const once = compiledOnce('update t set a = ? where id = ?')
    expect(compiledOnce(once)).toBe(once)
    const none = 'select 1'
    expect(compiledOnce(none)).toBe(none)
  })

  test('the buying flow, the catalog, the store panel and the order timer run no statement with a bare parameter', async () => {
    const s = await shopSetup()
    const key = apiKey(s.w.A.key.apiKey)
    const { statements } = await statementsOf(async () => {
      const order = await s.shop.buy(s.variantId, 2)
      await expectOk(s.shop.pay(order.id))
      await s.shop.buy(s.variantId)
      await expectOk(s.call('GET', '/v1/products', { headers: key }))
      await expectOk(s.call('GET', `/v1/products/${s.product.id}`, { headers: key }))
      await expectOk(s.call('GET', '/v1/products?search=produto', { headers: key }))
      await expectOk(s.call('GET', `/v1/products/${s.product.id}/reviews`, { headers: key }))
      await expectOk(s.call('GET', '/v1/store/overview', { headers: key }))
      await expectOk(s.panel('GET', '?status=PAID'))
      s.clock.advance(61 * MINUTE)
      expect(s.deps.orderExpiry.tick()).toBe(1)
    })
    expect(statements.length).toBeGreaterThan(40)
    expect(statements.filter((text) => text.includes('+?')).length).toBeGreaterThan(20)
    // Each such statement would be compiled again on every run that binds values (database.ts).
    expect(unquoted(statements).filter((text) => BARE_PARAMETER.test(text))).toEqual([])
  })

  test("the order timer's looks read the partial index of pending orders: the value it needs is in the SQL", async () => {
    const s = await shopSetup()
    const order = await s.shop.buy(s.variantId)
    const { statements } = await statementsOf(async () => {
      s.clock.advance(61 * MINUTE)
      // Started, the timer also looks for the next due time.
      s.deps.orderExpiry.start()
      s.deps.orderExpiry.stop()
    })
    expect((await s.shop.order(order.id)).status).toBe('CANCELLED')
    const looks = [...new Set(statements.filter((text) => /from "orders" where/.test(text) && text.includes('"expires_at"')))]
    const plans = looks.map((text) => (s.deps.sqlite.query(`EXPLAIN QUERY PLAN ${text}`).all(...Array(text.split('+?').length - 1).fill(0)) as { detail: string }[]).map((r) => r.detail).join('; '))
    // The due orders, then the next due time.
    expect(plans).toHaveLength(2)
    for (const plan of plans) expect(plan).toMatch(/USING (COVERING )?INDEX orders_pending_expiry/)
  })
})

describe('statements built per call (the kept statements of a connection)', () => {
  test(`a text seen before is not compiled again; the connection keeps the ${STATEMENTS_KEPT} texts used last`, () => {
    const database = openDatabase(join(tempDir('kept'), 'storefront.db'))
    try {
      // What drizzle calls for each statement it runs: the connection it was given.
      const client = database.db.$client
      const text = (i: number) => `select ${i} as n where ? is not null`
      const first = client.prepare(text(0))
      expect(client.prepare(text(0))).toBe(first)
      expect(first.get(1)).toEqual({ n: 0 })
      const one = client.prepare(text(1))
      for (let i = 2; i < STATEMENTS_KEPT; i++) client.prepare(text(i))
      // Used again, the first becomes the newest: a new text pushes out the oldest, now the second.
      expect(client.prepare(text(0))).toBe(first)
      client.prepare(text(STATEMENTS_KEPT))
      expect(client.prepare(text(0))).toBe(first)
      const recompiled = client.prepare(text(1))
      expect(recompiled).not.toBe(one)
      expect(recompiled.get(1)).toEqual({ n: 1 })
      // One pushed out stays valid for whoever holds it (a drizzle statement prepared once).
      expect(one.get(1)).toEqual({ n: 1 })
    } finally {
      database.close()
    }
  })
})
