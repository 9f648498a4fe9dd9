import { describe, expect, test } from 'bun:test'
import { groupOpen } from '../../src/kernel/db/database'
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
    expect(log.slice(commit + 1)).toEqual(['select total_changes as n', 'select api_keys', 'select carts', 'select cart_items', 'cart read'])
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
})
