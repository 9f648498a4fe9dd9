import { describe, expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { z } from 'zod'
import { notFound } from '../../src/kernel/errors'
import { MAX_JSON_DEPTH, MAX_JSON_VALUES } from '../../src/kernel/http/json-shape'
import { RouteTable } from '../../src/kernel/http/route-table'
import { MAX_DETAILS } from '../../src/kernel/http/validation'
import { createTestApp } from '../helpers/app'
import { expectWithinBaseline, medianMs } from '../helpers/limits'

/** One probe route with a strict body, as every feature declares its bodies. */
const probes = new Elysia({ prefix: '/v1' }).post('/probes', ({ body }) => ({ received: body }), {
  body: z.object({ name: z.string().min(1), tags: z.array(z.unknown()).optional() }).strict(),
})

const setup = () => createTestApp({ extraRoutes: probes })
const json = { 'content-type': 'application/json' }

const nested = (depth: number) => `{"name": "a", "tags": ${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`

describe('JSON bodies of a hostile shape', () => {
  test(`a body nested ${MAX_JSON_DEPTH} levels deep is read; one level more is a 400 that names the limit`, async () => {
    const { call } = setup()
    const ok = await call('POST', '/v1/probes', { raw: nested(MAX_JSON_DEPTH), headers: json })
    expect(ok.status).toBe(200)
    const deep = await call('POST', '/v1/probes', { raw: nested(MAX_JSON_DEPTH + 1), headers: json })
    expect(deep.status).toBe(400)
    expect(deep.body.error.code).toBe('VALIDATION_ERROR')
    expect(deep.body.error.message).toContain(`nested more than ${MAX_JSON_DEPTH} levels deep`)
  })

  test('a key named __proto__ is refused wherever it is and however it is written; the word in a value is not', async () => {
    const { call } = setup()
    const message = 'The JSON body has a key named "__proto__", which no route takes and JavaScript treats as special: rename or remove it.'
    for (const raw of ['{"name": "a", "__proto__": {"x": 1}}', '{"name": "a", "tags": [{"__proto__": 1}]}', '{"name": "a", "\\u005f_proto__": 1}', '{"name": "a", "__pro\\u0074o__": 1}']) {
      const res = await call('POST', '/v1/probes', { raw, headers: json })
      expect([raw, res.status, res.body.error.message, res.body.error.details]).toEqual([raw, 400, message, [{ path: '', message: 'a key named "__proto__"' }]])
    }
    const kept = await call('POST', '/v1/probes', { raw: '{"name": "__proto__ prototype \\u0041", "tags": [{"proto": 1}]}', headers: json })
    expect([kept.status, kept.body.received]).toEqual([200, { name: '__proto__ prototype A', tags: [{ proto: 1 }] }])
  })

  test('brackets inside strings, escaped quotes included, are not nesting', async () => {
    const { call } = setup()
    const name = `\\"${'['.repeat(100)}\\\\`
    const res = await call('POST', '/v1/probes', { raw: `{"name": "${name}"}`, headers: json })
    expect(res.status).toBe(200)
    expect(res.body.received.name).toBe(`"${'['.repeat(100)}\\`)
  })

  test(`a body of ${MAX_JSON_VALUES.toLocaleString('en')} values is read; one more is a 400 that names the limit`, async () => {
    const { call } = setup()
    // The object and its two fields are three values; the array holds the rest.
    const tags = (n: number) => JSON.stringify({ name: 'a', tags: Array(n).fill(1) })
    const ok = await call('POST', '/v1/probes', { raw: tags(MAX_JSON_VALUES - 2), headers: json })
    expect(ok.status).toBe(200)
    expect(ok.body.received.tags).toHaveLength(MAX_JSON_VALUES - 2)
    const many = await call('POST', '/v1/probes', { raw: tags(MAX_JSON_VALUES - 1), headers: json })
    expect(many.status).toBe(400)
    expect(many.body.error.message).toContain(`more than ${MAX_JSON_VALUES.toLocaleString('en')} values`)
  })

  test(`thousands of unknown fields are answered with the first ${MAX_DETAILS} and a count, not a list of all`, async () => {
    const { call } = setup()
    const fields = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`extra${i}`, i]))
    const res = await call('POST', '/v1/probes', { body: { name: 'a', ...fields } })
    expect(res.status).toBe(400)
    expect(res.body.error.details).toHaveLength(MAX_DETAILS)
    expect(res.body.error.details[0]).toEqual({ path: 'extra0', message: 'unknown or read-only field; remove it' })
    expect(res.body.error.message).toContain(`(and 4999 more problems; the first ${MAX_DETAILS} are in details)`)
    expect(res.text.length).toBeLessThan(4096)
  })

  test('a field name of half a megabyte is not echoed back', async () => {
    const { call } = setup()
    const long = 'k'.repeat(512 * 1024)
    const res = await call('POST', '/v1/probes', { body: { name: 'a', [long]: 1 } })
    expect(res.status).toBe(400)
    expect(res.body.error.details[0].path).toBe(`${'k'.repeat(100)}…`)
    expect(res.text.length).toBeLessThan(2048)
  })

  test('a large valid body (over 64 KiB) is still read and answered', async () => {
    const { call } = setup()
    const tags = Array.from({ length: 300 }, (_, i) => `${i}`.padEnd(400, '.'))
    const res = await call('POST', '/v1/probes', { body: { name: 'big', tags } })
    expect(res.status).toBe(200)
    expect(res.body.received.tags).toEqual(tags)
  })
})

