import { describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { students } from '../../src/kernel/auth/tables'
import { API_KEY_FORMAT } from '../../src/kernel/auth/credentials'
import { MAX_ACTIVE_KEYS } from '../../src/features/api-keys/service'
import { removeMember } from '../../src/features/members/service'
import { createTestApp } from '../helpers/app'
import { activeStudent, admin, apiKey, bearer, createGroup, createKey, expectOk, firstLogin, passwordOf } from '../helpers/world'

async function oneGroup() {
  const t = createTestApp()
  const group = await createGroup(t.call, 'Azul', [
    { rm: '111', name: 'Ana' },
    { rm: '222', name: 'Bruno' },
  ])
  return { ...t, group }
}

describe('login and password', () => {
  test('the first login uses the RM as password and must change it', async () => {
    const { call, clock } = await oneGroup()
    const res = await call('POST', '/v1/store/auth/login', { body: { rm: '111', password: '111' } })
    expect(res.status).toBe(200)
    expect(res.body.token).toMatch(/^stu_[0-9a-z]{40}$/)
    expect(res.body.student).toEqual({ rm: '111', name: 'Ana', group: 'Azul' })
    expect(res.body.mustChangePassword).toBe(true)
    expect(res.body.expiresAt).toBe(new Date(clock.now() + 24 * 3600_000).toISOString())
  })

  test('a wrong password and an unknown RM get the same 401', async () => {
    const { call } = await oneGroup()
    const wrong = await call('POST', '/v1/store/auth/login', { body: { rm: '111', password: 'nope' } })
    const unknown = await call('POST', '/v1/store/auth/login', { body: { rm: '999', password: '999' } })
    expect(wrong.status).toBe(401)
    expect(wrong.body).toEqual(unknown.body)
    expect(wrong.body.error.message).toBe('RM or password is wrong. The first password is your RM; the teacher can reset it.')
  })

  test('until the password is changed only me and change-password answer', async () => {
    const { call } = await oneGroup()
    const token = await firstLogin(call, '111')
    const me = await call('GET', '/v1/store/auth/me', { headers: bearer(token) })
    expect(me.body).toEqual({
      student: { rm: '111', name: 'Ana', group: 'Azul' },
      mustChangePassword: true,
      store: { id: expect.stringMatching(/^str_/), storeName: 'Azul' },
    })
    const settings = await call('GET', '/v1/store/settings', { headers: bearer(token) })
    expect(settings.status).toBe(403)
    expect(settings.body.error.code).toBe('PASSWORD_CHANGE_REQUIRED')
    expect(settings.body.error.message).toContain('POST /v1/store/auth/change-password')
  })

  test('change-password checks the rules, returns a fresh token and ends every other session', async () => {
    const { call } = await oneGroup()
    const first = await firstLogin(call, '111')
    const other = await firstLogin(call, '111')
    const change = (body: object) => call('POST', '/v1/store/auth/change-password', { headers: bearer(first), body })

    const wrongCurrent = await change({ currentPassword: 'x', newPassword: 'long-enough-1' })
    expect([wrongCurrent.status, wrongCurrent.body.error.details]).toEqual([400, [{ path: 'currentPassword', message: 'does not match your password' }]])
    const short = await change({ currentPassword: '111', newPassword: 'short' })
    expect(short.body.error.details).toEqual([{ path: 'newPassword', message: 'newPassword needs at least 8 characters' }])
    const rm = await call('POST', '/v1/store/auth/change-password', { headers: bearer(first), body: { currentPassword: '111', newPassword: '11111111' } })
    expect(rm.status).toBe(200) // differs from the RM '111'
    const sameAsRm = await call('POST', '/v1/store/auth/change-password', {
      headers: bearer(rm.body.token),
      body: { currentPassword: '11111111', newPassword: '11111111' },
    })
    expect(sameAsRm.body.error.details).toEqual([{ path: 'newPassword', message: 'must differ from the current password' }])

    expect(rm.body.mustChangePassword).toBe(false)
    expect(rm.body.token).not.toBe(first)
    for (const old of [first, other]) {
      const res = await call('GET', '/v1/store/auth/me', { headers: bearer(old) })
      expect(res.status).toBe(401)
      expect(res.body.error.code).toBe('UNAUTHENTICATED')
    }
    expect((await call('GET', '/v1/store/settings', { headers: bearer(rm.body.token) })).status).toBe(200)
    const again = await call('POST', '/v1/store/auth/login', { body: { rm: '111', password: '11111111' } })
    expect(again.body.mustChangePassword).toBe(false)
    expect((await call('POST', '/v1/store/auth/login', { body: { rm: '111', password: '111' } })).status).toBe(401)
  })

  test('the new password may not be the RM, with spaces around it or not', async () => {
    const t = createTestApp()
    await createGroup(t.call, 'Long', [{ rm: 'rm-12345678', name: 'Long RM' }])
    const token = await firstLogin(t.call, 'rm-12345678')
    for (const newPassword of ['rm-12345678', ' rm-12345678 ', '\tRM-12345678']) {
      const res = await t.call('POST', '/v1/store/auth/change-password', { headers: bearer(token), body: { currentPassword: 'rm-12345678', newPassword } })
      expect([res.status, res.body.error.details]).toEqual([400, [{ path: 'newPassword', message: 'must differ from the RM' }]])
      expect(res.body.error.message).toBe('newPassword must differ from your RM, which everyone in class knows (spaces around it do not count).')
    }
  })

  test('a student token expires after 24 hours', async () => {
    const { call, clock } = await oneGroup()
    const token = await activeStudent(call, '111')
    clock.advance(24 * 3600_000 - 1)
    expect((await call('GET', '/v1/store/auth/me', { headers: bearer(token) })).status).toBe(200)
    clock.advance(1)
    const res = await call('GET', '/v1/store/auth/me', { headers: bearer(token) })
    expect(res.status).toBe(401)
    expect(res.body.error.message).toStartWith('Your student session expired')
  })

  test('the RM logs in whatever its case, and so does the first password; the answer names the RM as kept', async () => {
    const { call } = createTestApp()
    await createGroup(call, 'Azul', [{ rm: 'RA2025XY', name: 'Ana' }])
    const login = (rm: string, password: string) => call('POST', '/v1/store/auth/login', { body: { rm, password } })
    const first = await login('ra2025xy', 'ra2025xy')
    expect([first.status, first.body.student, first.body.mustChangePassword]).toEqual([200, { rm: 'RA2025XY', name: 'Ana', group: 'Azul' }, true])
    const change = (newPassword: string) => call('POST', '/v1/store/auth/change-password', { headers: bearer(first.body.token), body: { currentPassword: 'Ra2025xy', newPassword } })
    // The RM in another case is still the RM, which everyone in class knows.
    const asRm = await change('ra2025xy')
    expect([asRm.status, asRm.body.error.details]).toEqual([400, [{ path: 'newPassword', message: 'must differ from the RM' }]])
    expect((await change('long-enough-1')).status).toBe(200)
    // A chosen password is exact; the RM still is not.
    expect((await login('Ra2025xY', 'long-enough-1')).body.student.rm).toBe('RA2025XY')
    expect((await login('RA2025XY', 'LONG-ENOUGH-1')).status).toBe(401)
    expect((await login('ra2025xy', 'ra2025xy')).status).toBe(401)
  })

  test('RMs kept in two cases before they were compared ignoring case log in as written; a third spelling is neither', async () => {
    const { call, deps } = createTestApp()
    const azul = await createGroup(call, 'Azul', [{ rm: 'RA1', name: 'Ana' }])
    await createGroup(call, 'Verde', [{ rm: 'rb1', name: 'Bruno' }])
    // An older classroom may hold both: today the second would be refused as the first.
    deps.db.update(students).set({ rm: 'ra1' }).where(eq(students.rm, 'rb1')).run()
    const login = (rm: string) => call('POST', '/v1/store/auth/login', { body: { rm, password: rm } })
    expect((await login('RA1')).body.student).toEqual({ rm: 'RA1', name: 'Ana', group: azul.name })
    expect((await login('ra1')).body.student).toEqual({ rm: 'ra1', name: 'Bruno', group: 'Verde' })
    const third = await login('Ra1')
    expect([third.status, third.body.error.code]).toEqual([401, 'UNAUTHENTICATED'])
  })

  test('failed logins count under the RM whatever its case', async () => {
    const { call } = await oneGroup()
    await createGroup(call, 'Verde', [{ rm: 'RX9', name: 'Caio' }])
    for (let i = 0; i < 10; i++) expect((await call('POST', '/v1/store/auth/login', { body: { rm: i % 2 ? 'rx9' : 'RX9', password: 'wrong' } })).status).toBe(401)
    const blocked = await call('POST', '/v1/store/auth/login', { body: { rm: 'Rx9', password: 'RX9' } })
    expect([blocked.status, blocked.body.error.code]).toEqual([429, 'RATE_LIMITED'])
    expect(blocked.body.error.message).toContain('RM Rx9 from this network address')
  })

  test('10 failed logins in a minute for one RM are answered 429 with Retry-After, then it recovers', async () => {
    const { call, clock } = await oneGroup()
    const attempt = (password: string) => call('POST', '/v1/store/auth/login', { body: { rm: '111', password } })
    for (let i = 0; i < 10; i++) expect((await attempt('wrong')).status).toBe(401)
    clock.advance(10_000)
    const blocked = await attempt('111') // even the right password waits
    expect(blocked.status).toBe(429)
    expect(blocked.body.error.code).toBe('RATE_LIMITED')
    expect(blocked.headers.get('retry-after')).toBe('50')
    // Another student is not held back by it.
    expect((await call('POST', '/v1/store/auth/login', { body: { rm: '222', password: '222' } })).status).toBe(200)
    clock.advance(50_000)
    expect((await attempt('111')).status).toBe(200)
  })
})

describe('login throttle per address', () => {
  test('60 failed logins in a minute from one address are answered 429, whatever RMs they try', async () => {
    const { call, clock } = await oneGroup()
    // app.handle has no socket: every request comes from the same (unknown) address, as a lab NAT would.
    for (let i = 0; i < 60; i++) {
      const res = await call('POST', '/v1/store/auth/login', { body: { rm: `guess${i}`, password: 'x' } })
      expect(res.status).toBe(401)
    }
    const blocked = await call('POST', '/v1/store/auth/login', { body: { rm: '111', password: '111' } })
    expect([blocked.status, blocked.body.error.code]).toEqual([429, 'RATE_LIMITED'])
    expect(blocked.body.error.message).toContain('from your network address')
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0)
    clock.advance(60_000)
    expect((await call('POST', '/v1/store/auth/login', { body: { rm: '111', password: '111' } })).status).toBe(200)
  })
})

