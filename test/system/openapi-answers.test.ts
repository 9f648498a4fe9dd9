import { beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createTestApp } from '../helpers/app'
import { apiKey, oneStore, upload } from '../helpers/world'

/** Every operation of the document, with its route's credential, and its answers with shared ones read from the components. */
interface Op {
  at: string
  method: string
  path: string
  auth: string | undefined
  op: any
  /** The answer for a status, a shared response followed to its definition; undefined when not listed. */
  answer(status: number | string): any
  /** The names of the headers the answer for a status declares. */
  headers(status: number | string): string[]
}

let doc: any
let ops: Op[]

beforeAll(async () => {
  const { call } = createTestApp()
  doc = (await call('GET', '/openapi.json')).body
  ops = Object.entries<any>(doc.paths).flatMap(([path, item]) =>
    Object.entries<any>(item).map(([method, op]) => {
      const answer = (status: number | string) => {
        const given = op.responses[String(status)]
        return given?.$ref ? resolve(given.$ref) : given
      }
      return {
        at: `${method.toUpperCase()} ${path}`,
        method,
        path,
        auth: op['x-storefront-auth'],
        op,
        answer,
        headers: (status: number | string) => Object.keys(answer(status)?.headers ?? {}),
      }
    }),
  )
})

const resolve = (ref: string) => ref.split('/').slice(1).reduce((node: any, key) => node?.[key], doc)
const statuses = (o: Op) => Object.keys(o.op.responses)
const storeOps = () => ops.filter((o) => o.auth && o.auth !== 'admin')
const RATE_LIMIT = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']
const isEnvelope = (answer: any) => answer?.content?.['application/json']?.schema?.$ref === '#/components/schemas/Error'

describe('what each operation may answer', () => {
  test('every operation that takes a credential declares 401; every one that takes a store credential declares 429 with Retry-After and the RateLimit headers', () => {
    const withCredential = ops.filter((o) => o.auth)
    expect(withCredential.length).toBeGreaterThan(70)
    expect(withCredential.filter((o) => !isEnvelope(o.answer(401))).map((o) => o.at)).toEqual([])
    expect(storeOps().filter((o) => !isEnvelope(o.answer(429))).map((o) => o.at)).toEqual([])
    expect(storeOps().filter((o) => !['Retry-After', ...RATE_LIMIT].every((h) => o.headers(429).includes(h))).map((o) => o.at)).toEqual([])
    // The teacher's routes are not rate limited.
    expect(ops.filter((o) => o.auth === 'admin' && o.answer(429)).map((o) => o.at)).toEqual([])
    expect(doc.paths['/v1/products'].get.responses['429']).toEqual({ $ref: '#/components/responses/RateLimited' })
  })

  test('the success answers of a store credential carry the RateLimit headers, and every answer of every operation X-Request-Id', () => {
    const success = (o: Op) => statuses(o).filter((s) => Number(s) < 400)
    const missing = storeOps().flatMap((o) => success(o).filter((s) => !RATE_LIMIT.every((h) => o.headers(s).includes(h))).map((s) => `${o.at} ${s}`))
    expect(missing).toEqual([])
    expect(ops.flatMap((o) => statuses(o).filter((s) => !o.headers(s).includes('X-Request-Id')).map((s) => `${o.at} ${s}`))).toEqual([])
    expect(doc.components.headers['X-Request-Id'].description).toContain('Quote it')
  })

  test('a secret operation declares 403 for SECRET_KEY_REQUIRED and PASSWORD_CHANGE_REQUIRED; a shop or panel operation for PASSWORD_CHANGE_REQUIRED, the product list for both', () => {
    const ref = (o: Op) => o.op.responses['403']?.$ref
    const secret = ops.filter((o) => o.auth === 'secret')
    expect(secret.length).toBeGreaterThan(30)
    expect(secret.filter((o) => ref(o) !== '#/components/responses/SecretKeyRequired').map((o) => o.at)).toEqual([])
    expect(doc.components.responses.SecretKeyRequired.description).toMatch(/^`SECRET_KEY_REQUIRED`: .*`PASSWORD_CHANGE_REQUIRED`/)
    const others = ops.filter((o) => o.auth === 'shop' || o.auth === 'student')
    expect(others.filter((o) => ref(o) !== '#/components/responses/PasswordChangeRequired').map((o) => o.at)).toEqual(['GET /v1/products'])
    // A publishable key asking the list for drafts is refused too.
    expect(ref(ops.find((o) => o.at === 'GET /v1/products')!)).toBe('#/components/responses/SecretKeyRequired')
    // Who must change the password may still see who they are and change it.
    expect(doc.paths['/v1/store/auth/change-password'].post.responses['403']).toBeUndefined()
    // A buyer's 403 is the review feature's own.
    expect(doc.paths['/v1/reviews/{id}'].patch.responses['403']).toEqual({ $ref: '#/components/responses/Forbidden' })
  })

  test('every operation that takes a body declares 400, 413 and 415 with the envelope; a query with rules 400, and an id in the path 404', () => {
    const withBody = ops.filter((o) => o.op.requestBody)
    expect(withBody.length).toBeGreaterThan(30)
    expect(withBody.filter((o) => ![400, 413, 415].every((s) => isEnvelope(o.answer(s)))).map((o) => o.at)).toEqual([])
    expect(doc.paths['/v1/store/settings'].put.responses['415']).toEqual({ $ref: '#/components/responses/UnsupportedMediaType' })
    expect(doc.paths['/v1/admin/groups/import'].post.responses['413']).toEqual({ $ref: '#/components/responses/PayloadTooLarge' })
    const withQuery = ops.filter((o) => o.op.parameters?.some((p: any) => p.in === 'query'))
    expect(withQuery.filter((o) => !isEnvelope(o.answer(400))).map((o) => o.at)).toEqual([])
    expect(ops.filter((o) => o.path.includes('{') && !isEnvelope(o.answer(404))).map((o) => o.at)).toEqual([])
    // No body, no query, no id: nothing to refuse but the credential, and a query parameter (it takes none).
    expect(statuses(ops.find((o) => o.at === 'GET /v1/cart')!)).toEqual(['200', '400', '401', '429', '500', '507'])
  })

  test('every operation declares 500 and 507, and the health check its 503', () => {
    expect(ops.filter((o) => !isEnvelope(o.answer(500)) || !isEnvelope(o.answer(507))).map((o) => o.at)).toEqual([])
    expect(doc.components.responses.InsufficientStorage.description).toStartWith("`INSUFFICIENT_STORAGE`: the server's disk is full")
    expect(statuses(ops.find((o) => o.at === 'GET /health')!)).toEqual(['200', '500', '503', '507'])
  })

  test('a payment declares Idempotent-Replayed on its success and its decline, and 422 for a reused key', () => {
    const pay = ops.find((o) => o.at === 'POST /v1/orders/{id}/pay')!
    expect(pay.headers(200)).toContain('Idempotent-Replayed')
    expect(pay.headers(402)).toContain('Idempotent-Replayed')
    expect(pay.answer(422).description).toStartWith('`IDEMPOTENCY_KEY_REUSED`')
    expect(ops.filter((o) => o.headers(200).includes('Idempotent-Replayed')).map((o) => o.at)).toEqual(['POST /v1/orders/{id}/pay'])
  })
})

