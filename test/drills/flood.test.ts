import { describe, test } from 'bun:test'
import { buildExecutable, emptyDir, type Running, startExecutable } from '../helpers/executable'
import { limit } from '../helpers/limits'
import { LONG } from './openapi-ops'
import { call, expectFloodContained, steadyLoad } from './steady-load'

const bin = await buildExecutable()

/**
 * Flood drill: one store sends 20 times its rate limit while four others
 * run a normal load; the four keep a p95 latency within twice that of a quiet run (plus the spread of two quiet runs), and the flooder
 * is answered 429. The real server, default limits (50 requests/s, burst 100), all on loopback.
 * Quick: 3 s; DRILLS=long: 30 s.
 */
const SECONDS = LONG ? 30 : 3
const ADMIN = 'adm_flood_drill_token_0123456789'

async function storeKey(server: Running, n: number) {
  const rm = `f${1000 + n}`
  await call(server.base, 'POST', '/v1/admin/groups', { 'x-admin-token': ADMIN }, { name: `Flood ${n}`, members: [{ rm, name: `F ${n}` }] })
  const first = await call(server.base, 'POST', '/v1/store/auth/login', {}, { rm, password: rm })
  const { token } = await call(server.base, 'POST', '/v1/store/auth/change-password', { authorization: `Bearer ${first.token}` }, { currentPassword: rm, newPassword: `${rm}-password` })
  const { apiKey } = await call(server.base, 'POST', '/v1/store/api-keys', { authorization: `Bearer ${token}` }, { name: 'load' })
  const key = { 'x-api-key': apiKey as string }
  const product = await call(server.base, 'POST', '/v1/products', key, { name: `P ${n}`, sku: `P-${n}`, price: 5, stock: 10 })
  return { key, variantId: product.variants[0].id as string }
}

describe(`flood drill (${SECONDS} s${LONG ? ', long' : ''})`, () => {
  test("a store sending 20x its rate limit gets 429s while four others keep their p95 within twice the quiet one plus the quiet runs' own spread", async () => {
    const dir = emptyDir()
    const server = await startExecutable(bin, dir, ['--data', dir, '--admin-token', ADMIN])
    try {
      const stores = []
      for (let n = 0; n < 5; n++) stores.push(await storeKey(server, n))
      const [flooder, ...normal] = stores
      await expectFloodContained(server.base, flooder!.key['x-api-key'], SECONDS, (seconds) =>
        Promise.all(normal.map((s) => steadyLoad(server.base, s.key, s.variantId, seconds))),
      )
    } finally {
      await server.stop('SIGTERM')
    }
  }, limit(LONG ? 240_000 : 45_000))
})