describe('settings', () => {
  test('defaults: the group name as store name, color #1f6feb, no support e-mail, pt-BR and BRL', async () => {
    const { call } = await oneGroup()
    const token = await activeStudent(call, '111')
    const res = await call('GET', '/v1/store/settings', { headers: bearer(token) })
    expect(res.body).toEqual({ storeName: 'Azul', primaryColor: '#1f6feb', supportEmail: null, locale: 'pt-BR', currency: 'BRL' })
  })

  test('PUT takes any subset, stores canonical forms and keeps the rest', async () => {
    const { call } = await oneGroup()
    const token = await activeStudent(call, '111')
    const put = (body: object) => call('PUT', '/v1/store/settings', { headers: bearer(token), body })
    expect((await put({ primaryColor: '#AABBCC', locale: 'en-us', currency: 'usd' })).body).toEqual({
      storeName: 'Azul', primaryColor: '#aabbcc', supportEmail: null, locale: 'en-US', currency: 'USD',
    })
    expect((await put({ supportEmail: 'help@azul.example', storeName: '  Loja Azul ' })).body).toMatchObject({
      storeName: 'Loja Azul', supportEmail: 'help@azul.example', primaryColor: '#aabbcc',
    })
    expect((await put({ supportEmail: null })).body.supportEmail).toBeNull()
    expect((await put({})).body.storeName).toBe('Loja Azul')
  })

  test('each invalid field is named with the form it needs', async () => {
    const { call } = await oneGroup()
    const token = await activeStudent(call, '111')
    const res = await call('PUT', '/v1/store/settings', {
      headers: bearer(token),
      body: { primaryColor: 'blue', supportEmail: 'not-mail', locale: 'not a tag!', currency: 'XYZ1', theme: 'dark' },
    })
    expect(res.status).toBe(400)
    expect(res.body.error.details).toEqual(
      expect.arrayContaining([
        { path: 'primaryColor', message: 'primaryColor must look like #rrggbb, e.g. #1f6feb' },
        { path: 'supportEmail', message: 'supportEmail must be an e-mail address, e.g. help@shop.example, or null to clear it' },
        { path: 'locale', message: 'locale must be a BCP 47 language tag, e.g. pt-BR or en-US' },
        { path: 'currency', message: 'currency must be an ISO 4217 code, e.g. BRL, USD or EUR' },
        { path: 'theme', message: 'unknown or read-only field; remove it' },
      ]),
    )
    expect(res.body.error.details).toHaveLength(5)
    // Nothing was half-written.
    expect((await call('GET', '/v1/store/settings', { headers: bearer(token) })).body.primaryColor).toBe('#1f6feb')
    // Every price has cents: a currency without them, or with three decimals, is refused and says why.
    for (const [currency, decimals] of [['JPY', 0], ['kwd', 3]] as const) {
      const res = await call('PUT', '/v1/store/settings', { headers: bearer(token), body: { currency } })
      expect([res.status, res.body.error.details]).toEqual([
        400,
        [{ path: 'currency', message: `currency ${currency.toUpperCase()} has ${decimals} decimal places, and every price here has 2 (cents): choose a currency with cents, e.g. BRL, USD or EUR` }],
      ])
    }
    expect((await call('PUT', '/v1/store/settings', { headers: bearer(token), body: { currency: 'usd' } })).body.currency).toBe('USD')
    // An empty supportEmail is not how to clear it, and the message says what is: null.
    const empty = await call('PUT', '/v1/store/settings', { headers: bearer(token), body: { supportEmail: '' } })
    expect([empty.status, empty.body.error.details]).toEqual([400, [{ path: 'supportEmail', message: 'supportEmail must be an e-mail address, e.g. help@shop.example, or null to clear it' }]])
    expect((await call('PUT', '/v1/store/settings', { headers: bearer(token), body: { supportEmail: null } })).body.supportEmail).toBe(null)
  })
})

