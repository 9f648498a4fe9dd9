import { describe, expect, test } from 'bun:test'
import { argon2Passwords, type Passwords } from '../../src/kernel/auth/passwords'
import { CHEAP_PASSWORD_COST, createTestApp } from '../helpers/app'
import { activeStudent, admin, apiKey, bearer, createGroup, createKey, expectOk, passwordOf } from '../helpers/world'

// A password is checked with argon2, which takes a while: what changes meanwhile (the password, the
// student's membership) must count when the check's result is acted on.

/**
 * Cheap argon2 whose next check of a password can be held after it has run (`hold`), as a slow check
 * in flight is, until `release`: the test acts meanwhile, checks of the same password included.
 */
function heldPasswords() {
  const inner = argon2Passwords(CHEAP_PASSWORD_COST)
  const held = new Map<string, { release: Promise<void>; reached: () => void }>()
  const passwords: Passwords = {
    hash: (owner, password) => inner.hash(owner, password),
    decoyHash: () => inner.decoyHash(),
    verify: async (owner, password, hash) => {
      const result = await inner.verify(owner, password, hash)
      const hold = held.get(password)
      held.delete(password)
      hold?.reached()
      await hold?.release
      return result
    },
  }
  /** Holds the next check of `password`; resolves once that check has run and waits, with what releases it. */
  const hold = (password: string) => {
    const released = Promise.withResolvers<void>()
    const reached = Promise.withResolvers<void>()
    held.set(password, { release: released.promise, reached: reached.resolve })
    return reached.promise.then(() => released.resolve)
  }
  return {
    passwords,
    /** Sends `request`, holds its check of `password` while `meanwhile` runs, then lets it go on: its answer, and what `meanwhile` gave. */
    async whileChecked<A, M>(password: string, request: () => Promise<A>, meanwhile: () => Promise<M>) {
      const checked = hold(password)
      const late = request()
      const release = await checked
      const during = await meanwhile()
      release()
      return { answer: await late, during }
    },
  }
}

async function oneGroup() {
  const p = heldPasswords()
  const t = createTestApp({ passwords: p.passwords })
  const group = await createGroup(t.call, 'Azul', [
    { rm: '111', name: 'Ana' },
    { rm: '222', name: 'Bruno' },
  ])
  const ana = await activeStudent(t.call, '111')
  const login = (password = passwordOf('111')) => t.call('POST', '/v1/store/auth/login', { body: { rm: '111', password } })
  const change = (token: string, currentPassword: string, newPassword: string) =>
    t.call('POST', '/v1/store/auth/change-password', { headers: bearer(token), body: { currentPassword, newPassword } })
  /** Whether a token opens the panel. */
  const works = async (token: string) => (await t.call('GET', '/v1/store/auth/me', { headers: bearer(token) })).status === 200
  return { ...t, ...p, group, ana, login, change, works }
}

const WRONG_LOGIN = 'RM or password is wrong. The first password is your RM; the teacher can reset it.'

describe('a password checked while it changes', () => {
  test('a login whose password was changed while it was checked is refused as a wrong one, and opens no session', async () => {
    const t = await oneGroup()
    const old = passwordOf('111')
    const { answer, during: changed } = await t.whileChecked(old, () => t.login(old), () => expectOk(t.change(t.ana, old, 'a-new-password-1')))
    expect([answer.status, answer.body.error?.message]).toEqual([401, WRONG_LOGIN])
    expect(await t.works(changed.token)).toBe(true)
    expect((await t.login('a-new-password-1')).status).toBe(200)
  })

  test("a login in flight while the teacher resets the password is refused; the RM then logs in, told to change it", async () => {
    const t = await oneGroup()
    const old = passwordOf('111')
    const { answer } = await t.whileChecked(old, () => t.login(old), () => expectOk(t.call('POST', '/v1/admin/students/111/reset-password', { headers: admin })))
    expect([answer.status, answer.body.error?.message]).toEqual([401, WRONG_LOGIN])
    const first = await expectOk(t.login('111'))
    expect(first.mustChangePassword).toBe(true)
  })

  test('a login in flight while the student is removed from the group is a 401, not a server error', async () => {
    const t = await oneGroup()
    const bruno = await activeStudent(t.call, '222')
    const password = passwordOf('222')
    const { answer } = await t.whileChecked(
      password,
      () => t.call('POST', '/v1/store/auth/login', { body: { rm: '222', password } }),
      () => expectOk(t.call('DELETE', '/v1/store/members/222', { headers: bearer(t.ana) }), 204),
    )
    expect([answer.status, answer.body.error?.message]).toEqual([401, WRONG_LOGIN])
    expect(await t.works(bruno)).toBe(false)
    expect(t.log.lines.filter((l) => l.includes(' error '))).toEqual([])
  })

  test('two password changes of one session at once: the one that commits first wins, the other is a 401 that changed nothing', async () => {
    const t = await oneGroup()
    const current = passwordOf('111')
    const { answer: lost, during: won } = await t.whileChecked(current, () => t.change(t.ana, current, 'late-password-1'), () => expectOk(t.change(t.ana, current, 'first-password-2')))
    expect([lost.status, lost.body.error.code]).toEqual([401, 'UNAUTHENTICATED'])
    expect(lost.body.error.message).toBe(
      'Your password was changed or reset by another request while this one was checked, which ended this session; this request changed nothing. Log in again with the password now in force: POST /v1/store/auth/login.',
    )
    expect(await t.works(won.token)).toBe(true)
    expect((await t.login('first-password-2')).status).toBe(200)
    expect((await t.login('late-password-1')).status).toBe(401)
  })

  test("a customer's login in flight while the teacher resets the store is a 401, not a server error", async () => {
    const t = await oneGroup()
    const key = apiKey((await createKey(t.call, t.ana)).apiKey)
    const customer = { email: 'lia@example.com', password: 'lia-password' }
    await expectOk(t.call('POST', '/v1/customers/register', { headers: key, body: { ...customer, name: 'Lia' } }), 201)
    const { answer } = await t.whileChecked(
      customer.password,
      () => t.call('POST', '/v1/customers/login', { headers: key, body: customer }),
      () => expectOk(t.call('POST', `/v1/admin/groups/${t.group.id}/reset-store`, { headers: admin })),
    )
    expect([answer.status, answer.body.error?.message]).toEqual([401, 'E-mail or password is wrong for this store. A customer registers once per store: POST /v1/customers/register.'])
    expect(t.log.lines.filter((l) => l.includes(' error '))).toEqual([])
  })
})
