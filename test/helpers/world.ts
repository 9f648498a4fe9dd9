import { expect } from 'bun:test'
import { join } from 'node:path'
import { hashToken, newCustomerToken, CUSTOMER_TOKEN_TTL_MS } from '../../src/kernel/auth/credentials'
import { customers, customerSessions } from '../../src/kernel/auth/tables'
import { writeTransaction } from '../../src/kernel/db/database'
import type { Deps } from '../../src/kernel/deps'
import { ADMIN_TOKEN, type CallResult, type caller } from './app'

type Call = ReturnType<typeof caller>

export const admin = { 'x-admin-token': ADMIN_TOKEN }
export const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
export const apiKey = (key: string) => ({ 'x-api-key': key })

export async function expectOk<T = any>(res: Promise<CallResult<T>> | CallResult<T>, status = 200): Promise<T> {
  const r = await res
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${r.text}`)
  return r.body
}

export async function createGroup(call: Call, name: string, members: { rm: string; name: string }[]) {
  return expectOk(call('POST', '/v1/admin/groups', { headers: admin, body: { name, members } }), 201)
}

/** Logs in with the initial password (the RM): the token still must change the password. */
export async function firstLogin(call: Call, rm: string): Promise<string> {
  const body = await expectOk(call('POST', '/v1/store/auth/login', { body: { rm, password: rm } }))
  expect(body.mustChangePassword).toBe(true)
  return body.token
}

export const passwordOf = (rm: string) => `pw-${rm}-secret`

/** Logs in and changes the password (to `password`): a token that opens every panel route. */
export async function activeStudent(call: Call, rm: string, password = passwordOf(rm)): Promise<string> {
  const first = await firstLogin(call, rm)
  const changed = await expectOk(
    call('POST', '/v1/store/auth/change-password', { headers: bearer(first), body: { currentPassword: rm, newPassword: password } }),
  )
  return changed.token
}

/** A secret key, or with `kind` a key of that kind (without it the body leaves `kind` out: secret is the default). */
export async function createKey(call: Call, studentToken: string, name = 'app', kind?: 'secret' | 'publishable') {
  return expectOk<{ id: string; apiKey: string; prefix: string; kind: string }>(
    call('POST', '/v1/store/api-keys', { headers: bearer(studentToken), body: kind ? { name, kind } : { name } }),
    201,
  )
}

export const FIXTURES = join(import.meta.dir, '..', 'fixtures', 'media')

/** A multipart form with one fixture file in `field` (the API wants 'file'). */
export function formWith(fixture: string, field = 'file', extra: Record<string, string> = {}) {
  const form = new FormData()
  form.append(field, Bun.file(join(FIXTURES, fixture)), fixture)
  for (const [k, v] of Object.entries(extra)) form.append(k, v)
  return form
}

export async function upload(call: Call, headers: Record<string, string>, fixture = 'sample.png') {
  return expectOk(call('POST', '/v1/uploads', { headers, raw: formWith(fixture) }), 201)
}

/** A customer with a session, written directly: a test needs only the store id (registering through the API takes an API key). */
export async function createCustomer(deps: Deps, storeId: string, email = 'buyer@example.com') {
  const id = deps.ids.next('cus')
  const now = deps.clock.now()
  const passwordHash = await deps.passwords.hash(storeId, 'buyer-password')
  const token = newCustomerToken()
  writeTransaction(deps.db, (tx) => {
    tx.insert(customers).values({ id, storeId, email, name: 'Buyer', passwordHash, createdAt: now }).run()
    tx.insert(customerSessions).values({ tokenHash: hashToken(token), customerId: id, storeId, createdAt: now, expiresAt: now + CUSTOMER_TOKEN_TTL_MS }).run()
  })
  return { id, token }
}

/**
 * A group with: an active student, a student who still must change the password, a spare member, a
 * working key, a spare key and a revoked key, and a customer.
 */
export async function oneStore(call: Call, deps: Deps, tag: string) {
  const rms = { active: `${tag}1001`, fresh: `${tag}1002`, spare: `${tag}1003` }
  const group = await createGroup(call, `Group ${tag.toUpperCase()}`, [
    { rm: rms.active, name: `Active ${tag}` },
    { rm: rms.fresh, name: `Fresh ${tag}` },
    { rm: rms.spare, name: `Spare ${tag}` },
  ])
  const student = await activeStudent(call, rms.active)
  const mustChange = await firstLogin(call, rms.fresh)
  const key = await createKey(call, student, 'main')
  const spareKey = await createKey(call, student, 'spare')
  const revoked = await createKey(call, student, 'revoked')
  await expectOk(call('DELETE', `/v1/store/api-keys/${revoked.id}`, { headers: bearer(student) }), 204)
  const customer = await createCustomer(deps, group.storeId)
  const media = await upload(call, apiKey(key.apiKey))
  return { group, rms, student, mustChange, key, spareKey, revoked, customer, media }
}

/** Two such groups, A and B. */
export async function twoStores(call: Call, deps: Deps) {
  return { A: await oneStore(call, deps, 'a'), B: await oneStore(call, deps, 'b') }
}