describe('API keys', () => {
  test('the whole key is shown once; the list shows only its prefix', async () => {
    const { call } = await oneGroup()
    const token = await activeStudent(call, '111')
    const created = await call('POST', '/v1/store/api-keys', { headers: bearer(token), body: { name: 'mobile app' } })
    expect(created.status).toBe(201)
    expect(created.body.kind).toBe('secret') // the default
    expect(created.body.apiKey).toMatch(API_KEY_FORMAT)
    expect(created.body.apiKey.startsWith(`${created.body.prefix}_`)).toBe(true)
    expect(created.body.prefix).toMatch(/^sk_[0-9a-z]{8}$/)
    const list = await call('GET', '/v1/store/api-keys', { headers: bearer(token) })
    expect(list.body).toEqual({
      data: [{ id: created.body.id, name: 'mobile app', kind: 'secret', prefix: created.body.prefix, createdAt: created.body.createdAt, createdBy: '111', lastUsedAt: null }],
      page: 1,
      pageSize: 100,
      total: 1,
    })
    expect(list.text).not.toContain(created.body.apiKey)
  })

  test('a key the panel refuses was still used (as on a path with a typo); a revoked key leaves the list and cannot be revoked twice', async () => {
    const { call, clock } = await oneGroup()
    const token = await activeStudent(call, '111')
    const key = await createKey(call, token)
    clock.advance(5000)
    const used = await call('GET', '/v1/store/settings', { headers: apiKey(key.apiKey) })
    expect(used.body.error.code).toBe('WRONG_CREDENTIAL')
    const list = await call('GET', '/v1/store/api-keys', { headers: bearer(token) })
    expect(list.body.data[0].lastUsedAt).toBe(new Date(clock.now()).toISOString())
    await expectOk(call('DELETE', `/v1/store/api-keys/${key.id}`, { headers: bearer(token) }), 204)
    expect((await call('GET', '/v1/store/api-keys', { headers: bearer(token) })).body.data).toEqual([])
    const again = await call('DELETE', `/v1/store/api-keys/${key.id}`, { headers: bearer(token) })
    expect(again.status).toBe(404)
  })

  test(`a store has at most ${MAX_ACTIVE_KEYS} active keys: one more is 409 LIMIT_REACHED naming the limit; a revoked key frees its place`, async () => {
    const { call } = await oneGroup()
    const token = await activeStudent(call, '111')
    const keys = []
    for (let i = 0; i < MAX_ACTIVE_KEYS; i++) keys.push(await createKey(call, token, `app ${i}`))
    const more = await call('POST', '/v1/store/api-keys', { headers: bearer(token), body: { name: 'one more' } })
    expect([more.status, more.body.error.code, more.body.error.details]).toEqual([409, 'LIMIT_REACHED', [{ limit: MAX_ACTIVE_KEYS, current: MAX_ACTIVE_KEYS }]])
    expect(more.body.error.message).toContain('Revoke one you no longer use (DELETE /v1/store/api-keys/:id')
    expect((await expectOk(call('GET', '/v1/store/api-keys', { headers: bearer(token) }))).data).toHaveLength(MAX_ACTIVE_KEYS)
    await expectOk(call('DELETE', `/v1/store/api-keys/${keys[0]!.id}`, { headers: bearer(token) }), 204)
    await expectOk(call('POST', '/v1/store/api-keys', { headers: bearer(token), body: { name: 'in its place' } }), 201)
    // The keys that were there all still work.
    expect((await call('GET', '/v1/products', { headers: apiKey(keys[1]!.apiKey) })).status).toBe(200)
  })

  test('the key name is required', async () => {
    const { call } = await oneGroup()
    const token = await activeStudent(call, '111')
    const res = await call('POST', '/v1/store/api-keys', { headers: bearer(token), body: { name: '  ' } })
    expect(res.status).toBe(400)
    expect(res.body.error.details).toEqual([{ path: 'name', message: 'name is required' }])
  })
})

