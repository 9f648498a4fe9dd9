import { describe, expect, spyOn, test } from 'bun:test'
import { LoginThrottle, MAX_KEYS } from '../../src/features/store-auth/login-throttle'
import { argon2Passwords, PasswordTurns } from '../../src/kernel/auth/passwords'
import { AppError } from '../../src/kernel/errors'
import { ManualClock } from '../../src/kernel/clock'
import { CHEAP_PASSWORD_COST, CLIENT_ADDRESS_HEADER, clientAddressesFromHeader, createTestApp, type CallResult } from '../helpers/app'
import { activeStudent, apiKey, createGroup, createKey, expectOk, passwordOf } from '../helpers/world'

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

/**
 * The throttle alone: checks wait for their turn however many come (PasswordTurns refuses past 64
 * waiting per store, which the bursts below would reach; its own tests are in test/kernel/password-turns.test.ts).
 */
const patientPasswords = () => argon2Passwords(CHEAP_PASSWORD_COST, new PasswordTurns(1, Number.POSITIVE_INFINITY))

async function classWithCustomer() {
  const t = createTestApp({ settings: { rateLimitRps: '0' }, passwords: patientPasswords() })
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
    const locked = await t.customerLogin(t.customer.email, t.customer.password)
    // A customer has no teacher to reset the password: the message says what a customer can do.
    expect([locked.status, locked.body.error.message]).toEqual([
      429,
      expect.stringMatching(/^Too many failed logins for e-mail lia@example\.com from this network address in the last minute \(10 at most\)\. Wait \d+ s and try again; customers have no password reset in this API: check the password, or register with another e-mail\.$/),
    ])
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

describe('a session is no way around the login limit', () => {
  test('a wrong currentPassword counts as a failed login of the RM: 10 are 400, then 429 for the change and the login from that address; a right one clears them', async () => {
    const t = await classWithCustomer()
    const token = await activeStudent(t.call, '222')
    const change = (currentPassword: string) =>
      t.call('POST', '/v1/store/auth/change-password', { headers: { authorization: `Bearer ${token}` }, body: { currentPassword, newPassword: 'another-password' } })
    const guesses = await burst(15, 5, (i) => change(`guess-${i}`))
    expect(guesses.map((a) => a.status)).toEqual([...Array(10).fill(400), ...Array(5).fill(429)])
    expect(guesses[0]!.body.error.details).toEqual([{ path: 'currentPassword', message: 'does not match your password' }])
    expect(guesses[14]!.body.error.message).toStartWith('Too many failed logins for RM 222 from this network address in the last minute (10 at most).')
    expect(Number(guesses[14]!.headers.get('retry-after'))).toBeGreaterThan(0)
    // The login of the RM from the same address waits out the minute too; then the right password changes it.
    expect((await t.studentLogin('222', passwordOf('222'))).status).toBe(429)
    t.clock.advance(60_000)
    expect((await change(passwordOf('222'))).status).toBe(200)
    expect((await t.studentLogin('222', 'another-password')).status).toBe(200)
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
    // Still counting what it keeps: the newest RM is refused from an address after its 10 failures there.
    const last = `rm${MAX_KEYS * 3 - 1}`
    for (let i = 0; i < 10; i++) throttle.begin(last, last, 'elsewhere')
    expect(() => throttle.begin(last, last, 'elsewhere')).toThrow(`Too many failed logins for RM ${last} from this network address`)
    clock.advance(60_000)
    throttle.begin('someone', 'someone', 'somewhere')
    expect(throttle.size).toBe(3) // the RM from that address, the RM, the address
  })
})

describe('every failed login costs one verification', () => {
  test('unknown RM, wrong password, initial password guessed wrong, unknown e-mail and wrong customer password each verify once against a hash of the same cost', async () => {
    const t = await classWithCustomer()
    const verify = spyOn(t.deps.passwords, 'verify')
    const cost = (hash: string) => hash.split('$').slice(1, 4).join('$') // algorithm, version, m/t/p
    const reference = cost(await t.deps.passwords.hash('', 'anything'))
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
      expect([what, cost(verify.mock.calls[0]![2])]).toEqual([what, reference])
      // In the turn of the store it is for (a student's, apart from its shop's customers); a login naming no student in that of no account.
      const turn = what === 'unknown RM' ? '' : what.includes('customer') ? expect.stringMatching(/^str_/) : expect.stringMatching(/^panel str_/)
      expect([what, verify.mock.calls[0]![0]]).toEqual([what, turn])
    }
    // The successes too: an RM on its initial password logging in with it.
    verify.mockClear()
    expect((await t.studentLogin('222', '222')).status).toBe(200)
    expect(verify.mock.calls.length).toBe(1)
  })
})