describe('what each operation takes', () => {
  test('X-Student-RM is a header parameter, optional and shared, of exactly the operations that take the secret key (alone or with a customer token)', () => {
    expect(doc.components.parameters.StudentRm).toMatchObject({ name: 'X-Student-RM', in: 'header', required: false, schema: { type: 'string' }, example: '12345' })
    expect(doc.components.parameters.StudentRm.description).toContain('It counts only beside the secret key (sk_...)')
    const declares = (o: Op) => (o.op.parameters ?? []).filter((p: any) => p.$ref === '#/components/parameters/StudentRm').length
    const reads = ops.filter((o) => ['shop', 'secret', 'customer'].includes(o.auth!))
    expect(reads.length).toBeGreaterThan(60)
    expect(reads.filter((o) => declares(o) !== 1).map((o) => o.at)).toEqual([])
    // A student token counts its own student, the teacher's token and public routes none.
    const others = ops.filter((o) => !reads.includes(o))
    expect(new Set(others.map((o) => o.auth))).toEqual(new Set([undefined, 'admin', 'student', 'studentSelf']))
    expect(others.filter(declares).map((o) => o.at)).toEqual([])
    // Declared in the document only: no operation has a header schema of its own for it, which would refuse requests.
    expect(ops.flatMap((o) => o.op.parameters ?? []).filter((p: any) => p.name?.toLowerCase() === 'x-student-rm')).toEqual([])
  })
})