describe('members', () => {
  test('a new member starts with the RM as password; the list is sorted by RM', async () => {
    const { call } = await oneGroup()
    const token = await activeStudent(call, '111')
    const added = await call('POST', '/v1/store/members', { headers: bearer(token), body: { rm: '333', name: 'Carla' } })
    expect(added.status).toBe(201)
    expect(added.body).toEqual({ rm: '333', name: 'Carla' })
    expect((await call('GET', '/v1/store/members', { headers: bearer(token) })).body).toEqual({
      data: [{ rm: '111', name: 'Ana' }, { rm: '222', name: 'Bruno' }, { rm: '333', name: 'Carla' }],
      page: 1,
      pageSize: 100,
      total: 3,
    })
    await firstLogin(call, '333')
  })

  test('the list takes page and pageSize like every list, so one pager reads it; without them it comes whole', async () => {
    const { call, clock } = await oneGroup()
    const token = await activeStudent(call, '111')
    const second = await call('GET', '/v1/store/members?page=2&pageSize=1', { headers: bearer(token) })
    expect(second.body).toEqual({ data: [{ rm: '222', name: 'Bruno' }], page: 2, pageSize: 1, total: 2 })
    expect((await call('GET', '/v1/store/members?page=3&pageSize=1', { headers: bearer(token) })).body).toEqual({ data: [], page: 3, pageSize: 1, total: 2 })
    const tooLarge = await call('GET', '/v1/store/members?pageSize=101', { headers: bearer(token) })
    expect([tooLarge.status, tooLarge.body.error.details]).toEqual([400, [{ path: 'pageSize', message: 'pageSize can be at most 100; ask for the next page instead' }]])
    await call('POST', '/v1/store/api-keys', { headers: bearer(token), body: { name: 'first' } })
    // Keys are listed oldest first; two made in the same millisecond would be in the order of their random ids.
    clock.advance(1)
    await call('POST', '/v1/store/api-keys', { headers: bearer(token), body: { name: 'second' } })
    const keys = await call('GET', '/v1/store/api-keys?page=2&pageSize=1', { headers: bearer(token) })
    expect([keys.body.data.map((k: { name: string }) => k.name), keys.body.total]).toEqual([['second'], 2])
  })

  test('the 409 rules: already here, in another group (without naming it), removing yourself', async () => {
    const { call } = await oneGroup()
    await createGroup(call, 'Verde', [{ rm: '444', name: 'Davi' }])
    const token = await activeStudent(call, '111')
    const here = await call('POST', '/v1/store/members', { headers: bearer(token), body: { rm: '222', name: 'B' } })
    expect([here.status, here.body.error.code]).toEqual([409, 'ALREADY_MEMBER'])
    const other = await call('POST', '/v1/store/members', { headers: bearer(token), body: { rm: '444', name: 'D' } })
    expect([other.status, other.body.error.code]).toEqual([409, 'RM_IN_OTHER_GROUP'])
    // An RM with letters in another case is the same student: refused, named as it is kept.
    await createGroup(call, 'Rosa', [{ rm: 'RA2025X', name: 'Dora' }])
    const cased = await call('POST', '/v1/store/members', { headers: bearer(token), body: { rm: 'ra2025x', name: 'Dora again' } })
    expect([cased.status, cased.body.error.code, cased.body.error.details]).toEqual([409, 'RM_IN_OTHER_GROUP', [{ rm: 'RA2025X' }]])
    expect(other.body.error.message).not.toContain('Verde')
    expect(other.body.error.details).toEqual([{ rm: '444' }])
    const self = await call('DELETE', '/v1/store/members/111', { headers: bearer(token) })
    expect([self.status, self.body.error.code]).toEqual([409, 'CANNOT_REMOVE_SELF'])
  })

  test('a removed member is logged out at once and may join another group', async () => {
    const { call } = await oneGroup()
    const ana = await activeStudent(call, '111')
    const bruno = await activeStudent(call, '222')
    await expectOk(call('DELETE', '/v1/store/members/222', { headers: bearer(ana) }), 204)
    expect((await call('GET', '/v1/store/auth/me', { headers: bearer(bruno) })).status).toBe(401)
    const verde = await createGroup(call, 'Verde', [{ rm: '222', name: 'Bruno' }])
    expect(verde.members).toEqual([{ rm: '222', name: 'Bruno' }])
  })

  test('a member is removed by the RM in any case, and oneself in any case is still oneself', async () => {
    const { call } = createTestApp()
    await createGroup(call, 'Azul', [
      { rm: 'RA1', name: 'Ana' },
      { rm: 'RB2', name: 'Bruno' },
    ])
    const ana = await activeStudent(call, 'RA1')
    const self = await call('DELETE', '/v1/store/members/ra1', { headers: bearer(ana) })
    expect([self.status, self.body.error.code]).toEqual([409, 'CANNOT_REMOVE_SELF'])
    await expectOk(call('DELETE', '/v1/store/members/rb2', { headers: bearer(ana) }), 204)
    expect((await expectOk(call('GET', '/v1/store/members', { headers: bearer(ana) }))).data.map((m: { rm: string }) => m.rm)).toEqual(['RA1'])
  })

  test('the group keeps its last member (GROUP_WOULD_BE_EMPTY)', async () => {
    const { call, deps, group } = await oneGroup()
    const ana = await activeStudent(call, '111')
    await expectOk(call('DELETE', '/v1/store/members/222', { headers: bearer(ana) }), 204)
    // Through the API a student can never remove the last member (it is always themself); the rule
    // still holds for any other caller of the service.
    const ctx = { storeId: group.storeId, groupId: group.id, actor: { type: 'secretKey' as const, keyId: 'key_x', rm: null } }
    expect(() => removeMember(deps.db, ctx, '111', 0)).toThrow('A group keeps at least one member')
  })

  test('an invalid RM is named', async () => {
    const { call } = await oneGroup()
    const token = await activeStudent(call, '111')
    const res = await call('POST', '/v1/store/members', { headers: bearer(token), body: { rm: 'a b/c', name: 'X' } })
    expect(res.body.error.details).toEqual([{ path: 'rm', message: 'rm may hold letters, digits, dot, dash and underscore only' }])
    // Dots alone vanish from a URL's path ("." is here, ".." up): such a member could never be removed.
    for (const rm of ['.', '..', '-_.']) {
      const dots = await call('POST', '/v1/store/members', { headers: bearer(token), body: { rm, name: 'Dots' } })
      expect([rm, dots.status, dots.body.error.details]).toEqual([rm, 400, [{ path: 'rm', message: 'rm needs a letter or a digit: dots, dashes and underscores alone are no registration number' }]])
    }
    expect((await expectOk(call('GET', '/v1/store/members', { headers: bearer(token) }))).data.map((m: { rm: string }) => m.rm)).toEqual(['111', '222'])
  })
})

