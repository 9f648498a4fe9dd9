import { describe, expect, test } from 'bun:test'
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
    expect(Object.keys(res.body.components.securitySchemes).sort()).toEqual(['adminToken', 'apiKey', 'customerToken', 'studentToken'])
    const health = res.body.paths['/health'].get
    expect(health.responses['200'].content['application/json'].schema.properties.status).toEqual({ type: 'string', const: 'ok' })
    expect(health.responses["503"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Error" })
    expect(res.body.components.schemas.Error.properties.error.properties.code.enum).toContain("NOT_FOUND")
    expect(res.text).not.toContain("$defs")
    expect(res.text).not.toContain(String(Number.MAX_SAFE_INTEGER))
    // The docs routes themselves are not API operations.
    expect(res.body.paths['/docs']).toBeUndefined()
  })

  test('every route that takes a body documents it as JSON with its schema', async () => {
    const { call } = createTestApp()
    const { body: doc } = await call('GET', '/openapi.json')
    const withBodies = Object.entries<any>(doc.paths).flatMap(([path, ops]) =>
      Object.entries<any>(ops).filter(([, op]) => op.requestBody).map(([method, op]) => ({ at: `${method} ${path}`, content: op.requestBody.content })),
    )
    expect(withBodies.map((b) => b.at)).toContain('post /v1/products/')
    for (const { at, content } of withBodies) {
      expect({ at, types: Object.keys(content) }).toEqual({ at, types: ['application/json'] })
      expect(content['application/json'].schema.type).toBe('object')
    }
    const update = doc.paths['/v1/products/{id}'].put
    expect(update.requestBody.content['application/json'].schema.properties.stock.description).toContain('POST /v1/variants/:id/stock/receive')
    expect(update.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Product' })
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
