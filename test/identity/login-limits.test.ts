import { describe, expect, spyOn, test } from 'bun:test'
import { LoginThrottle, MAX_KEYS } from '../../src/features/store-auth/login-throttle'
import { ManualClock } from '../../src/kernel/clock'
import { createTestApp, type CallResult } from '../helpers/app'
import { activeStudent, apiKey, createGroup, createKey, expectOk } from '../helpers/world'

/** `total` calls, `parallel` at a time (each wave sent at once, as a student's Promise.all would). */
async function burst(total: number, parallel: number, send: (i: number) => Promise<CallResult>) {
  const answers: CallResult[] = []
  for (let start = 0; start < total; start += parallel) {
    answers.push(...(await Promise.all(Array.from({ length: Math.min(parallel, total - start) }, (_, i) => send(start + i)))))
  }
  return answers
}

function expectThrottled(answers: CallResult[], allowed: number, what: string) {
  const statuses = answers.map((a) => a.status)
  // No more than the limit, and, with the clock standing still, exactly the limit.
  expect(statuses.filter((s) => s === 401).length).toBe(allowed)
  expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([])
  for (const blocked of answers.filter((a) => a.status === 429)) {
    expect(blocked.body.error.code).toBe('RATE_LIMITED')
    expect(blocked.body.error.message).toContain(what)
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0)
  }
}

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

describe('login throttle under parallel bursts', () => {
  test('300 wrong passwords for one RM, 150 at a time, get at most 10 × 401 and 429 with Retry-After for the rest', async () => {
    const t = await classWithCustomer()
    const answers = await burst(300, 150, () => t.studentLogin('222', 'wrong'))
    expectThrottled(answers, 10, 'for RM 222')
    // Even the right password waits out the minute; then it works.
    expect((await t.studentLogin('222', '222')).status).toBe(429)
    t.clock.advance(60_000)
    expect((await t.studentLogin('222', '222')).status).toBe(200)
  })

  test('300 wrong passwords for one customer, 150 at a time, get at most 10 × 401 and 429 with Retry-After for the rest', async () => {
    const t = await classWithCustomer()
    const answers = await burst(300, 150, () => t.customerLogin(t.customer.email, 'wrong-password'))
    expectThrottled(answers, 10, 'for e-mail lia@example.com')
    expect((await t.customerLogin(t.customer.email, t.customer.password)).status).toBe(429)
    t.clock.advance(60_000)
    expect((await t.customerLogin(t.customer.email, t.customer.password)).status).toBe(200)
  })

  test('300 logins for 300 different RMs from one address, 150 at a time, get at most 60 × 401', async () => {
    const t = await classWithCustomer()
    const answers = await burst(300, 150, (i) => t.studentLogin(`guess${i}`, 'x'))
    expectThrottled(answers, 60, 'from your network address')
    const customers = await burst(300, 150, (i) => t.customerLogin(`guess${i}@example.com`, 'x'))
    expectThrottled(customers, 60, 'from your network address')
  })
})

describe('login throttle bookkeeping', () => {
  test('a success takes back its own attempt: it counts neither against the RM nor against the address', async () => {
    const t = await classWithCustomer()
    for (let i = 0; i < 9; i++) expect((await t.studentLogin('222', 'wrong')).status).toBe(401)
    expect((await t.studentLogin('222', '222')).status).toBe(200)
    // The RM starts again from zero after a success.
    for (let i = 0; i < 10; i++) expect((await t.studentLogin('222', 'wrong')).status).toBe(401)
    expect((await t.studentLogin('222', 'wrong')).status).toBe(429)
    t.clock.advance(60_000)
    // 59 failures from this address (10 of them above, now a minute old, no longer count)...
    for (let i = 0; i < 59; i++) expect((await t.studentLogin(`guess${i}`, 'x')).status).toBe(401)
    // ...then any number of successes leave room for exactly one more failure.
    for (let i = 0; i < 20; i++) expect((await t.customerLogin(t.customer.email, t.customer.password)).status).toBe(200)
    for (let i = 0; i < 20; i++) expect((await t.studentLogin('222', '222')).status).toBe(200)
    expect((await t.studentLogin('guess-last', 'x')).status).toBe(401)
    const blocked = await t.studentLogin('222', '222')
    expect([blocked.status, blocked.body.error.message]).toEqual([429, expect.stringContaining('from your network address')])
  })

  test('a flood of distinct RMs from distinct addresses keeps the throttle at MAX_KEYS entries, and a quiet minute empties it', () => {
    const clock = new ManualClock()
    const throttle = new LoginThrottle(clock, 'RM')
    for (let i = 0; i < MAX_KEYS * 3; i++) {
      throttle.begin(`rm${i}`, `rm${i}`, `10.0.${i >> 8}.${i & 255}`)
      expect(throttle.size).toBeLessThanOrEqual(MAX_KEYS)
      if (i % 1000 === 0) clock.advance(100)
    }
    expect(throttle.size).toBe(MAX_KEYS)
    // Still counting what it keeps: the newest RM is refused after its 10 failures.
    const last = `rm${MAX_KEYS * 3 - 1}`
    for (let i = 0; i < 9; i++) throttle.begin(last, last, 'elsewhere')
    expect(() => throttle.begin(last, last, 'elsewhere')).toThrow('Too many failed logins for RM')
    clock.advance(60_000)
    throttle.begin('someone', 'someone', 'somewhere')
    expect(throttle.size).toBe(2)
  })
})

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
