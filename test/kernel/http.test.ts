import { describe, expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { z } from 'zod'
import { AppError } from '../../src/kernel/errors'
import { JSON_BODY_LIMIT } from '../../src/kernel/http/json-body'
import { Money } from '../../src/kernel/money'
import { PageQuery, toPage } from '../../src/kernel/pagination'
import { createTestApp } from '../helpers/app'
import { rawGet } from '../helpers/raw-get'

/** Probe routes: the smallest features that exercise every path of the HTTP kernel. */
const probes = new Elysia({ prefix: '/v1' })
  .post('/probes', ({ body }) => ({ received: body }), {
    body: z.object({ name: z.string().min(1), price: Money, tags: z.array(z.string()).max(3).optional() }).strict(),
  })
  .get('/probes', ({ query }) => toPage(Array.from({ length: query.pageSize }, (_, i) => i), 1000, query), {
    query: PageQuery,
  })
  .delete('/probes/:id', () => new Response(null, { status: 204 }))
  .post('/probes/nobody', () => ({ ok: true }))
  .get('/probes/conflict', () => {
    throw new AppError('INSUFFICIENT_STOCK', 'Only 2 left of var_1.', [{ variantId: 'var_1', available: 2 }])
  })
  .get('/probes/crash', () => {
    throw new Error('secret internal detail at /srv/storefront/src/x.ts:12')
  })
  .post('/probes/disk-full', () => {
    // What bun:sqlite throws when a write meets a full disk.
    throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })
  })

const setup = () => createTestApp({ extraRoutes: probes })

const expectEnvelope = (body: any, code: string) => {
  expect(Object.keys(body)).toEqual(['error'])
  expect(body.error.code).toBe(code)
  expect(typeof body.error.message).toBe('string')
  expect(body.error.message.length).toBeGreaterThan(20)
}