describe('paths of a hostile length', () => {
  const routes = new RouteTable()
  routes.fill(['/v1/products', '/v1/products/:id', '/v1/store/orders/:id/transition'].map((path) => ({ method: 'GET', path })))

  test('a typo is still suggested, an id in place of its parameter too', () => {
    expect(routes.suggest('GET', '/v1/prodcts')).toBe('/v1/products')
    expect(routes.suggest('GET', '/v1/store/order/ord_12345/transition')).toBe('/v1/store/orders/:id/transition')
  })

  test('a path far longer than any route is not compared (it cannot be a typo of one): it costs no more than an ordinary typo', () => {
    const long = `/v1/${'products/'.repeat(1800)}`
    const typo = '/v1/store/order/ord_12345/transition'
    expect(routes.suggest('GET', long)).toBeUndefined()
    expect(routes.suggest('GET', typo)).toBe('/v1/store/orders/:id/transition')
    const twentySuggestions = (path: string) => () => {
      for (let i = 0; i < 20; i++) routes.suggest('GET', path)
    }
    const ordinary = medianMs(twentySuggestions(typo))
    // Twenty edit distances over 16 KiB took seconds, thousands of times the ordinary typo's; skipping them
    // takes microseconds. The slack keeps sub-millisecond noise from counting.
    expectWithinBaseline('twenty suggestions for a 16 KiB path (baseline: for an ordinary typo)', medianMs(twentySuggestions(long)), ordinary, { factor: 2, slackMs: 1 })
  })

  test('an unknown 16 KiB path is a 404 that quotes only the start of it', async () => {
    const { call } = setup()
    const long = `/v1/${'x'.repeat(16_000)}`
    const res = await call('GET', long)
    expect(res.status).toBe(404)
    expect(res.body.error.message).toStartWith(`There is no route GET /v1/${'x'.repeat(196)}…. `)
    expect(res.text.length).toBeLessThan(1024)
  })

  test('an unknown id of 10,000 characters is a 404 that quotes only the start of it', () => {
    const error = notFound('product', `var_${'p'.repeat(10_000)}`, 'GET /v1/products lists them')
    expect(error.message).toBe(
      `No product with id 'var_${'p'.repeat(76)}…' in this store. 'var_${'p'.repeat(76)}…' is a variant id, not a product id. Check the id; GET /v1/products lists them.`,
    )
  })
})

describe('bodies the server does not read to the end', () => {
  const send = (app: { handle(r: Request): Promise<Response> }, method: string, path: string, body: string | undefined, type = 'application/json') =>
    app.handle(new Request(`http://localhost${path}`, { method, headers: body === undefined ? {} : { 'content-type': type }, body }))

  test('an answer given instead of reading the body ends the connection; one that read it whole keeps it', async () => {
    const { app } = setup()
    const refused = await send(app, 'POST', '/v1/probes', JSON.stringify({ name: '' }))
    expect([refused.status, refused.headers.get('connection')]).toEqual([400, 'close'])
    const wrongType = await send(app, 'POST', '/v1/probes', 'name=a', 'text/plain')
    expect([wrongType.status, wrongType.headers.get('connection')]).toEqual([415, 'close'])
    const unknown = await send(app, 'POST', '/v1/nowhere', '{}')
    expect([unknown.status, unknown.headers.get('connection')]).toEqual([404, 'close'])
    const read = await send(app, 'POST', '/v1/probes', JSON.stringify({ name: 'a' }))
    expect([read.status, read.headers.get('connection')]).toEqual([200, null])
    const noBody = await send(app, 'POST', '/v1/nowhere', undefined)
    expect([noBody.status, noBody.headers.get('connection')]).toEqual([404, null])
  })
})
