import { describe, expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { createApp } from '../../src/app'
import { groupedWrite, groupOpen } from '../../src/kernel/db/database'
import { caller, createTestDeps } from '../helpers/app'
import { mark, statementsOf, summary } from '../helpers/statement-log'
import { expectOk } from '../helpers/world'
import { eventsOf, expectLedgerConsistent, levels, registerBuyer, shopSetup } from '../helpers/orders'

// Cart changes, checkouts and payments that arrive together commit in one transaction (groupedWrite,
// src/kernel/db/database.ts). An answer leaves only after that commit, and one refused request leaves
// the others' writes as they were.

const buyers = async (s: Awaited<ReturnType<typeof shopSetup>>, n: number) => {
  const list = [s.shop]
  for (let i = 1; i < n; i++) list.push(await registerBuyer(s.call, s.w.A.key.apiKey, `buyer${i}@example.com`))
  return list
}

describe('writes of requests that arrive together', () => {
  test('cart adds of several customers commit in one transaction, and every answer comes after that commit', async () => {
    const s = await shopSetup()
    const all = await buyers(s, 3)
    const { statements } = await statementsOf(() => Promise.all(all.map((b) => expectOk(b.add(s.variantId, 1)).then(() => mark('answer')))))
    const log = statements.map(summary)
    expect(log.filter((x) => x === 'begin immediate' || x === 'commit' || x === 'savepoint nested')).toEqual(['begin immediate', 'savepoint nested', 'savepoint nested', 'commit'])
    expect(log.slice(log.indexOf('commit') + 1)).toEqual(['answer', 'answer', 'answer'])
    for (const b of all) expect((await b.cart()).items).toEqual([expect.objectContaining({ variantId: s.variantId, quantity: 1 })])
  })

  test('a request that does not join the group (GET /v1/cart) arriving while it is open runs after its commit, and reads what it wrote', async () => {
    const s = await shopSetup()
    const [a, b] = await buyers(s, 2)
    await a!.cart()
    const { result, statements } = await statementsOf(async () => {
      const adds = [expectOk(a!.add(s.variantId, 2)), expectOk(b!.add(s.variantId, 1))]
      // The adds' handlers run in the microtasks that follow; the group is open once the first has written.
      for (let i = 0; i < 1000 && !groupOpen(s.deps.db); i++) await Promise.resolve()
      expect(groupOpen(s.deps.db)).toBe(true)
      mark('group open')
      return Promise.all([...adds, a!.cart().then((cart) => (mark('cart read'), cart))])
    })
    const log = statements.map(summary)
    const commit = log.indexOf('commit')
    expect(log.indexOf('group open')).toBeLessThan(commit)
    // After the commit: the gate's reads (with the suite's checks of what it keeps), then the cart with its lines.
    const after = log.slice(commit + 1)
    expect(after.slice(-2)).toEqual(['select carts', 'cart read'])
    expect(after.slice(0, -2).filter((x) => !/^select (total_changes|credential_changes|api_keys)\b/.test(x))).toEqual([])
    expect(result[2].items).toEqual([expect.objectContaining({ variantId: s.variantId, quantity: 2 })])
  })

  test("of checkouts that arrive together, one refused for want of stock leaves the others' orders, committed together", async () => {
    const s = await shopSetup({ stock: 2, minStock: 0 })
    const all = await buyers(s, 3)
    for (const b of all) await expectOk(b.add(s.variantId, 1))
    const { result, statements } = await statementsOf(() => Promise.all(all.map((b) => b.checkout())))
    expect(statements.map(summary).filter((x) => x === 'commit')).toEqual(['commit'])
    expect(result.map((r) => r.status)).toEqual([201, 201, 409])
    expect(result[2]!.body.error.code).toBe('INSUFFICIENT_STOCK')
    expect(levels(s.deps, s.variantId)).toEqual({ stock: 2, reserved: 2 })
    expectLedgerConsistent(s.deps, s.variantId)
    expect(eventsOf(s.deps, s.w.A.group.storeId, 'order.created').map((e) => e.orderId)).toEqual([result[0]!.body.id, result[1]!.body.id])
    expect((await all[2]!.cart()).items).toEqual([expect.objectContaining({ quantity: 1 })])
  })

  test('an answer made while a commit group is open leaves after the group commits: a plain INSERT that joined its transaction is committed when the answer arrives', async () => {
    const t = lateWriterApp()
    const { result, statements } = await statementsOf(() => t.call('POST', '/test/late-write').then((r) => (mark('answer'), r)))
    expect(result.text).toBe('written')
    const log = statements.map(summary)
    expect(log.indexOf('insert notes')).toBeLessThan(log.indexOf('commit'))
    expect(log.at(-1)).toBe('answer')
    expect(t.deps.sqlite.query('select text from notes order by rowid').all()).toEqual([{ text: 'grouped' }, { text: 'plain' }])
  })

  test('if that group cannot commit, the answer is replaced by the error envelope: what it said never happened', async () => {
    const t = lateWriterApp()
    const res = await t.call('POST', '/test/late-write?fail=1')
    expect(res.status).toBe(500)
    expect(res.body.error.code).toBe('INTERNAL_ERROR')
    expect(res.headers.get('x-request-id')).toBe(res.body.error.requestId)
    expect(t.deps.sqlite.query('select text from notes').all()).toEqual([])
  })
})

/**
 * An app with a route that does not group its writes: it opens a commit group with a grouped write of
 * its own (as another request would), then writes with a plain INSERT, which joins the group's open
 * transaction, and answers at once. Asked to, the grouped write leaves a deferred foreign key
 * broken (`?fail=1`), so the group's COMMIT fails.
 */
function lateWriterApp() {
  const t = createTestDeps()
  t.deps.sqlite.exec('create table parents (id integer primary key)')
  t.deps.sqlite.exec('create table notes (text text not null, parent integer references parents (id) deferrable initially deferred)')
  const db = t.deps.db
  const route = new Elysia().post('/test/late-write', ({ query }) => {
    const parent = query.fail ? 999 : null
    void groupedWrite(db, (tx) => tx.$client.query("insert into notes (text, parent) values ('grouped', ?)").run(parent)).catch(() => {})
    db.$client.query("insert into notes (text) values ('plain')").run()
    return 'written'
  })
  return { ...t, call: caller(createApp(t.deps, route)) }
}