describe('the shape of the answers', () => {
  test('error answers are shared responses in components, referred to, never copied', () => {
    const inline = ops.flatMap((o) => statuses(o).filter((s) => Number(s) >= 400 && !o.op.responses[s].$ref).map((s) => `${o.at} ${s}`))
    expect(inline).toEqual([])
    for (const [name, response] of Object.entries<any>(doc.components.responses)) {
      expect([name, isEnvelope(response), Object.keys(response.headers).slice(0, 4)]).toEqual([name, true, ['X-Request-Id', ...RATE_LIMIT]])
    }
    // Every header of an answer is a shared one too.
    const headerRefs = ops.flatMap((o) => statuses(o).flatMap((s) => Object.values<any>(o.answer(s).headers ?? {})))
    expect(headerRefs.filter((h) => !h.$ref?.startsWith('#/components/headers/'))).toEqual([])
  })

  test('every answer has a description that says what it means', () => {
    const answers = ops.flatMap((o) => statuses(o).map((s) => ({ at: `${o.at} ${s}`, description: String(o.answer(s).description ?? '') })))
    expect(answers.filter((a) => a.description.length < 10 || a.description.startsWith('Response for status')).map((a) => a.at)).toEqual([])
    expect(doc.paths['/v1/products'].post.responses['201'].description).toBe('Created; the body is what was created, with its id.')
    expect(doc.components.responses.Unauthenticated.description).toStartWith('`UNAUTHENTICATED`: no credential, or one that is unknown, revoked or expired')
  })

  test('public operations need no credential (security: []), every other names its credentials', () => {
    const publicOps = ops.filter((o) => !o.auth).map((o) => o.at)
    expect(publicOps.sort()).toEqual(['GET /health', 'GET /v1/files/{storeId}/{name}', 'POST /v1/store/auth/login'])
    expect(ops.filter((o) => !o.auth && !(Array.isArray(o.op.security) && o.op.security.length === 0)).map((o) => o.at)).toEqual([])
    expect(ops.filter((o) => o.auth && !(o.op.security?.length > 0)).map((o) => o.at)).toEqual([])
  })

  test('a media file answers 200, 206 and 304 with its bytes and the headers it is served with, 404, 409 and 416 with the envelope', () => {
    const file = ops.find((o) => o.at === 'GET /v1/files/{storeId}/{name}')!
    expect(statuses(file)).toEqual(['200', '206', '304', '404', '409', '416', '500', '507'])
    expect(file.op.responses['409']).toEqual({ $ref: '#/components/responses/Conflict' })
    for (const status of [200, 206]) {
      expect(Object.keys(file.answer(status).content)).toEqual(['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/avif', 'video/mp4', 'video/webm'])
      expect(file.answer(status).content['video/mp4'].schema).toEqual({ type: 'string', format: 'binary' })
    }
    const servedWith = ['X-Request-Id', 'ETag', 'Cache-Control', 'Accept-Ranges', 'X-Content-Type-Options', 'Content-Security-Policy']
    expect(file.headers(200)).toEqual(servedWith)
    expect(file.headers(206)).toEqual([...servedWith, 'Content-Range'])
    expect(file.headers(304)).toEqual(servedWith)
    expect(doc.components.headers['X-Content-Type-Options'].schema).toEqual({ type: 'string', const: 'nosniff' })
    expect(doc.components.headers['Content-Security-Policy'].schema).toEqual({ type: 'string', const: "default-src 'none'; sandbox" })
    expect(file.answer(304).content).toBeUndefined()
    expect(file.headers(416)).toContain('Content-Range')
    expect(isEnvelope(file.answer(404)) && isEnvelope(file.answer(416))).toBe(true)
    expect(file.op.parameters.filter((p: any) => p.in === 'header').map((p: any) => p.name)).toEqual(['range', 'if-none-match'])
  })

  test('a served file carries every header its answer declares, each with the value the document gives where it gives one', async () => {
    const t = createTestApp()
    const { key } = await oneStore(t.call, t.deps, 'f')
    const { url } = await upload(t.call, apiKey(key.apiKey))
    const path = new URL(url).pathname
    const file = ops.find((o) => o.at === 'GET /v1/files/{storeId}/{name}')!
    const etag = (await t.call('GET', path)).headers.get('etag')!
    const asked = { 200: {}, 206: { range: 'bytes=0-9' }, 304: { 'if-none-match': etag } }
    for (const [status, headers] of Object.entries(asked)) {
      const served = await t.call('GET', path, { headers })
      expect(served.status).toBe(Number(status))
      for (const name of file.headers(status)) {
        const value = served.headers.get(name)
        const given = resolve(file.answer(status).headers[name].$ref).schema.const
        expect({ status, name, value: given === undefined ? value !== null : value }).toEqual({ status, name, value: given ?? true })
      }
    }
  })

  test('the activity report is JSON, or text/csv saved as a file', () => {
    const report = doc.paths['/v1/admin/activity'].get.responses['200']
    expect(Object.keys(report.content)).toEqual(['application/json', 'text/csv'])
    expect(report.content['text/csv'].schema.type).toBe('string')
    expect(report.headers['Content-Disposition']).toEqual({ $ref: '#/components/headers/Content-Disposition' })
  })

  test('the document names its server and its licence, MIT, which the repository holds', () => {
    expect(doc.servers).toEqual([{ url: '/', description: 'This server: the one that served this document' }])
    expect(doc.info.license).toEqual({ name: 'MIT', identifier: 'MIT' })
    const license = readFileSync(join(import.meta.dir, '..', '..', 'LICENSE'), 'utf8')
    expect(license).toStartWith('MIT License\n\nCopyright (c) 2026 Storefront contributors\n')
  })
})
