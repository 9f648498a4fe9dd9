import { afterEach, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { apiKeys, customers } from '../../src/kernel/auth/tables'
import { CHECK_STAMPS_ENV } from '../../src/kernel/db/change-stamp'
import { groupedWrite, writeTransaction } from '../../src/kernel/db/database'
import { registerBuyer, shopSetup } from '../helpers/orders'
import { statementsOf, summary } from '../helpers/statement-log'
import { bearer, expectOk } from '../helpers/world'

// The gate keeps a buyer's key and session while no credential changes (src/kernel/auth/kept-credentials.ts):
// a cart add that writes on every request does not read them again, and a change to a key or a session
// is seen by the very next request. Most tests here turn the suite's own check off, so that what they
// see is the server's invalidation and not the check's fresh read.

const checks = process.env[CHECK_STAMPS_ENV]
afterEach(() => void (process.env[CHECK_STAMPS_ENV] = checks))

async function keptSetup() {
  process.env[CHECK_STAMPS_ENV] = '0'
  const s = await shopSetup()
  await expectOk(s.shop.add(s.variantId, 1))
  return s
}

const reads = async (work: () => Promise<unknown>) => (await statementsOf(work)).statements.map(summary).filter((x) => x === 'select api_keys')

describe("the buyer's kept key and session", () => {
  test('survive cart adds, which write on every request: the next add reads neither', async () => {
    const s = await keptSetup()
    expect(await reads(() => expectOk(s.shop.add(s.variantId, 1)))).toEqual([])
    expect(await reads(() => expectOk(s.shop.add(s.variantId, 1)))).toEqual([])
  })

  test('inside a commit group the gate reads neither the rows nor whether a credential changed', async () => {
    const s = await keptSetup()
    const buyers = [s.shop, await registerBuyer(s.call, s.w.A.key.apiKey, 'second@example.com'), await registerBuyer(s.call, s.w.A.key.apiKey, 'third@example.com')]
    for (const b of buyers) await expectOk(b.add(s.variantId, 1))
    const { statements } = await statementsOf(() => Promise.all(buyers.map((b) => expectOk(b.add(s.variantId, 1)))))
    const log = statements.map(summary)
    // One group: the first add opens it, the two others join it.
    expect(log.filter((x) => x === 'begin immediate' || x === 'savepoint nested')).toEqual(['begin immediate', 'savepoint nested', 'savepoint nested'])
    expect(log.filter((x) => x === 'select credential_changes' || x === 'select api_keys').length).toBeLessThanOrEqual(1)
  })

  test('after a write, the key alone and the key with a session ask once whether a credential changed', async () => {
    const s = await keptSetup()
    const product = () => expectOk(s.call('GET', `/v1/products/${s.product.id}`, { headers: { 'x-api-key': s.w.A.key.apiKey } }))
    // Kept by the catalog's cache from here on: read again, it opens no transaction of its own.
    await product()
    await s.shop.cart()
    const { statements } = await statementsOf(async () => {
      await expectOk(s.shop.add(s.variantId, 1))
      await product()
      await s.shop.cart()
    })
    // The add's own commit moved the stamp: the product read (the key alone) asks again, the cart read (key and session) after it does not.
    expect(statements.map(summary).filter((x) => x === 'select credential_changes' || x === 'select api_keys')).toEqual(['select credential_changes'])
  })

  test('a key revoked is refused by the very next request', async () => {
    const s = await keptSetup()
    await expectOk(s.call('DELETE', `/v1/store/api-keys/${s.w.A.key.id}`, { headers: bearer(s.w.A.student) }), 204)
    const refused = await s.shop.add(s.variantId, 1)
    expect([refused.status, refused.body.error.message]).toEqual([401, expect.stringContaining('This API key was revoked')])
  })

  test('a customer removed, whose sessions go with it, is refused by the very next request', async () => {
    const s = await keptSetup()
    writeTransaction(s.deps.db, (tx) => tx.delete(customers).where(eq(customers.id, s.w.A.customer.id)).run())
    const refused = await s.shop.add(s.variantId, 1)
    expect([refused.status, refused.body.error.message]).toEqual([401, expect.stringContaining('This customer token is not valid for this store')])
  })

  test('a revocation that was rolled back changes nothing: the key still opens the cart, read from memory', async () => {
    const s = await keptSetup()
    expect(() =>
      writeTransaction(s.deps.db, (tx) => {
        tx.$client.query('update api_keys set revoked_at = 1 where id = ?').run(s.w.A.key.id)
        throw new Error('undone')
      }),
    ).toThrow('undone')
    expect(await reads(() => expectOk(s.shop.add(s.variantId, 1)))).toEqual([])
  })

  test("the suite's check finds a credential write that no trigger counted: the request is the server's fault", async () => {
    process.env[CHECK_STAMPS_ENV] = '1'
    const s = await shopSetup()
    await expectOk(s.shop.add(s.variantId, 1))
    s.deps.db.$client.exec('DROP TRIGGER api_keys_credential_changes_update')
    await expectOk(s.call('DELETE', `/v1/store/api-keys/${s.w.A.key.id}`, { headers: bearer(s.w.A.student) }), 204)
    const answer = await s.shop.add(s.variantId, 1)
    expect(answer.status).toBe(500)
    expect(s.log.lines.filter((l) => l.includes('a kept credential row is stale'))).toHaveLength(1)
  })

  test("the suite's check finds a grouped write that changes a credential: a request of its group is the server's fault", async () => {
    process.env[CHECK_STAMPS_ENV] = '1'
    const s = await shopSetup()
    await expectOk(s.shop.add(s.variantId, 1))
    // A read after the last commit: the gate knows that no credential changed up to it.
    await s.shop.cart()
    // No grouped write of the app touches a credential; this one, made for the test, does.
    const revoking = groupedWrite(s.deps.db, (tx) => tx.update(apiKeys).set({ revokedAt: 1 }).where(eq(apiKeys.id, s.w.A.key.id)).run())
    const answer = await s.shop.add(s.variantId, 1)
    await revoking
    expect(answer.status).toBe(500)
    expect(s.log.lines.filter((l) => l.includes('a grouped write changed a credential'))).toHaveLength(1)
  })
})