/** The 429 a throttle answers: its message and Retry-After. */
function refusal(attempt: () => unknown): { code: string; message: string; retryAfter?: string } | 'let in' {
  try {
    attempt()
  } catch (e) {
    if (e instanceof AppError) return { code: e.code, message: e.message, retryAfter: e.headers?.['retry-after'] }
    throw e
  }
  return 'let in'
}

const wait = (s: number) => `Wait ${s} s and try again;`

describe('a classmate cannot lock someone else out', () => {
  test('10 failures for an RM from one address lock that RM from that address only; it counts down to the end of the minute', () => {
    const clock = new ManualClock()
    const throttle = new LoginThrottle(clock, 'RM')
    for (let i = 0; i < 10; i++) throttle.begin('222', '222', '10.0.0.2')
    expect(refusal(() => throttle.begin('222', '222', '10.0.0.2'))).toEqual({
      code: 'RATE_LIMITED',
      message: `Too many failed logins for RM 222 from this network address in the last minute (10 at most). ${wait(60)} the teacher can reset a forgotten password.`,
      retryAfter: '60',
    })
    // The owner, at another desk, is let in; so is the classmate for another RM.
    expect(refusal(() => throttle.begin('222', '222', '10.0.0.3').succeeded())).toBe('let in')
    expect(refusal(() => throttle.begin('333', '333', '10.0.0.2'))).toBe('let in')
    clock.advance(20_000)
    expect(refusal(() => throttle.begin('222', '222', '10.0.0.2'))).toMatchObject({ message: expect.stringContaining(wait(40)), retryAfter: '40' })
    clock.advance(40_000)
    expect(refusal(() => throttle.begin('222', '222', '10.0.0.2'))).toBe('let in')
  })

  test('50 failures for an RM from all addresses together stop guessing from many machines, everywhere, for the rest of the minute', () => {
    const clock = new ManualClock()
    const throttle = new LoginThrottle(clock, 'RM')
    for (let machine = 1; machine <= 5; machine++) {
      for (let i = 0; i < 10; i++) throttle.begin('222', '222', `10.0.1.${machine}`)
      clock.advance(1_000)
    }
    const several = {
      code: 'RATE_LIMITED',
      message: `Too many failed logins for RM 222 from several network addresses in the last minute (50 at most). ${wait(55)} if they were not yours, tell the teacher.`,
      retryAfter: '55',
    }
    expect(refusal(() => throttle.begin('222', '222', '10.0.1.6'))).toEqual(several)
    expect(refusal(() => throttle.begin('222', '222', '10.0.0.3'))).toEqual(several)
    // Another RM is not affected; once the first machine's failures are a minute old, the RM is let in again.
    expect(refusal(() => throttle.begin('333', '333', '10.0.1.6'))).toBe('let in')
    clock.advance(54_999)
    expect(refusal(() => throttle.begin('222', '222', '10.0.0.3'))).toMatchObject({ retryAfter: '1' })
    clock.advance(1)
    expect(refusal(() => throttle.begin('222', '222', '10.0.0.3'))).toBe('let in')
  })

  test('60 failures from one address, whatever the RM, still lock that address', () => {
    const clock = new ManualClock()
    const throttle = new LoginThrottle(clock, 'RM')
    for (let i = 0; i < 60; i++) throttle.begin(`guess${i}`, `guess${i}`, '10.0.0.2')
    expect(refusal(() => throttle.begin('222', '222', '10.0.0.2'))).toEqual({
      code: 'RATE_LIMITED',
      message: `Too many failed logins from your network address in the last minute (60 at most). ${wait(60)} the teacher can reset a forgotten password.`,
      retryAfter: '60',
    })
    expect(refusal(() => throttle.begin('222', '222', '10.0.0.3'))).toBe('let in')
  })

  test("a success clears the RM's failures from its own address only: those from elsewhere still count", () => {
    const clock = new ManualClock()
    const throttle = new LoginThrottle(clock, 'RM')
    for (let machine = 1; machine <= 4; machine++) for (let i = 0; i < 10; i++) throttle.begin('222', '222', `10.0.1.${machine}`)
    for (let i = 0; i < 9; i++) throttle.begin('222', '222', '10.0.0.3')
    throttle.begin('222', '222', '10.0.0.3').succeeded() // 49 failures stand, the success is not counted
    expect(refusal(() => throttle.begin('222', '222', '10.0.1.1'))).toMatchObject({ message: expect.stringContaining('from this network address') })
    expect(refusal(() => throttle.begin('222', '222', '10.0.0.3'))).toBe('let in') // the 50th
    expect(refusal(() => throttle.begin('222', '222', '10.0.0.3'))).toMatchObject({ message: expect.stringContaining('from several network addresses') })
  })

  test('waves of a thousand logins for random RMs, from one address or from random ones, keep the throttle within MAX_KEYS', () => {
    const clock = new ManualClock()
    const throttle = new LoginThrottle(clock, 'RM')
    const random = () => Math.random().toString(36).slice(2, 10)
    const sizes: number[] = []
    const wave = (address: () => string) => {
      for (let i = 0; i < 1000; i++) {
        const rm = random()
        try {
          throttle.begin(rm, rm, address())
        } catch {
          // refused: nothing is recorded
        }
        sizes.push(throttle.size)
      }
    }
    // From one address, the 60 let in are all that is kept: 60 RMs from that address, 60 RMs, the address.
    wave(() => '10.0.0.2')
    expect(Math.max(...sizes)).toBe(121)
    for (let n = 0; n < 15; n++) wave(() => `10.${n}.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}`)
    expect(Math.max(...sizes)).toBe(MAX_KEYS)
    clock.advance(60_000)
    throttle.begin('someone', 'someone', 'somewhere')
    expect(throttle.size).toBe(3)
  })
})

