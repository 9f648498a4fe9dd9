import { describe, expect, test } from 'bun:test'
import { createTestApp } from '../helpers/app'
import { BODY_OF, matrixWorld, type World } from '../helpers/rich-world'
import { apiKey, bearer } from '../helpers/world'
import { LONG, operationsOf, type Operation } from './openapi-ops'
import { storeSnapshot } from './snapshot'

/**
 * Cross-store attacks: store B, with each of its own credentials, tries every operation of
 * the OpenAPI document on store A's ids — the ids B would have to guess, and every id and URL that
 * appears in A's answers (A "leaks" all of them to B here) — and asks every list with A's ids as
 * filters. Every try is a 404 NOT_FOUND, no answer to B contains anything of A's, and A is unchanged.
 * The operations and A's ids come from the app itself, so routes merged later are attacked too.
 */
const ID = /^[a-z]{2,5}_[0-9a-z]{12,}$/
const PATH = /\/v1\/[^\s"'?#]+/g

/** A path that names something of a store's: one of its segments is an id (a bare list path like /v1/products names nothing). */
const namesSomething = (path: string) => path.split('/').some((segment) => ID.test(segment))

/** Every id and every /v1/ path naming something in a JSON value. */
function harvest(value: unknown, into: { ids: Set<string>; paths: Set<string>; rms: Set<string> }, key = '') {
  if (typeof value === 'string') {
    if (ID.test(value)) into.ids.add(value)
    for (const m of value.match(PATH) ?? []) if (namesSomething(m)) into.paths.add(m)
    if (key === 'rm' || key === 'createdBy') into.rms.add(value)
  } else if (Array.isArray(value)) value.forEach((v) => harvest(v, into, key))
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) harvest(v, into, k)
}

function ownCredential(auth: string | undefined, w: World): Record<string, string> {
  if (auth === 'student' || auth === 'studentSelf') return bearer(w.A.student)
  if (auth === 'customer') return { ...apiKey(w.A.key.apiKey), ...bearer(w.A.customer.token) }
  return apiKey(w.A.key.apiKey)
}

/** B's credentials that the route accepts. */
function attackerCredentials(auth: string | undefined, w: World): Record<string, string>[] {
  if (auth === 'student' || auth === 'studentSelf') return [bearer(w.B.student)]
  if (auth === 'customer') return [w.B.key.apiKey, w.publishable.B.apiKey].map((key) => ({ ...apiKey(key), ...bearer(w.B.customer.token) }))
  if (auth === 'shop') return [apiKey(w.B.key.apiKey), apiKey(w.publishable.B.apiKey), bearer(w.B.student)]
  return [apiKey(w.B.key.apiKey), bearer(w.B.student)]
}

/** The forms of an id an attacker tries: as seen, and as a guesser would bend it. */
const guesses = (id: string) => (LONG ? [id, id.toUpperCase(), `${id} `, `${id}/`, `${id}%00`, `${id.slice(0, -1)}${id.endsWith('0') ? '1' : '0'}`] : [id, id.toUpperCase()])

const storeScoped = (op: Operation) => op.auth !== undefined && op.auth !== 'admin'