describe('teacher: groups and students', () => {
  test('a group is created with its store and members; names are unique ignoring case', async () => {
    const { call, group } = await oneGroup()
    expect(group).toEqual({
      id: expect.stringMatching(/^grp_/),
      name: 'Azul',
      storeId: expect.stringMatching(/^str_/),
      members: [{ rm: '111', name: 'Ana' }, { rm: '222', name: 'Bruno' }],
      createdAt: expect.any(String),
    })
    const dup = await call('POST', '/v1/admin/groups', { headers: admin, body: { name: 'AZUL' } })
    expect([dup.status, dup.body.error.code]).toEqual([409, 'CONFLICT'])
    const taken = await call('POST', '/v1/admin/groups', { headers: admin, body: { name: 'Verde', members: [{ rm: '222', name: 'B' }] } })
    expect(taken.status).toBe(409)
    expect(taken.body.error).toMatchObject({ code: 'RM_IN_OTHER_GROUP', details: [{ rm: '222', groupId: group.id, group: 'Azul' }] })
    // The refused group was not half-created.
    const list = await call('GET', '/v1/admin/groups', { headers: admin })
    expect(list.body.total).toBe(1)
    const twice = await call('POST', '/v1/admin/groups', { headers: admin, body: { name: 'Rosa', members: [{ rm: '5', name: 'a' }, { rm: '5', name: 'b' }] } })
    expect(twice.body.error.details).toEqual([{ path: 'members', message: 'the same rm appears twice in members (RMs are compared ignoring case)' }])
    // RMs are compared ignoring case: within one request, and against the groups that exist.
    const cased = await call('POST', '/v1/admin/groups', { headers: admin, body: { name: 'Rosa', members: [{ rm: 'RC1', name: 'F' }, { rm: 'rc1', name: 'F again' }] } })
    expect([cased.status, cased.body.error.details]).toEqual([400, [{ path: 'members', message: 'the same rm appears twice in members (RMs are compared ignoring case)' }]])
    await createGroup(call, 'Lilás', [{ rm: 'RB77', name: 'Eva' }])
    const held = await call('POST', '/v1/admin/groups', { headers: admin, body: { name: 'Cinza', members: [{ rm: 'rb77', name: 'E' }] } })
    expect([held.status, held.body.error.code, held.body.error.details]).toEqual([409, 'RM_IN_OTHER_GROUP', [{ rm: 'RB77', groupId: expect.stringMatching(/^grp_/), group: 'Lilás' }]])
  })

  test('groups are listed by name with members, paginated, and shown one by one', async () => {
    const { call, group } = await oneGroup()
    await createGroup(call, 'Amarelo', [])
    const page = await call('GET', '/v1/admin/groups?pageSize=1&page=2', { headers: admin })
    expect(page.body).toMatchObject({ page: 2, pageSize: 1, total: 2, data: [{ name: 'Azul', members: group.members }] })
    expect((await call('GET', `/v1/admin/groups/${group.id}`, { headers: admin })).body).toEqual(group)
    expect((await call('GET', '/v1/admin/groups/grp_nope', { headers: admin })).status).toBe(404)
    const member = await call('POST', `/v1/admin/groups/${group.id}/members`, { headers: admin, body: { rm: '333', name: 'Carla' } })
    expect([member.status, member.body]).toEqual([201, { rm: '333', name: 'Carla' }])
  })

  test('a password reset returns the student to the RM, must-change, with every session ended', async () => {
    const { call } = await oneGroup()
    const token = await activeStudent(call, '111')
    const reset = await call('POST', '/v1/admin/students/111/reset-password', { headers: admin })
    expect(reset.body).toEqual({ rm: '111', mustChangePassword: true })
    expect((await call('GET', '/v1/store/auth/me', { headers: bearer(token) })).status).toBe(401)
    expect((await call('POST', '/v1/store/auth/login', { body: { rm: '111', password: passwordOf('111') } })).status).toBe(401)
    await firstLogin(call, '111')
    expect((await call('POST', '/v1/admin/students/nobody/reset-password', { headers: admin })).status).toBe(404)
  })

  test('a password reset finds the RM in any case and answers it as kept', async () => {
    const { call } = createTestApp()
    await createGroup(call, 'Azul', [{ rm: 'RA2025XY', name: 'Ana' }])
    await activeStudent(call, 'RA2025XY')
    const reset = await call('POST', '/v1/admin/students/ra2025xy/reset-password', { headers: admin })
    expect(reset.body).toEqual({ rm: 'RA2025XY', mustChangePassword: true })
    await firstLogin(call, 'RA2025XY')
  })
})

