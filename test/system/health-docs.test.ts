import { describe, expect, spyOn, test } from 'bun:test'
import { createTestApp } from '../helpers/app'

describe('GET /health', () => {
  test('answers ok with the version and the uptime from the injected clock', async () => {
    const { call, clock, deps } = createTestApp()
    clock.advance(90_500)
    const res = await call('GET', '/health')
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ status: 'ok', version: deps.version, uptimeSeconds: 90 })
  })

  test('reads the database: with the database gone it is a 503 envelope', async () => {
    const { call, database } = createTestApp()
    database.close()
    const res = await call('GET', '/health')
    expect(res.status).toBe(503)
    expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE')
    expect(res.body.error.message).toStartWith('The database cannot be read')
  })
})

describe('API reference', () => {
  test('GET /openapi.json is an OpenAPI 3.1 document with the routes, security schemes and error schema', async () => {
    const { call, deps } = createTestApp()
    const res = await call('GET', '/openapi.json')
    expect(res.status).toBe(200)
    expect(res.body.openapi).toStartWith('3.1.')
    expect(res.body.info).toMatchObject({ title: 'Storefront API', version: deps.version })
    expect(Object.keys(res.body.components.securitySchemes).sort()).toEqual(['adminToken', 'customerToken', 'publishableKey', 'secretKey', 'studentToken'])
    const health = res.body.paths['/health'].get
    expect(health.responses['200'].content['application/json'].schema.properties.status).toEqual({ type: 'string', const: 'ok' })
    expect(health.responses['503']).toEqual({ $ref: '#/components/responses/ServiceUnavailable' })
    expect(res.body.components.responses.ServiceUnavailable.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' })
    expect(res.body.components.schemas.Error.properties.error.properties.code.enum).toContain("NOT_FOUND")
    expect(res.text).not.toContain("$defs")
    expect(res.text).not.toContain(String(Number.MAX_SAFE_INTEGER))
    // The docs routes themselves are not API operations.
    expect(res.body.paths['/docs']).toBeUndefined()
  })

  test('GET /openapi.json is made once: later requests answer its kept bytes, with no JSON made again', async () => {
    const { call } = createTestApp()
    const first = await call('GET', '/openapi.json')
    const stringify = spyOn(JSON, 'stringify')
    try {
      const again = await call('GET', '/openapi.json')
      expect([again.status, again.headers.get('content-type'), again.text]).toEqual([200, 'application/json', first.text])
      expect(stringify.mock.calls.filter(([value]) => (value as { openapi?: string } | null)?.openapi !== undefined)).toEqual([])
    } finally {
      stringify.mockRestore()
    }
  })

  test('every request body is documented with its JSON schema (or its file type)', async () => {
    const { call } = createTestApp()
    const doc = (await call('GET', '/openapi.json')).body
    const bodies = Object.entries(doc.paths).flatMap(([path, ops]: [string, any]) =>
      Object.entries(ops).filter(([, op]: [string, any]) => op.requestBody).map(([method, op]: [string, any]) => ({ at: `${method} ${path}`, content: op.requestBody.content })),
    )
    expect(bodies.map((b) => b.at)).toContain('post /v1/store/api-keys')
    for (const body of bodies) {
      if (body.content['multipart/form-data']) {
        expect(['post /v1/uploads', 'post /v1/products/{id}/media']).toContain(body.at)
        expect(Object.keys(body.content)).toEqual(['multipart/form-data'])
        expect(body.content['multipart/form-data'].schema.properties.file).toMatchObject({ type: 'string', format: 'binary' })
        continue
      }
      if (body.content['text/csv']) {
        // The class list import takes the CSV file itself (kernel/http/text-body.ts).
        expect([body.at, Object.keys(body.content), body.content['text/csv'].schema.type]).toEqual(['post /v1/admin/groups/import', ['text/csv'], 'string'])
        continue
      }
      expect({ at: body.at, types: Object.keys(body.content), type: body.content['application/json']?.schema?.type }).toEqual({
        at: body.at,
        types: ['application/json'],
        type: 'object',
      })
    }
  })

  test('GET /docs is a page whose script comes from this server, not a CDN', async () => {
    const { call } = createTestApp()
    const page = await call('GET', '/docs')
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const sources = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1])
    expect(sources).toEqual(['/docs/assets/scalar.js'])
    expect(page.text).not.toMatch(/https?:\/\//)
    expect(page.text).toContain('data-url="/openapi.json"')
    const asset = await call('GET', '/docs/assets/scalar.js')
    expect(asset.status).toBe(200)
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(asset.text.length).toBeGreaterThan(1_000_000)
  })
})