describe(`cross-store attacks${LONG ? ' (long)' : ''}`, () => {
  test("with store B's credentials, every operation on A's ids and URLs is a 404, B sees nothing of A, and A is unchanged", async () => {
    const t = createTestApp({ settings: { rateLimitRps: '0' } })
    const w = await matrixWorld(t)
    const doc = (await t.call('GET', '/openapi.json')).body
    const ops = operationsOf(doc).filter(storeScoped)

    // A reads everything it can see; everything that names something of A's is what B gets to try.
    const found = { ids: new Set<string>(), paths: new Set<string>(), rms: new Set<string>() }
    const { B: _b, publishable, ...rest } = w
    harvest({ ...rest, publishableA: publishable.A }, found)
    for (const op of ops.filter((o) => o.method === 'GET' && !o.path.includes(':'))) {
      harvest((await t.call('GET', op.path, { headers: ownCredential(op.auth, w) })).body, found)
    }
    for (const op of ops.filter((o) => o.method === 'GET' && o.path.split(':').length === 2)) {
      for (const id of found.ids) {
        const res = await t.call('GET', op.path.replace(/:[^/]+/, encodeURIComponent(id)), { headers: ownCredential(op.auth, w) })
        if (res.status === 200) harvest(res.body, found)
      }
    }
    // What is B's own (its ids, its members' rms) is not an attack.
    const ofB = { ids: new Set<string>(), paths: new Set<string>(), rms: new Set<string>() }
    harvest(w.B, ofB)
    for (const id of ofB.ids) found.ids.delete(id)
    for (const rm of ofB.rms) found.rms.delete(rm)
    expect(found.ids.size).toBeGreaterThan(10)
    expect([...found.paths].some((p) => p.startsWith('/v1/files/'))).toBe(true)

    t.deps.activity.flush()
    const storeA = { storeId: w.A.group.storeId, groupId: w.A.group.id }
    const before = storeSnapshot(t.database.sqlite, storeA)
    const secretsOfA = [...found.ids, ...found.rms].filter((s) => s.length >= 5)
    const failures: string[] = []
    let tries = 0
    const attack = async (op: Operation, path: string, headers: Record<string, string>, body: unknown, expectNotFound: boolean) => {
      const res = await t.call(op.method, path, { headers, body })
      tries++
      const leaked = secretsOfA.filter((s) => res.text.includes(s) && !decodeURIComponent(path).includes(s))
      if (leaked.length) failures.push(`${op.method} ${path}: B's answer contains A's ${leaked.join(', ')}`)
      if (expectNotFound && (res.status !== 404 || res.body?.error?.code !== 'NOT_FOUND')) {
        failures.push(`${op.method} ${path}: expected 404 NOT_FOUND, got ${res.status} ${res.text.slice(0, 160)}`)
      }
    }

    // 1. By id: every operation with a path parameter, on every id (and rm) of A's.
    for (const op of ops.filter((o) => o.path.includes('/:'))) {
      const values = op.path.includes(':rm') ? [...found.rms] : [...found.ids]
      const body = op.body ? BODY_OF[`${op.method} ${op.path}`] : undefined
      if (op.body?.type === 'json' && body === undefined) throw new Error(`add a valid body to BODY_OF for ${op.method} ${op.path}`)
      for (const value of values) {
        for (const guess of guesses(value)) {
          for (const headers of attackerCredentials(op.auth, w)) {
            await attack(op, op.path.replace(/:[^/]+/, encodeURIComponent(guess)), headers, body, true)
          }
        }
      }
    }

    // 2. By URL: every /v1/ path in A's answers, with every method the app has for it.
    for (const path of found.paths) {
      for (const op of ops.filter((o) => new RegExp('^' + o.path.replace(/:[^/]+/g, '[^/]+') + '$').test(path))) {
        const body = op.body ? BODY_OF[`${op.method} ${op.path}`] : undefined
        for (const headers of attackerCredentials(op.auth, w)) await attack(op, path, headers, body, true)
      }
    }

    // 3. Lists filtered by A's ids: answered (B's own, empty, or a 400/404), never with A's data.
    for (const op of ops.filter((o) => o.method === 'GET' && !o.path.includes(':'))) {
      const idParams = op.params.filter((p) => p.in === 'query' && /id$/i.test(p.name))
      for (const p of idParams) {
        for (const id of found.ids) {
          for (const headers of attackerCredentials(op.auth, w)) await attack(op, `${op.path}?${p.name}=${encodeURIComponent(id)}`, headers, undefined, false)
        }
      }
    }

    expect(failures.slice(0, 30)).toEqual([])
    if (process.env.DRILLS_VERBOSE) console.log({ ids: found.ids.size, rms: [...found.rms], paths: [...found.paths], tries })
    expect(tries).toBeGreaterThan(500)
    t.deps.activity.flush()
    expect(storeSnapshot(t.database.sqlite, storeA)).toEqual(before)
  }, LONG ? 600_000 : 60_000)
})
