import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { buildExecutable, emptyDir, type Running, startExecutable } from '../helpers/executable'
import { LONG } from './openapi-ops'
import { call, p95, steadyLoad } from './steady-load'

const bin = await buildExecutable()

/**
 * Flood drill: one store sends 20 times its rate limit while four others
 * run a normal load; the four keep a p95 latency within twice that of a quiet run, and the flooder
 * is answered 429. The real server, default limits (50 requests/s, burst 100), all on loopback.
 * Quick: 3 s; DRILLS=long: 30 s.
 */
const SECONDS = LONG ? 30 : 3
const RATE = 50
const ADMIN = 'adm_flood_drill_token_0123456789'
/** Below a few milliseconds, doubling is timer noise: the bound is never tighter than this. */
const NOISE_FLOOR_MS = 5

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
  test('a store sending 20x its rate limit gets 429s while four others keep their quiet p95 within 2x', async () => {
    const dir = emptyDir()
    const server = await startExecutable(bin, dir, ['--data', dir, '--admin-token', ADMIN])
    try {
      const stores = []
      for (let n = 0; n < 5; n++) stores.push(await storeKey(server, n))
      const [flooder, ...normal] = stores
      // Warm up (JIT, caches), then the quiet run.
      await Promise.all(normal.map((s) => steadyLoad(server.base, s.key, s.variantId, 0.5)))
      const quiet = await Promise.all(normal.map((s) => steadyLoad(server.base, s.key, s.variantId, SECONDS)))
      const flood = Bun.spawn([process.execPath, join(import.meta.dir, 'flooder.ts'), server.base, flooder!.key['x-api-key'], String(RATE * 20), String(SECONDS)], {
        stdout: 'pipe',
        stderr: 'pipe',
      })
      const loud = await Promise.all(normal.map((s) => steadyLoad(server.base, s.key, s.variantId, SECONDS)))
      const [code, out] = await Promise.all([flood.exited, new Response(flood.stdout).text()])
      expect(code).toBe(0)
      const statuses = JSON.parse(out) as Record<string, number>

      const quietP95 = p95(quiet.flatMap((r) => r.latencies))
      const loudP95 = p95(loud.flatMap((r) => r.latencies))
      if (process.env.DRILLS_VERBOSE) console.log({ quietP95, loudP95, statuses })
      expect([...quiet, ...loud].flatMap((r) => r.errors)).toEqual([])
      expect(loudP95).toBeLessThanOrEqual(Math.max(2 * quietP95, NOISE_FLOOR_MS))
      // The flooder got its share (the burst, then about its rate) and 429s for the rest.
      expect(statuses['429'] ?? 0).toBeGreaterThan((statuses['200'] ?? 0) * 5)
      expect(statuses['200'] ?? 0).toBeLessThanOrEqual(RATE * SECONDS + 100 + RATE)
      expect(statuses['200'] ?? 0).toBeGreaterThan(RATE * SECONDS * 0.5)
    } finally {
      await server.stop('SIGTERM')
    }
  }, LONG ? 120_000 : 30_000)
})