describe('what /docs is told besides the document', () => {
  test("the code samples' credentials are placeholders of each kind: pk_ for the publishable key, ctk_ for the customer token", async () => {
    const { call } = createTestApp()
    const page = (await call('GET', '/docs')).text
    const configuration = JSON.parse(JSON.parse(page.match(/dataset\.configuration = ("(?:[^"\\]|\\.)*")/)![1]!))
    expect(configuration.authentication.securitySchemes).toEqual({
      secretKey: { value: 'sk_...' },
      publishableKey: { value: 'pk_...' },
      studentToken: { token: 'stu_...' },
      customerToken: { token: 'ctk_...' },
      adminToken: { value: 'adm_...' },
    })
    expect(configuration.agent).toEqual({ disabled: true })
  })

  test('every shared answer writes its error codes as code, which a one-line summary draws with their underscores', async () => {
    const { call } = createTestApp()
    const doc = (await call('GET', '/openapi.json')).body
    const bare = Object.entries<any>(doc.components.responses).flatMap(([name, r]) =>
      [...r.description.replace(/`[^`]*`/g, '').matchAll(/\b[A-Z]+(?:_[A-Z]+)+\b/g)].map((m) => `${name}: ${m[0]}`),
    )
    expect(bare).toEqual([])
    expect(doc.components.responses.NotFound.description).toStartWith('`NOT_FOUND`: ')
  })
})

describe('the OpenAPI document of the routes', () => {
  test('routes carry their security, paths have no trailing slash, deletions document their 204', async () => {
    const { call } = createTestApp()
    const doc = (await call('GET', '/openapi.json')).body
    expect(Object.keys(doc.paths).filter((p) => p.length > 1 && p.endsWith('/'))).toEqual([])
    expect(doc.paths['/v1/store/settings'].put.security).toEqual([{ studentToken: [] }])
    expect(doc.paths['/v1/admin/groups'].post.security).toEqual([{ adminToken: [] }])
    expect(doc.paths['/v1/store/auth/login'].post.security).toEqual([])
    expect(doc.paths['/v1/store/api-keys/{id}'].delete.responses['204']).toMatchObject({ description: 'Done; no body.' })
    expect(doc.paths['/v1/store/api-keys/{id}'].delete.responses['204'].content).toBeUndefined()
    expect(doc.paths['/v1/store/settings'].put.requestBody.content['application/json'].schema.properties.primaryColor.pattern).toBe(
      '^#[0-9a-fA-F]{6}$',
    )
  })

  test('every operation has its own id, letters and digits only, which a generated client uses as a name', async () => {
    const { call } = createTestApp()
    const doc = (await call('GET', '/openapi.json')).body
    const ids = [...Object.values(doc.paths), ...Object.values(doc.webhooks)].flatMap((item: any) => Object.values(item).map((op: any) => op.operationId))
    expect(ids.filter((id) => !/^[A-Za-z][A-Za-z0-9]*$/.test(id))).toEqual([])
    expect(new Set(ids).size).toBe(ids.length)
    expect(doc.paths['/v1/store/api-keys'].post.operationId).toBe('postV1StoreApiKeys')
    expect(doc.paths['/v1/store/auth/change-password'].post.operationId).toBe('postV1StoreAuthChangePassword')
  })
})

describe('constraints a tool reads from the schemas, not only from descriptions', () => {
  test('prices say their 2 decimals in words, currency and locale have their shape, a webhook url is a uri; 19.99 still passes', async () => {
    const { call } = createTestApp()
    const doc = (await call('GET', '/openapi.json')).body
    const body = (path: string, method: string) => doc.paths[path][method].requestBody.content['application/json'].schema.properties
    expect(body('/v1/products', 'post').price).toMatchObject({ type: 'number', minimum: 0, description: expect.stringContaining('at most 2 decimals') })
    // No fractional multipleOf anywhere: validators divide in floating point, and 19.99 / 0.01 is
    // 1998.9999999999998, so a student's mock server or form validator would refuse 19.99.
    const fractionalMultiples: string[] = []
    const walk = (node: unknown, at: string) => {
      if (typeof node !== 'object' || node === null) return
      for (const [name, value] of Object.entries(node)) {
        if (name === 'multipleOf' && !Number.isInteger(value)) fractionalMultiples.push(at)
        walk(value, `${at}/${name}`)
      }
    }
    walk(doc, '#')
    expect(fractionalMultiples).toEqual([])
    const settings = body('/v1/store/settings', 'put')
    expect([settings.currency.pattern, settings.locale.pattern]).toEqual(['^[A-Za-z]{3}$', '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$'])
    for (const ok of ['BRL', 'usd']) expect(ok).toMatch(new RegExp(settings.currency.pattern))
    for (const ok of ['pt-BR', 'en', 'zh-Hant-TW']) expect(ok).toMatch(new RegExp(settings.locale.pattern))
    expect(body('/v1/webhooks', 'post').url).toMatchObject({ type: 'string', format: 'uri' })
    // The rule itself is on cents: a price binary floating point cannot divide by 0.01 exactly is taken.
    const { Money } = await import('../../src/kernel/money')
    expect([19.99, 0.07, 1.15, 999_999.99].map((p) => Money.safeParse(p).success)).toEqual([true, true, true, true])
    expect(Money.safeParse(19.999).success).toBe(false)
  })
})

describe('nullable enums in the OpenAPI document', () => {
  test('a nullable enum allows null', async () => {
    const { call } = createTestApp()
    const doc = (await call('GET', '/openapi.json')).body
    expect(doc.components.schemas.Order.properties.cancelReason).toMatchObject({ type: ['string', 'null'], enum: ['CUSTOMER', 'STORE', 'EXPIRED', null] })
  })
})
