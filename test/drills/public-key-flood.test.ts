import { describe, expect, test } from 'bun:test'
import { buildExecutable, emptyDir, type Running, startExecutable } from '../helpers/executable'
import { limit } from '../helpers/limits'
import { LONG } from './openapi-ops'
import { call, expectFloodContained, steadyLoad } from './steady-load'

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
const ADMIN = 'adm_public_key_flood_token_0123456789'
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
  test("a flood of a store's publishable key gets 429s while its secret key and a student token keep their p95 within twice the quiet one plus the quiet runs' own spread, and no student is credited", async () => {
    const dir = emptyDir()
    const server = await startExecutable(bin, dir, ['--data', dir, '--admin-token', ADMIN])
    try {
      const s = await store(server)
      // Two clients of each credential: 40 requests/s in all, within the store's limit of 50.
      const clients = [s.secret, s.secret, s.student, s.student]
      // Not one 429 (nor any other failure) for the store's server or its student.
      const statuses = await expectFloodContained(
        server.base,
        s.publishable,
        SECONDS,
        (seconds) => Promise.all(clients.map((headers) => steadyLoad(server.base, headers, s.variantId, seconds))),
        NAMED,
      )

      // Every flooding call is the shop front's; the member it named has none.
      const report = await call(server.base, 'GET', `/v1/admin/activity?groupId=${s.groupId}`, { 'x-admin-token': ADMIN })
      const group = report.groups[0]
      const flooded = (statuses['200'] ?? 0) + (statuses['429'] ?? 0)
      expect(group.shopFront).toMatchObject({ calls: flooded, errors: statuses['429'] })
      expect(group.students.find((m: any) => m.rm === NAMED)).toEqual({ rm: NAMED, name: 'Named', member: true, calls: 0, errors: 0, lastCallAt: null })
      const board = await call(server.base, 'GET', '/v1/admin/board', { 'x-admin-token': ADMIN })
      expect(board.groups[0]).toMatchObject({ errorsToday: 0, errorRate: 0, shopFront: { callsToday: flooded, errorsToday: statuses['429'] } })
    } finally {
      await server.stop('SIGTERM')
    }
  }, limit(LONG ? 240_000 : 45_000))
})
