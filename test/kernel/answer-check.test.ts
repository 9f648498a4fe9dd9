import { describe, expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { z } from 'zod'
import { ErrorEnvelope } from '../../src/kernel/errors'
import { CHECK_ANSWERS_ENV } from '../../src/kernel/http/answer-check'
import { createTestApp } from '../helpers/app'

const Answer = z.object({ name: z.string() })

// Routes whose answers keep, break or add to the schema they declare.
const probes = new Elysia({ prefix: '/v1/answers' })
  .get('/kept', () => ({ name: 'Ana' }), { response: { 200: Answer } })
  .get('/extra', () => ({ name: 'Ana', passwordHash: 'x' }), { response: { 200: Answer } })
  .get('/wrong', () => JSON.parse('{"name": 7}') as { name: string }, { response: { 200: Answer } })
  .post('/undeclared', ({ set }) => ((set.status = 201), { name: 'Ana' }), { response: { 200: Answer, 400: ErrorEnvelope } })

describe('the test suite holds every answer to its schema', () => {
  test('the switch is on in every test (test/setup.ts)', () => {
    expect(process.env[CHECK_ANSWERS_ENV]).toBe('1')
  })

  test('an answer that is its schema passes; an undocumented field, a value of another type or an undeclared status is a logged 500', async () => {
    const { call, log } = createTestApp({ extraRoutes: probes })
    expect((await call('GET', '/v1/answers/kept')).body).toEqual({ name: 'Ana' })
    for (const [method, path, problem] of [
      ['GET', '/v1/answers/extra', 'the schema gives back another value'],
      ['GET', '/v1/answers/wrong', 'invalid_type'],
      ['POST', '/v1/answers/undeclared', 'status 201 is not among the answers the route declares'],
    ] as const) {
      const res = await call(method, path)
      expect([path, res.status, res.body.error.code]).toEqual([path, 500, 'INTERNAL_ERROR'])
      expect(res.text).not.toContain('passwordHash')
      const logged = log.lines.filter((l) => l.includes('an answer does not match its schema') && l.includes(`"route":"${method} ${path}"`))
      expect([path, logged.length, logged[0]]).toEqual([path, 1, expect.stringContaining(problem)])
    }
  })
})
