import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { CHECK_STAMPS_ENV } from '../../src/kernel/db/change-stamp'
import { statementsOf, summary } from '../helpers/statement-log'
import { expectOk } from '../helpers/world'
import { shopSetup } from '../helpers/orders'

// The statements each request of the buying flow runs, the gate's included: "select credential_changes"
// asks whether a credential changed since the last write, and while none did the buyer's key and
// session stay kept (kernel/auth/kept-credentials.ts). Each request does the reads and writes it needs
// and no more: a statement added here costs every order.

const run = async (work: () => Promise<unknown>) => (await statementsOf(work)).statements.map(summary)
const gate = ['select credential_changes']

// The suite's checks of kept reads (CHECK_STAMPS_ENV) run statements of their own: counted here are the server's.
const checks = process.env[CHECK_STAMPS_ENV]
beforeAll(() => void (process.env[CHECK_STAMPS_ENV] = '0'))
afterAll(() => void (process.env[CHECK_STAMPS_ENV] = checks))

describe('statements per request of the buying flow', () => {
  test('an order is 30 statements: add to the cart 7, checkout 11, pay 12; each answer is built from what it wrote', async () => {
    const s = await shopSetup()
    // One order first, as a buyer's loop: the cart exists and is empty.
    await s.shop.buy(s.variantId, 1).then((o) => s.shop.pay(o.id))
    expect(await run(() => expectOk(s.shop.add(s.variantId, 1)))).toEqual([
      ...gate, 'begin immediate', 'select carts', 'select variants', 'insert cart_items', 'update carts', 'commit',
    ])
    let order: { id: string } = { id: '' }
    expect(await run(async () => (order = await expectOk(s.shop.checkout(), 201)))).toEqual([
      ...gate, 'begin immediate', 'select carts', 'select customers', 'insert orders', 'insert order_items',
      'update variants', 'insert stock_movements', 'delete cart_items', 'insert outbox_events', 'commit',
    ])
    expect(await run(() => expectOk(s.shop.pay(order.id)))).toEqual([
      ...gate, 'select orders', 'begin immediate', 'select orders', 'insert payments', 'select order_items', 'update variants',
      'insert stock_movements', 'update orders', 'insert outbox_events', 'select payments', 'commit',
    ])
  })

  test('checkout writes all its lines in one INSERT, and moves the stock of each line with one UPDATE and one ledger row', async () => {
    const s = await shopSetup()
    const others = await Promise.all([1, 2].map(() => s.catalog.createProduct({ state: 'PUBLISHED', stock: 5 })))
    for (const v of [s.variantId, ...others.map((p) => p.variants[0].id)]) await expectOk(s.shop.add(v, 1))
    const statements = await run(() => expectOk(s.shop.checkout(), 201))
    const count = (what: string) => statements.filter((x) => x === what).length
    expect([count('insert order_items'), count('update variants'), count('insert stock_movements'), count('select variants')]).toEqual([1, 3, 3, 0])
  })

  test('a change or a removal of a cart line reads the cart with its lines in one statement and answers from them', async () => {
    const s = await shopSetup()
    const cart = await expectOk(s.shop.add(s.variantId, 1))
    const line = `/v1/cart/items/${cart.items[0].id}`
    expect(await run(() => expectOk(s.shop.add(s.variantId, 1)))).toEqual([...gate, 'begin immediate', 'select carts', 'update cart_items', 'commit'])
    expect(await run(() => expectOk(s.shop.send('PATCH', line, { quantity: 1 })))).toEqual([...gate, 'begin immediate', 'select carts', 'update cart_items', 'commit'])
    expect(await run(() => expectOk(s.shop.send('DELETE', line)))).toEqual([...gate, 'begin immediate', 'select carts', 'delete cart_items', 'update carts', 'commit'])
  })
})