describe('the error envelope', () => {
  test('an unknown route is a 404 envelope that points to /docs and suggests the close route', async () => {
    const { call } = setup()
    const res = await call('GET', '/v1/probs')
    expect(res.status).toBe(404)
    expectEnvelope(res.body, 'NOT_FOUND')
    expect(res.body.error.message).toBe('There is no route GET /v1/probs. Did you mean /v1/probes? Every route is listed at /docs.')
  })

  test('a Host header that names no valid host still gets the answer of its route, never a 500', async () => {
    const t = setup()
    const server = t.app.listen({ hostname: '127.0.0.1', port: 0 })
    try {
      // Bun leaves request.url as sent, or the path alone, for these.
      for (const host of ['a b', 'shop.lab:99999', 'evil.example"><img src=x>', 'x@y:1']) {
        const health = await rawGet(server.server!.port!, '/health', host)
        expect(`${host}: ${health.status} ${JSON.parse(health.body).status}`).toBe(`${host}: 200 ok`)
        const unknown = await rawGet(server.server!.port!, '/v1/probs', host)
        expect(`${host}: ${unknown.status} ${JSON.parse(unknown.body).error.code}`).toBe(`${host}: 404 NOT_FOUND`)
        const probes = await rawGet(server.server!.port!, '/v1/probes?pageSize=2', host)
        expect(`${host}: ${probes.status} ${JSON.parse(probes.body).data}`).toBe(`${host}: 200 0,1`)
      }
    } finally {
      await server.stop()
    }
  })

  test('a path without /v1 is told that API routes start with /v1', async () => {
    const { call } = setup()
    const res = await call('GET', '/nothing-like-it-at-all')
    expect(res.status).toBe(404)
    expect(res.body.error.message).toContain('API routes start with /v1')
  })

  test('a known path with the wrong method is 405 with Allow listing the methods it takes', async () => {
    const { call } = setup()
    const res = await call('PUT', '/v1/probes')
    expect(res.status).toBe(405)
    expectEnvelope(res.body, 'METHOD_NOT_ALLOWED')
    expect(res.headers.get('allow')).toBe('POST, GET, HEAD')
    expect(res.body.error.message).toBe('/v1/probes does not accept PUT. It accepts POST, GET, HEAD.')
    const withId = await call('GET', '/v1/probes/prod_123')
    expect(withId.status).toBe(405)
    expect(withId.headers.get('allow')).toBe('DELETE')
  })

  test('malformed JSON is a 400 VALIDATION_ERROR that says the JSON is broken', async () => {
    const { call } = setup()
    const res = await call('POST', '/v1/probes', { raw: '{"name": "a",', headers: { 'content-type': 'application/json' } })
    expect(res.status).toBe(400)
    expectEnvelope(res.body, 'VALIDATION_ERROR')
    expect(res.body.error.message).toStartWith('The request body is not valid JSON (')
    // Like every VALIDATION_ERROR it has details; the path of the body as a whole is ''.
    expect(res.body.error.details).toEqual([{ path: '', message: res.body.error.message }])
  })

  test('a failed validation lists every problem in details, unknown fields by name', async () => {
    const { call } = setup()
    const res = await call('POST', '/v1/probes', { body: { name: '', price: 'free', stock: 3, tags: ['a', 7] } })
    expect(res.status).toBe(400)
    expectEnvelope(res.body, 'VALIDATION_ERROR')
    const details = res.body.error.details as { path: string; message: string }[]
    expect(details.map((d) => d.path).sort()).toEqual(['name', 'price', 'stock', 'tags.1'])
    expect(details.find((d) => d.path === 'stock')!.message).toBe('unknown or read-only field; remove it')
    // zod's own wording of a check with no message of its own is said as what to send instead.
    expect(details.find((d) => d.path === 'price')!.message).toBe('must be a number, a JSON number without quotes (19.9, not "19.9")')
    expect(details.find((d) => d.path === 'name')!.message).toBe('must not be empty')
    expect(res.body.error.message).toStartWith('Invalid request body: ')
    expect(res.body.error.message).toContain('(and 3 more problems in details)')
  })

  test('a value of the wrong type gets one message, not also the checks of the type it should have been', async () => {
    const { call } = setup()
    // zod runs an array's length check on a string too: "Too big: expected string to have <=3 characters".
    const res = await call('POST', '/v1/probes', { body: { name: 'a', price: 1, tags: 'one,two,three,four' } })
    expect([res.status, res.body.error.details]).toEqual([400, [{ path: 'tags', message: 'expected array, received string' }]])
    const tooMany = await call('POST', '/v1/probes', { body: { name: 'a', price: 1, tags: ['a', 'b', 'c', 'd'] } })
    expect(tooMany.body.error.details).toEqual([{ path: 'tags', message: 'has at most 3 items' }])
  })

  test('money with three decimals or below zero is refused with a message that shows the form', async () => {
    const { call } = setup()
    const three = await call('POST', '/v1/probes', { body: { name: 'a', price: 19.999 } })
    expect(three.status).toBe(400)
    expect(three.body.error.details).toEqual([{ path: 'price', message: 'must have at most 2 decimals, e.g. 19.99 (round a computed amount to cents: Math.round(x * 100) / 100)' }])
    const negative = await call('POST', '/v1/probes', { body: { name: 'a', price: -1 } })
    expect(negative.body.error.details).toEqual([{ path: 'price', message: 'must not be negative' }])
    const ok = await call('POST', '/v1/probes', { body: { name: 'a', price: 19.99 } })
    expect(ok.status).toBe(200)
    expect(ok.body).toEqual({ received: { name: 'a', price: 19.99 } })
  })

  test('a missing or empty body says a JSON object is needed', async () => {
    const { call } = setup()
    const missing = await call('POST', '/v1/probes')
    expect(missing.status).toBe(400)
    expect(missing.body.error.message).toBe(
      'The request body is missing. Send a JSON object with the header Content-Type: application/json.',
    )
    const empty = await call('POST', '/v1/probes', { raw: '', headers: { 'content-type': 'application/json' } })
    expect(empty.status).toBe(400)
    expect(empty.body.error.message).toStartWith('The request body is empty.')
    expect([missing.body.error.details, empty.body.error.details]).toEqual([
      [{ path: '', message: missing.body.error.message }],
      [{ path: '', message: empty.body.error.message }],
    ])
  })

  test('a form body (curl -d without a content type) is 415 with the header to add', async () => {
    const { call } = setup()
    const res = await call('POST', '/v1/probes', {
      raw: 'name=a&price=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    expect(res.status).toBe(415)
    expectEnvelope(res.body, 'UNSUPPORTED_MEDIA_TYPE')
    expect(res.body.error.message).toContain("-H 'Content-Type: application/json'")
    const text = await call('POST', '/v1/probes', { raw: '{"name":"a","price":1}', headers: { 'content-type': 'text/plain' } })
    expect(text.status).toBe(415)
    expect(text.body.error.message).toContain("Content-Type 'text/plain'")
  })

  test('a route without a body refuses one that says something, naming its first fields; an empty body or {} is none', async () => {
    const { call } = setup()
    const send = (raw: string, type = 'application/json') => call('POST', '/v1/probes/nobody', { raw, headers: { 'content-type': type } })
    const refusal = (had: string) => ({
      error: {
        code: 'VALIDATION_ERROR',
        message: `POST /v1/probes/nobody takes no body${had}: send the request without one. What each route takes is in /docs.`,
        details: [{ path: '', message: 'this route takes no body' }],
      },
    })
    expect(await send('{"items":[{"variantId":"var_1","quantity":2}]}')).toMatchObject({ status: 400, body: refusal(' (it had "items")') })
    // At most five names, each cut at 40 characters: the answer never echoes the body back.
    const many = JSON.stringify(Object.fromEntries(['k'.repeat(100_000), 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((k) => [k, 1])))
    expect(await send(many)).toMatchObject({ status: 400, body: refusal(` (it had "${'k'.repeat(39)}…, "b", "c", "d", "e", and 3 more)`) })
    expect(await send('{broken')).toMatchObject({ status: 400, body: refusal('') })
    expect(await send('hello', 'text/plain')).toMatchObject({ status: 400, body: refusal('') })
    expect(await send('['.repeat(100_000))).toMatchObject({ status: 400, body: refusal('') })
    for (const nothing of ['', '  ', '{}', ' { } ']) expect(await send(nothing)).toMatchObject({ status: 200, body: { ok: true } })
    expect(await call('POST', '/v1/probes/nobody')).toMatchObject({ status: 200, body: { ok: true } })
    // Within the JSON limit, as any body: past it, 413.
    expect((await send(JSON.stringify({ note: 'x'.repeat(JSON_BODY_LIMIT) }))).status).toBe(413)
  })

  test('a JSON body over 1 MiB is 413 PAYLOAD_TOO_LARGE, declared or streamed', async () => {
    const { call, app } = setup()
    const big = JSON.stringify({ name: 'x'.repeat(JSON_BODY_LIMIT), price: 1 })
    const declared = await call('POST', '/v1/probes', { raw: big, headers: { 'content-type': 'application/json' } })
    expect(declared.status).toBe(413)
    expectEnvelope(declared.body, 'PAYLOAD_TOO_LARGE')
    // Without Content-Length the limit still holds: the body is cut off while it streams in.
    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024))
    let sent = 0
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent > 4 * JSON_BODY_LIMIT) return controller.close()
        sent += chunk.byteLength
        controller.enqueue(chunk)
      },
    })
    const res = await app.handle(
      new Request('http://localhost/v1/probes', { method: 'POST', headers: { 'content-type': 'application/json' }, body: stream }),
    )
    expect(res.status).toBe(413)
    expect(((await res.json()) as any).error.code).toBe('PAYLOAD_TOO_LARGE')
    expect(sent).toBeLessThan(2 * JSON_BODY_LIMIT)
  })

  test('an AppError keeps its status, code and details', async () => {
    const { call } = setup()
    const res = await call('GET', '/v1/probes/conflict')
    expect(res.status).toBe(409)
    expect(res.body).toEqual({
      error: { code: 'INSUFFICIENT_STOCK', message: 'Only 2 left of var_1.', details: [{ variantId: 'var_1', available: 2 }] },
    })
  })

  test('an uncaught error is a 500 with a request id, logged with its stack, never shown', async () => {
    const { call, log } = setup()
    const res = await call('GET', '/v1/probes/crash')
    expect(res.status).toBe(500)
    expectEnvelope(res.body, 'INTERNAL_ERROR')
    expect(res.text).not.toContain('secret internal detail')
    expect(res.text).not.toContain('.ts')
    const requestId = res.headers.get('x-request-id')!
    expect(res.body.error.requestId).toBe(requestId)
    const logged = log.lines.find((l) => l.includes(requestId))!
    expect(logged).toContain('secret internal detail')
  })

  test('a write that meets a full disk is 507 INSUFFICIENT_STORAGE, logged, not a 500 saying to try again (found by the disk-full drill)', async () => {
    const { call, log } = setup()
    const res = await call('POST', '/v1/probes/disk-full')
    expect(res.status).toBe(507)
    expectEnvelope(res.body, 'INSUFFICIENT_STORAGE')
    expect(res.body.error.message).toContain('disk is full')
    expect(log.lines.some((l) => l.includes(res.headers.get('x-request-id')!))).toBe(true)
  })
})

