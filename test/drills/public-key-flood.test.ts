import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { buildExecutable, emptyDir, type Running, startExecutable } from '../helpers/executable'
import { LONG } from './openapi-ops'
import { call, p95, steadyLoad } from './steady-load'

const bin = await buildExecutable()

/**
 * Public-key flood drill: a classmate copies a store's publishable key from its shop page and floods it
 * at 20 times the rate limit, naming a member of the group in X-Student-RM, while the same store's
 * server (secret key) and a student in its panel (student token) keep a normal load (two clients each),
 * all from the same loopback address. The server and the student get no 429 and keep a p95 latency within twice that of
 * a quiet run of their own; the flooder is answered 429; the activity report counts the flood for the
 * group's shop front and credits no student with it. The real server, default limits (50 requests/s,
 * burst 100). Quick: 3 s; DRILLS=long: 30 s.
 */
const SECONDS = LONG ? 30 : 3
const RATE = 50
const ADMIN = 'adm_public_key_flood_token_0123456789'
/** Below a few milliseconds, doubling is timer noise: the bound is never tighter than this. */
const NOISE_FLOOR_MS = 5
const WORKER = 'p2001'
/** The member the flood names: they make no call of their own. */
const NAMED = 'p2002'

/** One group with a student who has set a password, a secret and a publishable key, and a published product. */
async function store(server: Running) {
  const group = await call(server.base, 'POST', '/v1/admin/groups', { 'x-admin-token': ADMIN }, {
    name: 'Vitrine',
    members: [
      { rm: WORKER, name: 'Works' },
      { rm: NAMED, name: 'Named' },
    ],
  })
  const first = await call(server.base, 'POST', '/v1/store/auth/login', {}, { rm: WORKER, password: WORKER })
  const { token } = await call(server.base, 'POST', '/v1/store/auth/change-password', { authorization: `Bearer ${first.token}` }, { currentPassword: WORKER, newPassword: `${WORKER}-password` })
  const student = { authorization: `Bearer ${token}` }
  const secret = { 'x-api-key': (await call(server.base, 'POST', '/v1/store/api-keys', student, { name: 'server' })).apiKey as string }
  const publishable = (await call(server.base, 'POST', '/v1/store/api-keys', student, { name: 'shop page', kind: 'publishable' })).apiKey as string
  const product = await call(server.base, 'POST', '/v1/products', secret, { name: 'Caneca', sku: 'CANECA', price: 5, stock: 10, state: 'PUBLISHED' })
  return { groupId: group.id as string, student, secret, publishable, variantId: product.variants[0].id as string }
}

describe(`public-key flood drill (${SECONDS} s${LONG ? ', long' : ''})`, () => {
  test("a flood of a store's publishable key gets 429s while its secret key and a student token keep their quiet p95 within 2x, and no student is credited", async () => {
    const dir = emptyDir()
    const server = await startExecutable(bin, dir, ['--data', dir, '--admin-token', ADMIN])
    try {
      const s = await store(server)
      // Two clients of each credential: 40 requests/s in all, within the store's limit of 50.
      const clients = [s.secret, s.secret, s.student, s.student]
      const work = (seconds: number) => Promise.all(clients.map((headers) => steadyLoad(server.base, headers, s.variantId, seconds)))
      // Warm up (JIT, caches), then the quiet run.
      await work(0.5)
      const quiet = await work(SECONDS)
      const flood = Bun.spawn([process.execPath, join(import.meta.dir, 'flooder.ts'), server.base, s.publishable, String(RATE * 20), String(SECONDS), NAMED], {
        stdout: 'pipe',
        stderr: 'pipe',
      })
      const loud = await work(SECONDS)
      const [code, out] = await Promise.all([flood.exited, new Response(flood.stdout).text()])
      expect(code).toBe(0)
      const statuses = JSON.parse(out) as Record<string, number>

      const quietP95 = p95(quiet.flatMap((r) => r.latencies))
      const loudP95 = p95(loud.flatMap((r) => r.latencies))
      if (process.env.DRILLS_VERBOSE) console.log({ quietP95, loudP95, statuses })
      // Not one 429 (nor any other failure) for the store's server or its student.
      expect([...quiet, ...loud].flatMap((r) => r.errors)).toEqual([])
      expect(loudP95).toBeLessThanOrEqual(Math.max(2 * quietP95, NOISE_FLOOR_MS))
      // The flooder got its own bucket's share (the burst, then about its rate) and 429s for the rest.
      expect(statuses.error ?? 0).toBe(0)
      expect(statuses['429'] ?? 0).toBeGreaterThan((statuses['200'] ?? 0) * 5)
      expect(statuses['200'] ?? 0).toBeLessThanOrEqual(RATE * SECONDS + 100 + RATE)
      expect(statuses['200'] ?? 0).toBeGreaterThan(RATE * SECONDS * 0.5)

      // Every flooding call is the shop front's; the member it named has none.
      const report = await call(server.base, 'GET', `/v1/admin/activity?groupId=${s.groupId}`, { 'x-admin-token': ADMIN })
      const group = report.groups[0]
      const flooded = (statuses['200'] ?? 0) + (statuses['429'] ?? 0)
      expect(group.shopFront).toMatchObject({ calls: flooded, errors: statuses['429'] })
      expect(group.students.find((m: any) => m.rm === NAMED)).toEqual({ rm: NAMED, name: 'Named', calls: 0, errors: 0, lastCallAt: null })
      const board = await call(server.base, 'GET', '/v1/admin/board', { 'x-admin-token': ADMIN })
      expect(board.groups[0]).toMatchObject({ errorsToday: 0, errorRate: 0, shopFront: { callsToday: flooded, errorsToday: statuses['429'] } })
    } finally {
      await server.stop('SIGTERM')
    }
  }, LONG ? 120_000 : 30_000)
})
