import { describe, expect, test } from 'bun:test'
import { createTestApp } from '../helpers/app'
import { apiKey, bearer, twoStores } from '../helpers/world'

const setup = async () => {
  const t = createTestApp({ settings: { rateLimitRps: '0' } })
  return { ...t, world: await twoStores(t.call, t.deps) }
}

describe('customers', () => {
  test('register answers 201 with a customer token and the customer, e-mail in lower case', async () => {
    const { call, world, clock } = await setup()
    const res = await call('POST', '/v1/customers/register', {
      headers: apiKey(world.A.key.apiKey),
      body: { email: 'Maria@Example.com', password: 'maria-password', name: 'Maria' },
    })
    expect(res.status).toBe(201)
    expect(res.body).toEqual({
      token: expect.stringMatching(/^ctk_[0-9a-z]{40}$/),
      customer: { id: expect.stringMatching(/^cus_/), email: 'maria@example.com', name: 'Maria' },
      expiresAt: new Date(clock.now() + 30 * 86400_000).toISOString(),
    })
    const me = await call('GET', '/v1/customers/me', { headers: { ...apiKey(world.A.key.apiKey), ...bearer(res.body.token) } })
    expect(me.body).toEqual(res.body.customer)
  })

  test('an e-mail is unique in a store, ignoring case, and free in another store', async () => {
    const { call, world } = await setup()
    const body = { email: 'joao@example.com', password: 'joao-password', name: 'João' }
    expect((await call('POST', '/v1/customers/register', { headers: apiKey(world.A.key.apiKey), body })).status).toBe(201)
    const dup = await call('POST', '/v1/customers/register', { headers: apiKey(world.A.key.apiKey), body: { ...body, email: 'JOAO@example.com' } })
    expect([dup.status, dup.body.error.code]).toEqual([409, 'CONFLICT'])
    expect(dup.body.error.message).toContain('POST /v1/customers/login')
    expect((await call('POST', '/v1/customers/register', { headers: apiKey(world.B.key.apiKey), body })).status).toBe(201)
  })

  test('login gives a token that works only with its own store key', async () => {
    const { call, world } = await setup()
    const body = { email: 'lia@example.com', password: 'lia-password', name: 'Lia' }
    await call('POST', '/v1/customers/register', { headers: apiKey(world.A.key.apiKey), body })
    const login = await call('POST', '/v1/customers/login', { headers: apiKey(world.A.key.apiKey), body: { email: 'LIA@example.com', password: 'lia-password' } })
    expect(login.status).toBe(200)
    expect(login.body.customer.email).toBe('lia@example.com')
    const elsewhere = await call('GET', '/v1/customers/me', { headers: { ...apiKey(world.B.key.apiKey), ...bearer(login.body.token) } })
    expect([elsewhere.status, elsewhere.body.error.code]).toEqual([401, 'UNAUTHENTICATED'])
    // The same e-mail and password do not log in at another store.
    const other = await call('POST', '/v1/customers/login', { headers: apiKey(world.B.key.apiKey), body: { email: 'lia@example.com', password: 'lia-password' } })
    expect(other.status).toBe(401)
    const wrong = await call('POST', '/v1/customers/login', { headers: apiKey(world.A.key.apiKey), body: { email: 'lia@example.com', password: 'nope-nope' } })
    expect(wrong.body.error.message).toStartWith('E-mail or password is wrong for this store.')
  })

  test('a customer session lasts 30 days', async () => {
    const { call, world, clock } = await setup()
    const reg = await call('POST', '/v1/customers/register', {
      headers: apiKey(world.A.key.apiKey),
      body: { email: 'rui@example.com', password: 'rui-password', name: 'Rui' },
    })
    const headers = { ...apiKey(world.A.key.apiKey), ...bearer(reg.body.token) }
    clock.advance(30 * 86400_000 - 1)
    expect((await call('GET', '/v1/customers/me', { headers })).status).toBe(200)
    clock.advance(1)
    const expired = await call('GET', '/v1/customers/me', { headers })
    expect(expired.status).toBe(401)
    expect(expired.body.error.message).toContain('expired')
  })

  test('bad input is named: short password, bad e-mail, missing name', async () => {
    const { call, world } = await setup()
    const res = await call('POST', '/v1/customers/register', { headers: apiKey(world.A.key.apiKey), body: { email: 'x', password: 'short' } })
    expect(res.status).toBe(400)
    expect(res.body.error.details).toEqual(
      expect.arrayContaining([
        { path: 'email', message: 'email must be an e-mail address, e.g. ana@example.com' },
        { path: 'password', message: 'password needs at least 8 characters' },
        { path: 'name', message: 'is required (string)' },
      ]),
    )
    // An address copied with spaces around it is told so, at register and login alike.
    for (const route of ['register', 'login']) {
      const spaced = await call('POST', `/v1/customers/${route}`, { headers: apiKey(world.A.key.apiKey), body: { email: ' ana@example.com ', password: 'long-enough', name: 'Ana' } })
      expect(spaced.body.error.details.filter((d: { path: string }) => d.path === 'email')).toEqual([
        { path: 'email', message: 'email has spaces around it: trim the value before sending it (ana@example.com, not " ana@example.com ")' },
      ])
    }
  })
})