describe('headers on every response', () => {
  test('X-Request-Id is on successes and errors, and a sane incoming one is kept', async () => {
    const { call } = setup()
    const ok = await call('GET', '/health')
    const err = await call('GET', '/v1/nope')
    expect(ok.headers.get('x-request-id')).toMatch(/^req_[0-9a-z]{16}$/)
    expect(err.headers.get('x-request-id')).toMatch(/^req_[0-9a-z]{16}$/)
    expect(ok.headers.get('x-request-id')).not.toBe(err.headers.get('x-request-id'))
    const kept = await call('GET', '/health', { headers: { 'x-request-id': 'client-42' } })
    expect(kept.headers.get('x-request-id')).toBe('client-42')
    const odd = await call('GET', '/health', { headers: { 'x-request-id': 'bad id with spaces' } })
    expect(odd.headers.get('x-request-id')).toMatch(/^req_/)
  })

  test('CORS lets a browser app on another host call and read the headers, errors included', async () => {
    const { call } = setup()
    for (const res of [await call('GET', '/health'), await call('GET', '/v1/nope')]) {
      expect(res.headers.get('access-control-allow-origin')).toBe('*')
      expect(res.headers.get('access-control-expose-headers')).toContain('X-Request-Id')
      expect(res.headers.get('access-control-expose-headers')).toContain('RateLimit-Remaining')
      expect(res.headers.get('vary')).toBeNull()
    }
    const preflight = await call('OPTIONS', '/v1/probes', {
      headers: {
        origin: 'http://192.168.0.20:5173',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, x-api-key',
      },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*')
    expect(preflight.headers.get('access-control-allow-headers')).toBe('content-type, x-api-key')
    expect(preflight.headers.get('access-control-allow-methods')).toBe('GET, POST, PUT, PATCH, DELETE')
    const bare = await call('OPTIONS', '/v1/probes', { headers: { origin: 'http://a', 'access-control-request-method': 'GET' } })
    expect(bare.headers.get('access-control-allow-headers')).toContain('X-API-Key')
  })
})

describe('pagination', () => {
  test('page defaults to 1 and pageSize to 20, in the page envelope', async () => {
    const { call } = setup()
    const res = await call('GET', '/v1/probes')
    expect(res.status).toBe(200)
    expect(res.body.page).toBe(1)
    expect(res.body.pageSize).toBe(20)
    expect(res.body.total).toBe(1000)
    expect(res.body.data).toHaveLength(20)
  })

  test('pageSize above 100 is a 400 that says the maximum; page 0, a word or a fraction is a 400 that shows a good value', async () => {
    const { call } = setup()
    const big = await call('GET', '/v1/probes?pageSize=101')
    expect(big.status).toBe(400)
    expect(big.body.error.details).toEqual([{ path: 'pageSize', message: 'pageSize can be at most 100; ask for the next page instead' }])
    expect(big.body.error.message).toStartWith('Invalid query string: pageSize:')
    const zero = await call('GET', '/v1/probes?page=0')
    expect(zero.status).toBe(400)
    expect(zero.body.error.details[0].path).toBe('page')
    const word = await call('GET', '/v1/probes?page=two')
    expect(word.status).toBe(400)
    expect(word.body.error.details).toEqual([{ path: 'page', message: 'page must be a whole number, 1 or more, e.g. page=2' }])
    const notNumber = await call('GET', '/v1/probes?pageSize=abc')
    expect(notNumber.body.error.details).toEqual([{ path: 'pageSize', message: 'pageSize must be a whole number from 1 to 100, e.g. pageSize=20' }])
    const fraction = await call('GET', '/v1/probes?pageSize=2.5')
    expect(fraction.body.error.details).toEqual([{ path: 'pageSize', message: 'pageSize must be a whole number from 1 to 100, e.g. pageSize=20' }])
    const ok = await call('GET', '/v1/probes?page=3&pageSize=100')
    expect([ok.body.page, ok.body.pageSize, ok.body.data.length]).toEqual([3, 100, 100])
  })
})
