import { afterAll, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { buildExecutable, emptyDir, overHttp, type Running, startExecutable } from '../helpers/executable'
import { registerBuyer } from '../helpers/orders'
import { activeStudent, apiKey, createKey, expectOk } from '../helpers/world'

const bin = await buildExecutable()

const servers: Running[] = []
afterAll(async () => {
  for (const s of servers.splice(0)) await s.stop()
})

test('an order that fell due while the server was stopped is expired when it starts again, its stock released', async () => {
  const dir = emptyDir()
  const first = await startExecutable(bin, dir, ['--rate-limit-rps', '0'])
  servers.push(first)
  let call = overHttp(first.base)
  const admin = { 'x-admin-token': readFileSync(join(dir, 'data', 'admin-token'), 'utf8').trim() }
  await expectOk(call('POST', '/v1/admin/groups', { headers: admin, body: { name: 'Restart', members: [{ rm: 'x1001', name: 'X' }] } }), 201)
  const { apiKey: key } = await createKey(call, await activeStudent(call, 'x1001'))
  const product = await expectOk(call('POST', '/v1/products', { headers: apiKey(key), body: { name: 'P', sku: 'P-1', price: 5, stock: 3, state: 'PUBLISHED' } }), 201)
  const shop = await registerBuyer(call, key, 'r@example.com')
  const order = await shop.buy(product.variants[0].id, 2)
  expect(await first.stop()).toBe(0)
  servers.length = 0
  // While it was down, the order's hour passed (the clock is real here, so the due time is moved back).
  const db = new Database(join(dir, 'data', 'storefront.db'))
  db.query('update orders set expires_at = ? where id = ?').run(Date.now() - 1000, order.id)
  db.close()
  const second = await startExecutable(bin, dir, ['--rate-limit-rps', '0'])
  servers.push(second)
  call = overHttp(second.base)
  const again = await expectOk(call('GET', `/v1/store/orders/${order.id}`, { headers: apiKey(key) }))
  expect(again).toMatchObject({ status: 'CANCELLED', cancelReason: 'EXPIRED' })
  expect(await expectOk(call('GET', `/v1/variants/${product.variants[0].id}`, { headers: apiKey(key) }))).toMatchObject({ stock: 3, reserved: 0, available: 3 })
})