describe('teacher: removing a student, renaming a group', () => {
  test('the teacher removes a student, the last one too: sessions end, the RM is free, the calls stay under the name', async () => {
    const { call, group } = await oneGroup()
    const bruno = await activeStudent(call, '222')
    const key = (await createKey(call, bruno)).apiKey
    await expectOk(call('GET', '/v1/products', { headers: { ...apiKey(key), 'x-student-rm': '111' } }))
    const gone = await call('DELETE', `/v1/admin/groups/${group.id}/members/222`, { headers: admin })
    expect([gone.status, gone.text]).toEqual([204, ''])
    expect((await call('GET', '/v1/store/auth/me', { headers: bearer(bruno) })).status).toBe(401)
    expect((await expectOk(call('GET', `/v1/admin/groups/${group.id}`, { headers: admin }))).members).toEqual([{ rm: '111', name: 'Ana' }])
    // Again, and a student of no group or of another: 404 naming the group and where its members are listed.
    const other = await createGroup(call, 'Verde', [{ rm: '333', name: 'Carla' }])
    for (const rm of ['222', '333']) {
      const res = await call('DELETE', `/v1/admin/groups/${group.id}/members/${rm}`, { headers: admin })
      expect([res.status, res.body.error.message]).toEqual([404, `RM ${rm} is not a member of group 'Azul'. GET /v1/admin/groups/${group.id} lists its members.`])
    }
    const unknownGroup = await call('DELETE', '/v1/admin/groups/grp_nope/members/111', { headers: admin })
    expect(unknownGroup.status).toBe(404)
    // Added to another group while still in this one, the teacher is told how to move them.
    const taken = await call('POST', `/v1/admin/groups/${other.id}/members`, { headers: admin, body: { rm: '111', name: 'Ana' } })
    expect([taken.status, taken.body.error.message]).toEqual([
      409,
      `A student belongs to one group only: 111 is in group 'Azul'. Remove them from that group first (the Remove button on its page, or DELETE /v1/admin/groups/${group.id}/members/111), then add them here; or import a class list that names their new group, which moves them.`,
    ])
    // The last member too; the group stays, with its store.
    expect((await call('DELETE', `/v1/admin/groups/${group.id}/members/111`, { headers: admin })).status).toBe(204)
    expect((await expectOk(call('GET', `/v1/admin/groups/${group.id}`, { headers: admin }))).members).toEqual([])
    // The RM is free: another group takes it. Ana's call stays the first group's, under her name.
    await expectOk(call('POST', `/v1/admin/groups/${other.id}/members`, { headers: admin, body: { rm: '111', name: 'Ana' } }), 201)
    const report = await expectOk(call('GET', `/v1/admin/activity?groupId=${group.id}`, { headers: admin }))
    expect(report.groups[0].students.map((s: any) => [s.rm, s.name, s.member, s.calls])).toEqual([
      ['111', 'Ana (no longer a member)', false, 1],
      ['222', 'Bruno (no longer a member)', false, 2], // his login's change of password and the key he made
    ])
    // Only the teacher: a student's token or a key is refused.
    expect((await call('DELETE', `/v1/admin/groups/${other.id}/members/333`, { headers: bearer(bruno) })).status).toBe(401)
  })

  test('a student removed and added again with the RM in another case is one line of the report and the series, their calls summed', async () => {
    const { call, group } = await oneGroup()
    await expectOk(call('POST', `/v1/admin/groups/${group.id}/members`, { headers: admin, body: { rm: 'RA77X', name: 'Carla' } }), 201)
    const key = (await createKey(call, await activeStudent(call, '111'))).apiKey
    const asCarla = (rm: string) => expectOk(call('GET', '/v1/products', { headers: { ...apiKey(key), 'x-student-rm': rm } }))
    for (let i = 0; i < 3; i++) await asCarla('RA77X')
    expect((await call('DELETE', `/v1/admin/groups/${group.id}/members/ra77x`, { headers: admin })).status).toBe(204)
    await expectOk(call('POST', `/v1/admin/groups/${group.id}/members`, { headers: admin, body: { rm: 'ra77x', name: 'Carla S' } }), 201)
    for (let i = 0; i < 2; i++) await asCarla('ra77x')
    const report = await expectOk(call('GET', `/v1/admin/activity?groupId=${group.id}`, { headers: admin }))
    const carla = report.groups[0].students.filter((s: any) => s.rm.toLowerCase() === 'ra77x')
    expect(carla.map((s: any) => [s.rm, s.name, s.member, s.calls])).toEqual([['ra77x', 'Carla S', true, 5]])
    const series = await expectOk(call('GET', `/v1/admin/activity/series?groupId=${group.id}`, { headers: admin }))
    const line = series.groups[0].students.filter((s: any) => s.rm.toLowerCase() === 'ra77x')
    expect(line.map((s: any) => [s.rm, s.name, s.member, s.calls.reduce((a: number, b: number) => a + b, 0)])).toEqual([['ra77x', 'Carla S', true, 5]])
  })

  test("a group is renamed; another group's name in any case or accents is 409; its store keeps its own name", async () => {
    const { call, group } = await oneGroup()
    await createGroup(call, 'Turma Ação', [{ rm: '333', name: 'Carla' }])
    const renamed = await expectOk(call('PATCH', `/v1/admin/groups/${group.id}`, { headers: admin, body: { name: ' Equipe Jacarandá ' } }))
    expect([renamed.id, renamed.name, renamed.members.length]).toEqual([group.id, 'Equipe Jacarandá', 2])
    const taken = await call('PATCH', `/v1/admin/groups/${group.id}`, { headers: admin, body: { name: 'TURMA ACAO' } })
    expect([taken.status, taken.body.error.message]).toEqual([409, "A group named 'Turma Ação' already exists (names are compared ignoring case and accents). Choose another name."])
    // Its own name in another case is its name.
    expect((await expectOk(call('PATCH', `/v1/admin/groups/${group.id}`, { headers: admin, body: { name: 'EQUIPE JACARANDÁ' } }))).name).toBe('EQUIPE JACARANDÁ')
    const bad = await call('PATCH', `/v1/admin/groups/${group.id}`, { headers: admin, body: { name: 'a\u001b[2J' } })
    expect([bad.status, bad.body.error.details[0].path]).toEqual([400, 'name'])
    const ana = await activeStudent(call, '111')
    expect((await expectOk(call('GET', '/v1/store/settings', { headers: bearer(ana) }))).storeName).toBe('Azul')
    expect((await expectOk(call('GET', '/v1/store/auth/me', { headers: bearer(ana) }))).student.group).toBe('EQUIPE JACARANDÁ')
  })
})

describe('HEAD requests', () => {
  test('HEAD on a panel route takes the GET route credential', async () => {
    const { call } = await oneGroup()
    const token = await activeStudent(call, '111')
    const anonymous = await call('HEAD', '/v1/store/settings')
    expect(anonymous.status).toBe(401)
    const ok = await call('HEAD', '/v1/store/settings', { headers: bearer(token) })
    expect(ok.status).toBe(200)
    expect(ok.text).toBe('')
    // The length the GET's body has, as HTTP asks of a HEAD.
    const get = await call('GET', '/v1/store/settings', { headers: bearer(token) })
    expect(ok.headers.get('content-length')).toBe(String(Buffer.byteLength(get.text)))
    expect(ok.headers.get('content-type')).toBe('application/json')
  })
})
