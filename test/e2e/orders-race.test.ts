import { afterAll, describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { drizzle } from 'drizzle-orm/bun-sqlite'
import type { Deps } from '../../src/kernel/deps'
import { buildExecutable, emptyDir, overHttp, type Running, startExecutable } from '../helpers/executable'
import { buyer, expectLedgerConsistent, registerBuyer } from '../helpers/orders'
import { activeStudent, apiKey, createKey, expectOk } from '../helpers/world'

const bin = await buildExecutable()

const servers: Running[] = []
afterAll(async () => {
  for (const s of servers.splice(0)) await s.stop()
})

describe('no overselling over real HTTP', () => {
  test('50 buyers racing for 10 units: exactly 10 orders, stock never negative, the ledger matches', async () => {
    const dir = emptyDir()
    const server = await startExecutable(bin, dir, ['--rate-limit-rps', '0'])
    servers.push(server)
    const call = overHttp(server.base)
    const admin = { 'x-admin-token': readFileSync(join(dir, 'data', 'admin-token'), 'utf8').trim() }
    await expectOk(call('POST', '/v1/admin/groups', { headers: admin, body: { name: 'Race', members: [{ rm: 'r1001', name: 'Racer' }] } }), 201)
    const student = await activeStudent(call, 'r1001')
    const { apiKey: key } = await createKey(call, student)
    const product = await expectOk(call('POST', '/v1/products', { headers: apiKey(key), body: { name: 'Último lote', sku: 'LAST-10', price: 19.99, stock: 10, state: 'PUBLISHED' } }), 201)
    const variantId: string = product.variants[0].id
    const buyers = await Promise.all(Array.from({ length: 50 }, (_, i) => registerBuyer(call, key, `buyer${i}@example.com`)))
    // Every cart may hold the unit (nothing is reserved yet); checkout is where they race.
    await Promise.all(buyers.map((b) => expectOk(b.add(variantId, 1))))
    const checkouts = await Promise.all(buyers.map((b) => b.checkout()))
    const won = checkouts.filter((r) => r.status === 201)
    const lost = checkouts.filter((r) => r.status !== 201)
    expect(won).toHaveLength(10)
    expect(lost.map((r) => `${r.status} ${r.body.error.code}`)).toEqual(Array(40).fill('409 INSUFFICIENT_STOCK'))
    expect(new Set(won.map((r) => r.body.number))).toEqual(new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]))
    const reserved = await expectOk(call('GET', `/v1/variants/${variantId}`, { headers: apiKey(key) }))
    expect(reserved).toMatchObject({ stock: 10, reserved: 10, available: 0 })
    // The ten winners pay at once, each twice (a retry with the same key): ten sales, no more.
    const winners = won.map((r) => ({ order: r.body, shop: buyers[checkouts.indexOf(r)]! }))
    const pays = await Promise.all(winners.flatMap(({ order, shop }) => [shop.pay(order.id, { method: 'PIX' }, `pay-${order.id}`), shop.pay(order.id, { method: 'PIX' }, `pay-${order.id}`)]))
    expect(pays.every((r) => r.status === 200 || r.body?.error?.code === 'IDEMPOTENCY_IN_PROGRESS')).toBe(true)
    for (const { order, shop } of winners) expect((await shop.order(order.id)).payments).toHaveLength(1)
    const sold = await expectOk(call('GET', `/v1/variants/${variantId}`, { headers: apiKey(key) }))
    expect(sold).toMatchObject({ stock: 0, reserved: 0, available: 0 })
    const orders = await expectOk(call('GET', '/v1/store/orders?status=PAID', { headers: apiKey(key) }))
    expect(orders.total).toBe(10)
    // A late buyer is refused at the cart already.
    const late = buyer(call, key, (await registerBuyer(call, key, 'late@example.com')).headers.authorization!.slice(7))
    expect((await late.add(variantId, 1)).body.error.code).toBe('INSUFFICIENT_STOCK')
    expect(await server.stop()).toBe(0)
    servers.length = 0
    const sqlite = new Database(join(dir, 'data', 'storefront.db'), { readonly: true })
    const moves = expectLedgerConsistent({ db: drizzle({ client: sqlite }) } as unknown as Deps, variantId)
    expect(moves.map((m) => m.kind).sort()).toEqual(['RECEIVE', ...Array(10).fill('RESERVE'), ...Array(10).fill('SALE')].sort())
    sqlite.close()
  })
})
