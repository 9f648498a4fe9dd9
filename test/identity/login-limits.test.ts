import { describe, expect, spyOn, test } from 'bun:test'
import { createTestApp, type CallResult } from '../helpers/app'
import { activeStudent, apiKey, createGroup, createKey, expectOk } from '../helpers/world'

async function classWithCustomer() {
  const t = createTestApp({ settings: { rateLimitRps: '0' } })
  await createGroup(t.call, 'Azul', [
    { rm: '111', name: 'Ana' },
    { rm: '222', name: 'Bruno' },
  ])
  const key = (await createKey(t.call, await activeStudent(t.call, '111'))).apiKey
  const customer = { email: 'lia@example.com', password: 'lia-password' }
  await expectOk(t.call('POST', '/v1/customers/register', { headers: apiKey(key), body: { ...customer, name: 'Lia' } }), 201)
  const studentLogin = (rm: string, password: string) => t.call('POST', '/v1/store/auth/login', { body: { rm, password } })
  const customerLogin = (email: string, password: string) => t.call('POST', '/v1/customers/login', { headers: apiKey(key), body: { email, password } })
  return { ...t, key, customer, studentLogin, customerLogin }
}

describe('every failed login costs one verification', () => {
  test('unknown RM, wrong password, initial password guessed wrong, unknown e-mail and wrong customer password each verify once against a hash of the same cost', async () => {
    const t = await classWithCustomer()
    const verify = spyOn(t.deps.passwords, 'verify')
    const cost = (hash: string) => hash.split('$').slice(1, 4).join('$') // algorithm, version, m/t/p
    const reference = cost(await t.deps.passwords.hash('anything'))
    const attempts: [string, () => Promise<CallResult>][] = [
      ['unknown RM', () => t.studentLogin('999', 'guess-guess')],
      ['wrong password of a changed account', () => t.studentLogin('111', 'guess-guess')],
      ['wrong password of an RM on its initial password', () => t.studentLogin('222', 'guess-guess')],
      ['unknown customer e-mail', () => t.customerLogin('nobody@example.com', 'guess-guess')],
      ['wrong customer password', () => t.customerLogin(t.customer.email, 'guess-guess')],
    ]
    for (const [what, attempt] of attempts) {
      verify.mockClear()
      const res = await attempt()
      expect([what, res.status]).toEqual([what, 401])
      expect([what, verify.mock.calls.length]).toEqual([what, 1])
      expect([what, cost(verify.mock.calls[0]![1])]).toEqual([what, reference])
    }
    // The successes too: an RM on its initial password logging in with it.
    verify.mockClear()
    expect((await t.studentLogin('222', '222')).status).toBe(200)
    expect(verify.mock.calls.length).toBe(1)
  })
})
