import { describe, expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { z } from 'zod'
import { ErrorEnvelope } from '../../src/kernel/errors'
import { namesASecret, RememberedChecks } from '../../src/kernel/http/remembered'
import { ChangeItemBody } from '../../src/features/cart/model'
import { CustomerLoginBody, RegisterBody } from '../../src/features/customers/model'
import { createTestApp } from '../helpers/app'

// A request's parts are checked once per text (src/kernel/http/remembered.ts): a body, query or path
// sent again is given the value its first check gave, frozen; a failure is checked again; a body with
// a password is never kept.

describe('checks remembered by text', () => {
  test('a value is checked once per text and kept frozen, deeply; a failure is checked each time', () => {
    let checks = 0
    const check = new RememberedChecks().of((text: string) => {
      checks++
      const value = JSON.parse(text) as { n: number; tags: string[] }
      if (value.n < 0) throw new Error('negative')
      return value
    })
    const first = check('{"n":1,"tags":["a"]}') as { n: number; tags: string[] }
    const again = check('{"n":1,"tags":["a"]}')
    expect([again === first, checks, Object.isFrozen(first), Object.isFrozen(first.tags)]).toEqual([true, 1, true, true])
    expect(() => first.tags.push('b')).toThrow()
    expect(() => check('{"n":-1,"tags":[]}')).toThrow('negative')
    expect(() => check('{"n":-1,"tags":[]}')).toThrow('negative')
    expect(checks).toBe(3)
  })

  test('all routes share one bound: past it every route starts again; a text past the longest kept is checked each time', () => {
    let checks = 0
    const remembered = new RememberedChecks(3, 10)
    const a = remembered.of((text: string) => (checks++, { text }))
    const b = remembered.of((text: string) => (checks++, { text }))
    for (const text of ['1', '2']) a(text)
    b('3')
    a('1')
    expect(checks).toBe(3)
    // A fourth text: the three kept are forgotten, the fourth kept.
    b('4')
    a('1')
    b('4')
    expect(checks).toBe(5)
    const long = 'x'.repeat(11)
    a(long)
    a(long)
    expect(checks).toBe(7)
  })

  test('a body schema with a field named like a secret, at any depth, is told apart', () => {
    expect([namesASecret(CustomerLoginBody), namesASecret(RegisterBody), namesASecret(ChangeItemBody)]).toEqual([true, true, false])
    expect(namesASecret(z.object({ hook: z.object({ signingSecret: z.string() }) }))).toBe(true)
    expect(namesASecret(z.object({ items: z.array(z.object({ newPw: z.string() })) }))).toBe(true)
    expect(namesASecret(z.object({ name: z.string(), shipWeight: z.number() }))).toBe(false)
  })
})

describe('a route remembers the bodies it checked', () => {
  let counted = 0
  const Counted = z.object({ quantity: z.number().int(), tags: z.array(z.string()).default([]) }).transform((v) => (counted++, v))
  const Secret = z.object({ password: z.string() }).transform((v) => (counted++, v))
  const probes = new Elysia({ prefix: '/v1/bodies' })
    .post('/counted', ({ body }) => ({ frozen: Object.isFrozen(body) && Object.isFrozen(body.tags), quantity: body.quantity }), {
      body: Counted,
      response: { 200: z.object({ frozen: z.boolean(), quantity: z.number() }), 400: ErrorEnvelope },
    })
    .post('/secret', () => ({ ok: true }), { body: Secret, response: { 200: z.object({ ok: z.boolean() }), 400: ErrorEnvelope } })

  test('the same body twice is parsed and checked once, and the handler is given it frozen; a wrong one is refused each time', async () => {
    const { call } = createTestApp({ extraRoutes: probes })
    counted = 0
    for (let i = 0; i < 2; i++) expect((await call('POST', '/v1/bodies/counted', { body: { quantity: 2 } })).body).toEqual({ frozen: true, quantity: 2 })
    expect(counted).toBe(1)
    for (let i = 0; i < 2; i++) {
      const refused = await call('POST', '/v1/bodies/counted', { body: { quantity: 2.5 } })
      expect([refused.status, refused.body.error.code]).toEqual([400, 'VALIDATION_ERROR'])
    }
  })

  test('a body with a password is checked each time, never kept', async () => {
    const { call } = createTestApp({ extraRoutes: probes })
    counted = 0
    for (let i = 0; i < 2; i++) expect((await call('POST', '/v1/bodies/secret', { body: { password: 'hunter22' } })).body).toEqual({ ok: true })
    expect(counted).toBe(2)
  })
})
