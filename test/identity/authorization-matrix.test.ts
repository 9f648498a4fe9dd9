import { describe, expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { authMacro } from '../../src/kernel/auth/macro'
import { RouteTable, type RouteEntry } from '../../src/kernel/http/route-table'
import { createTestApp } from '../helpers/app'
import { BODY_OF, matrixWorld, pathFor, type World } from '../helpers/rich-world'
import { admin, apiKey, bearer, twoStores } from '../helpers/world'

/**
 * Every route of the app, taken from its own route table, against every kind of credential. A route
 * added later is covered without editing this file; one with a new kind of path parameter makes the
 * test fail until a fixture for it is added to ID_OF in helpers/rich-world.ts.
 */
function bodyFor(route: RouteEntry, hasStoreIds: boolean): unknown {
  if (!route.body || !hasStoreIds) return undefined
  const key = `${route.method} ${route.path}`
  if (!(key in BODY_OF)) throw new Error(`add a valid body to BODY_OF for ${key}`)
  return BODY_OF[key]
}

/** Routes whose ids are global (teacher routes): no store owns them, so no cross-store rule applies. */
const storeScoped = (route: RouteEntry) => route.auth !== 'admin' && route.auth !== undefined

type Credential = { name: string; headers: (w: World, route: RouteEntry) => Record<string, string> }

const malformed = (route: RouteEntry): Record<string, string> => {
  switch (route.auth) {
    case 'admin':
      return { 'x-admin-token': 'not-the-teacher-token' }
    case 'student':
    case 'studentSelf':
      return bearer('stu_thisisnotarealtoken')
    case 'customer':
      return { ...apiKey('sk_abcdefgh_not0a0real0key0000000000000000000'), ...bearer('ctk_nope') }
    default:
      return apiKey('garbage')
  }
}

// Store B's columns run before store A's, so A's resources still exist when B tries them.
const CREDENTIALS: Credential[] = [
  { name: 'no credential', headers: () => ({}) },
  { name: 'malformed', headers: (_, route) => malformed(route) },
  { name: 'revoked key', headers: (w) => apiKey(w.A.revoked.apiKey) },
  { name: 'key of store B', headers: (w) => apiKey(w.B.key.apiKey) },
  { name: 'publishable key of store B', headers: (w) => apiKey(w.publishable.B.apiKey) },
  { name: 'student of store B', headers: (w) => bearer(w.B.student) },
  { name: 'customer of store B', headers: (w) => ({ ...apiKey(w.B.key.apiKey), ...bearer(w.B.customer.token) }) },
  { name: 'customer of store B with publishable key', headers: (w) => ({ ...apiKey(w.publishable.B.apiKey), ...bearer(w.B.customer.token) }) },
  { name: 'student who must change password', headers: (w) => bearer(w.A.mustChange) },
  { name: 'admin', headers: () => admin },
  { name: 'publishable key of store A', headers: (w) => apiKey(w.publishable.A.apiKey) },
  { name: 'customer of store A with publishable key', headers: (w) => ({ ...apiKey(w.publishable.A.apiKey), ...bearer(w.A.customer.token) }) },
  { name: 'key of store A', headers: (w) => apiKey(w.A.key.apiKey) },
  { name: 'customer of store A', headers: (w) => ({ ...apiKey(w.A.key.apiKey), ...bearer(w.A.customer.token) }) },
  { name: 'student', headers: (w) => bearer(w.A.student) },
]

type Expectation = { status: number; code: string } | 'allowed' | 'not found'

/** What each kind of route must answer to each credential. */
function expected(route: RouteEntry, credential: string, hasStoreIds: boolean): Expectation {
  const unauthenticated = { status: 401, code: 'UNAUTHENTICATED' }
  const wrong = { status: 401, code: 'WRONG_CREDENTIAL' }
  const secretOnly = { status: 403, code: 'SECRET_KEY_REQUIRED' }
  // Routes that take no store key at all refuse both kinds alike.
  const noKeys = {
    'publishable key of store B': wrong, 'customer of store B with publishable key': wrong,
    'publishable key of store A': wrong, 'customer of store A with publishable key': wrong,
  }
  const otherStore: Expectation = hasStoreIds ? 'not found' : 'allowed'
  const kind = route.auth
  if (kind === undefined) return 'allowed'
  if (credential === 'no credential' || credential === 'malformed') return unauthenticated
  // Both kinds of route that a secret key or a student token opens answer those the same way.
  const secretKeyOrStudent: Record<string, Expectation> = {
    'revoked key': unauthenticated, 'key of store B': otherStore, 'student of store B': otherStore,
    // With the key present, the customer token in Authorization is not needed and not looked at.
    'customer of store B': otherStore,
    'student who must change password': { status: 403, code: 'PASSWORD_CHANGE_REQUIRED' }, admin: wrong,
    'key of store A': 'allowed', 'customer of store A': 'allowed', student: 'allowed',
  }
  const table: Record<string, Record<string, Expectation>> = {
    admin: {
      ...noKeys,
      'revoked key': wrong, 'key of store B': wrong, 'student of store B': wrong, 'customer of store B': wrong,
      'student who must change password': wrong, admin: 'allowed', 'key of store A': wrong,
      'customer of store A': wrong, student: wrong,
    },
    shop: {
      ...secretKeyOrStudent,
      'publishable key of store B': otherStore, 'customer of store B with publishable key': otherStore,
      'publishable key of store A': 'allowed', 'customer of store A with publishable key': 'allowed',
    },
    secret: {
      ...secretKeyOrStudent,
      // Refused for its kind before any id is looked up, so store B's key learns nothing of A's ids either.
      'publishable key of store B': secretOnly, 'customer of store B with publishable key': secretOnly,
      'publishable key of store A': secretOnly, 'customer of store A with publishable key': secretOnly,
    },
    student: {
      ...noKeys,
      'revoked key': wrong, 'key of store B': wrong, 'student of store B': otherStore, 'customer of store B': wrong,
      'student who must change password': { status: 403, code: 'PASSWORD_CHANGE_REQUIRED' }, admin: wrong,
      'key of store A': wrong, 'customer of store A': wrong, student: 'allowed',
    },
    studentSelf: {
      ...noKeys,
      'revoked key': wrong, 'key of store B': wrong, 'student of store B': otherStore, 'customer of store B': wrong,
      'student who must change password': 'allowed', admin: wrong,
      'key of store A': wrong, 'customer of store A': wrong, student: 'allowed',
    },
    customer: {
      'revoked key': unauthenticated, 'key of store B': unauthenticated, 'student of store B': wrong,
      'customer of store B': otherStore, 'student who must change password': wrong, admin: wrong,
      'key of store A': unauthenticated, 'customer of store A': 'allowed', student: wrong,
      'publishable key of store B': unauthenticated, 'customer of store B with publishable key': otherStore,
      'publishable key of store A': unauthenticated, 'customer of store A with publishable key': 'allowed',
    },
  }
  return table[kind]![credential]!
}

async function runMatrix(t: ReturnType<typeof createTestApp>, world: World, all: RouteEntry[]) {
    const failures: string[] = []
    let checked = 0
    for (const route of all) {
      const hasStoreIds = storeScoped(route) && route.path.includes('/:')
      const path = pathFor(route, world)
      const body = bodyFor(route, hasStoreIds)
      for (const credential of CREDENTIALS) {
        const want = expected(route, credential.name, hasStoreIds)
        const res = await t.call(route.method, path, { headers: credential.headers(world, route), body })
        checked++
        const got = `${res.status} ${res.body?.error?.code ?? ''}`
        const ok =
          want === 'allowed'
            ? res.status !== 401 && res.status !== 403 && res.status < 500
            : want === 'not found'
              ? res.status === 404 && res.body.error.code === 'NOT_FOUND'
              : res.status === want.status && res.body?.error?.code === want.code
        if (!ok) failures.push(`${route.method} ${route.path} with ${credential.name}: expected ${JSON.stringify(want)}, got ${got}`)
      }
    }
    expect(failures).toEqual([])
    expect(checked).toBe(all.length * CREDENTIALS.length)
}

/** One route of each store kind without ids, so that the "no id to look up" column of each kind is proven too. */
const probes = new Elysia({ prefix: '/v1/probe' })
  .use(authMacro)
  .get('/shop', ({ ctx }) => ({ storeId: ctx.storeId, actor: ctx.actor.type }), { auth: 'shop' })
  .get('/secret', ({ ctx }) => ({ storeId: ctx.storeId, actor: ctx.actor.type }), { auth: 'secret' })
  .post('/customer', ({ ctx }) => ({ storeId: ctx.storeId, actor: ctx.actor.type }), { auth: 'customer' })

/** Everything a shop front in a browser needs, and nothing more: the routes a publishable key opens. */
const SHOP_FRONT = [
  'GET /v1/products', 'GET /v1/products/:id', 'GET /v1/variants/:id',
  'GET /v1/categories', 'GET /v1/categories/:id', 'GET /v1/brands', 'GET /v1/brands/:id', 'GET /v1/collections', 'GET /v1/collections/:id',
  'GET /v1/products/:id/reviews',
  'POST /v1/customers/register', 'POST /v1/customers/login', 'GET /v1/customers/me',
  'GET /v1/cart', 'POST /v1/cart/items', 'PATCH /v1/cart/items/:id', 'DELETE /v1/cart/items/:id',
  'POST /v1/orders/checkout', 'POST /v1/orders/:id/pay', 'POST /v1/orders/:id/cancel', 'GET /v1/orders', 'GET /v1/orders/:id',
  'GET /v1/products/:id/reviews/can-review', 'POST /v1/products/:id/reviews', 'PATCH /v1/reviews/:id', 'DELETE /v1/reviews/:id', 'GET /v1/me/reviews',
]

describe('authorization matrix over the route table', () => {
  test('every route answers every credential as its declared kind requires', async () => {
    const t = createTestApp({ settings: { rateLimitRps: '0' } })
    const world = await matrixWorld(t)
    const routes = new RouteTable()
    routes.fill(t.app.routes)
    const all = routes.all()
    // The table is the app's: it holds the routes of every feature mounted so far.
    expect(all.map((r) => `${r.method} ${r.path}`)).toContain('DELETE /v1/store/api-keys/:id')
    expect(all.filter((r) => r.auth === undefined).map((r) => r.path).sort()).toEqual(
      ['/docs', '/docs/assets/scalar.js', '/health', '/openapi.json', '/panel', '/panel/:name', '/v1/files/:storeId/:name', '/v1/store/auth/login'].sort(),
    )
    const opensToPublishable = all.filter((r) => r.auth === 'shop' || r.auth === 'customer').map((r) => `${r.method} ${r.path}`)
    expect(opensToPublishable.sort()).toEqual([...SHOP_FRONT].sort())
    await runMatrix(t, world, all)
  })

  test('each store kind hands the handler the right store and actor', async () => {
    const t = createTestApp({ settings: { rateLimitRps: '0' }, extraRoutes: probes })
    const world = await matrixWorld(t)
    const routes = new RouteTable()
    routes.fill(t.app.routes)
    await runMatrix(t, world, routes.all().filter((r) => r.path.startsWith('/v1/probe')))
    const A = world.A.group.storeId
    const B = world.B.group.storeId
    const seen = async (method: string, path: string, headers: Record<string, string>) => (await t.call(method, path, { headers })).body
    expect(await seen('GET', '/v1/probe/shop', apiKey(world.publishable.B.apiKey))).toEqual({ storeId: B, actor: 'publishableKey' })
    expect(await seen('GET', '/v1/probe/shop', apiKey(world.B.key.apiKey))).toEqual({ storeId: B, actor: 'secretKey' })
    expect(await seen('GET', '/v1/probe/secret', apiKey(world.B.key.apiKey))).toEqual({ storeId: B, actor: 'secretKey' })
    expect(await seen('GET', '/v1/probe/secret', bearer(world.A.student))).toEqual({ storeId: A, actor: 'student' })
    const customer = { ...apiKey(world.publishable.A.apiKey), ...bearer(world.A.customer.token) }
    expect(await seen('POST', '/v1/probe/customer', customer)).toEqual({ storeId: A, actor: 'customer' })
    // A customer token works only with its own store's key, of either kind.
    for (const key of [world.B.key.apiKey, world.publishable.B.apiKey]) {
      const mixed = await t.call('POST', '/v1/probe/customer', { headers: { ...apiKey(key), ...bearer(world.A.customer.token) } })
      expect(mixed.status).toBe(401)
      expect(mixed.body.error.message).toContain('not valid for this store')
    }
  })

  test("another store's id is a 404 exactly like an unknown id, and changes nothing", async () => {
    const t = createTestApp({ settings: { rateLimitRps: '0' } })
    const w = await twoStores(t.call, t.deps)
    const cases = [
      { path: (id: string) => `/v1/store/api-keys/${id}`, theirs: w.A.spareKey.id, unknown: 'key_doesnotexist000000' },
      { path: (id: string) => `/v1/store/members/${id}`, theirs: w.A.rms.spare, unknown: 'zz9999' },
    ]
    for (const c of cases) {
      const cross = await t.call('DELETE', c.path(c.theirs), { headers: bearer(w.B.student) })
      const unknown = await t.call('DELETE', c.path(c.unknown), { headers: bearer(w.B.student) })
      expect(cross.status).toBe(404)
      expect(cross.body.error.code).toBe(unknown.body.error.code)
      expect(cross.body.error.message.replace(c.theirs, 'X')).toBe(unknown.body.error.message.replace(c.unknown, 'X'))
    }
    // A is unchanged: its spare key still works and its spare member is still listed.
    const keys = await t.call('GET', '/v1/store/api-keys', { headers: bearer(w.A.student) })
    expect(keys.body.data.map((k: any) => k.id)).toContain(w.A.spareKey.id)
    const members = await t.call('GET', '/v1/store/members', { headers: bearer(w.A.student) })
    expect(members.body.data.map((m: any) => m.rm)).toContain(w.A.rms.spare)
  })
})