/**
 * A login sent from `address`. The stand-in server of clientAddressesFromHeader gives each call the
 * address it names, the way Bun's server gives a connection's peer (distinct loopback addresses such
 * as 127.0.0.2 exist on Linux only, and a student's laptop runs this suite too).
 */
async function loginFrom(t: Awaited<ReturnType<typeof classWithCustomer>>, address: string, rm: string, password: string) {
  const answer = await t.call('POST', '/v1/store/auth/login', { headers: { [CLIENT_ADDRESS_HEADER]: address }, body: { rm, password } })
  const retryAfter = answer.headers.get('retry-after')
  return { status: answer.status, message: answer.body.error?.message as string | undefined, ...(retryAfter ? { retryAfter } : {}) }
}

describe('the client address is what counts', () => {
  test('a classmate at 10.0.0.2 typing wrong passwords for RM 222 locks it there only; its owner at 10.0.0.3 logs in; five machines lock it everywhere', async () => {
    const t = await classWithCustomer()
    clientAddressesFromHeader(t.app)
    const classmate = await Promise.all(Array.from({ length: 30 }, () => loginFrom(t, '10.0.0.2', '222', 'wrong')))
    expect(classmate.filter((a) => a.status === 401)).toHaveLength(10)
    expect(classmate.filter((a) => a.status === 429)).toHaveLength(20)
    expect(classmate.find((a) => a.status === 429)).toEqual({
      status: 429,
      message: `Too many failed logins for RM 222 from this network address in the last minute (10 at most). ${wait(60)} the teacher can reset a forgotten password.`,
      retryAfter: '60',
    })
    expect((await loginFrom(t, '10.0.0.3', '222', '222')).status).toBe(200)
    expect((await loginFrom(t, '10.0.0.2', '222', '222')).status).toBe(429)
    for (const machine of [4, 5, 6, 7]) {
      const answers = await Promise.all(Array.from({ length: 12 }, () => loginFrom(t, `10.0.0.${machine}`, '222', 'wrong')))
      expect(answers.map((a) => a.status).filter((s) => s === 401)).toHaveLength(10)
    }
    const everywhere = await loginFrom(t, '10.0.0.3', '222', '222')
    expect(everywhere).toEqual({
      status: 429,
      message: `Too many failed logins for RM 222 from several network addresses in the last minute (50 at most). ${wait(60)} if they were not yours, tell the teacher.`,
      retryAfter: '60',
    })
    t.clock.advance(60_000)
    expect((await loginFrom(t, '10.0.0.3', '222', '222')).status).toBe(200)
  })
})
