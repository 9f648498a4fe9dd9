import { describe, expect, test } from 'bun:test'
import { argon2Passwords, PasswordTurns, WAITING_PER_STORE } from '../../src/kernel/auth/passwords'
import { AppError } from '../../src/kernel/errors'
import { CHEAP_PASSWORD_COST, createTestApp, type CallResult } from '../helpers/app'
import { activeStudent, apiKey, createGroup, createKey, expectOk } from '../helpers/world'

/** A check that ends when told: `started` lists the names in the order their turn came. */
function checks(turns: PasswordTurns) {
  const started: string[] = []
  const finish = new Map<string, () => void>()
  const submit = (owner: string, name: string) =>
    turns.run(owner, () => {
      started.push(name)
      return new Promise<string>((done) => finish.set(name, () => done(name)))
    })
  const end = async (name: string) => {
    finish.get(name)!()
    await Bun.sleep(0)
  }
  return { started, submit, end }
}

describe('password checks take turns, a store at a time', () => {
  test("one store's flood waits its turn: another store's check starts after one more of the flood's, and past its waiting bound the flood is refused 429", async () => {
    const { started, submit, end } = checks(new PasswordTurns(1, 3))
    const flood = ['a1', 'a2', 'a3', 'a4'].map((name) => submit('storeA', name))
    // One running and three waiting: the fifth has no place.
    const refused = await submit('storeA', 'a5').catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(AppError)
    expect([(refused as AppError).status, (refused as AppError).code, (refused as AppError).headers]).toEqual([429, 'RATE_LIMITED', { 'retry-after': '1' }])
    expect((refused as AppError).message).toStartWith('Too many password checks for this store at once (3 waiting')
    const other = submit('storeB', 'b1')
    await Bun.sleep(0)
    expect(started).toEqual(['a1'])
    for (const name of ['a1', 'a2', 'b1', 'a3']) await end(name)
    // Store A was waiting first, so its next check goes first; then B's turn, before the rest of A's.
    expect(started).toEqual(['a1', 'a2', 'b1', 'a3', 'a4'])
    await end('a4')
    expect(await Promise.all([...flood, other])).toEqual(['a1', 'a2', 'a3', 'a4', 'b1'])
  })

  test('as many run at once as there are slots; a failed check gives its slot back', async () => {
    const turns = new PasswordTurns(2, 10)
    const { started, submit, end } = checks(turns)
    const running = [submit('s', 'one'), submit('t', 'two')]
    const third = submit('u', 'three')
    await Bun.sleep(0)
    expect(started).toEqual(['one', 'two'])
    await end('one')
    expect(started).toEqual(['one', 'two', 'three'])
    // A check that fails (argon2 throwing) frees its slot like one that ends.
    // (Handled at once: bun's expect(...).rejects on a pending promise runs the loop until it settles, here never.)
    const failing = turns.run('s', () => Promise.reject(new Error('argon2 failed'))).then(
      () => 'resolved',
      (e: Error) => e.message,
    )
    await end('two')
    expect(await failing).toBe('argon2 failed')
    const fourth = submit('v', 'four')
    await Bun.sleep(0)
    expect(started).toEqual(['one', 'two', 'three', 'four'])
    await end('three')
    await end('four')
    expect(await Promise.all([...running, third, fourth])).toEqual(['one', 'two', 'three', 'four'])
  })

  test("a burst of a shop page's registrations is refused past its store's turn with what to do, and no student login is, of another group or its own", async () => {
    const t = createTestApp({ settings: { rateLimitRps: '0' } })
    await createGroup(t.call, 'Azul', [
      { rm: '111', name: 'Ana' },
      { rm: '112', name: 'Beto' },
    ])
    await createGroup(t.call, 'Verde', [{ rm: '333', name: 'Caio' }])
    const pk = (await createKey(t.call, await activeStudent(t.call, '111'), 'shop', 'publishable')).apiKey
    const register = (i: number) => t.call('POST', '/v1/customers/register', { headers: apiKey(pk), body: { email: `c${i}@example.com`, password: 'a-good-password', name: `C ${i}` } })
    const login = (rm: string, password: string) => t.call('POST', '/v1/store/auth/login', { body: { rm, password } })
    // The key is in the shop's page, which anyone may copy: its flood has a queue of its own, apart from the
    // group's logins, so those are neither refused nor told apart from an unknown RM's.
    const [answers, ...logins] = await Promise.all([
      Promise.all(Array.from({ length: WAITING_PER_STORE + 40 }, (_, i) => register(i))),
      login('333', '333'),
      login('112', '112'),
      login('112', 'wrong-guess'),
      login('999', 'wrong-guess'),
    ])
    expect(logins.map((l) => [l.status, l.body.error?.code])).toEqual([
      [200, undefined],
      [200, undefined],
      [401, 'UNAUTHENTICATED'],
      [401, 'UNAUTHENTICATED'],
    ])
    const refused = answers.filter((a) => a.status === 429)
    expect(refused.length).toBeGreaterThan(0)
    expect(answers.filter((a) => a.status !== 429 && a.status !== 201)).toEqual([])
    for (const a of refused) {
      expect([a.body.error.code, a.headers.get('retry-after')]).toEqual(['RATE_LIMITED', '1'])
      expect(a.body.error.message).toContain('Send logins and registrations one after another')
    }
    // The refused ones registered no one: each can be sent again, one after another.
    const again = answers.indexOf(refused[0]!)
    expect((await expectOk(register(again), 201)).customer.email).toBe(`c${again}@example.com`)
  })

  /** Ten wrong logins at once, then one after another until the throttle's 429: the 401s of both. */
  async function triesBeforeLocked(wrong: () => Promise<CallResult>) {
    // Ten at once, as many as the throttle lets in: all pass it, and those with no turn are refused by the turns.
    const burst = await Promise.all(Array.from({ length: 10 }, wrong))
    const checked = burst.filter((a) => a.status === 401).length
    const refused = burst.filter((a) => a.status === 429)
    expect(refused.length).toBeGreaterThan(0)
    expect(refused.map((a) => a.body.error.message.slice(0, 31))).toEqual(refused.map(() => 'Too many password checks for th'))
    // One after another, the wrong password is checked until the throttle's ten failures, counted from the checked ones only.
    let more = 0
    while ((await wrong()).status === 401) more++
    return checked + more
  }

  test('a login refused for want of a turn is not a failed login: the RM, and a customer, still get their ten tries', async () => {
    const t = createTestApp({ settings: { rateLimitRps: '0' }, passwords: argon2Passwords(CHEAP_PASSWORD_COST, new PasswordTurns(1, 1)) })
    await createGroup(t.call, 'Azul', [
      { rm: '111', name: 'Ana' },
      { rm: '222', name: 'Bruno' },
    ])
    expect(await triesBeforeLocked(() => t.call('POST', '/v1/store/auth/login', { body: { rm: '222', password: 'wrong-guess' } }))).toBe(10)
    const key = apiKey((await createKey(t.call, await activeStudent(t.call, '111'))).apiKey)
    await expectOk(t.call('POST', '/v1/customers/register', { headers: key, body: { email: 'lia@example.com', password: 'lia-password', name: 'Lia' } }), 201)
    expect(await triesBeforeLocked(() => t.call('POST', '/v1/customers/login', { headers: key, body: { email: 'lia@example.com', password: 'wrong-guess' } }))).toBe(10)
  })
})
