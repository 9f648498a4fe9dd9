import { describe, expect, test } from 'bun:test'
import { createTestApp } from '../helpers/app'
import { storeCatalog } from '../helpers/catalog'
import { oneStore } from '../helpers/world'

type Operation = { requestBody?: { required?: boolean; description?: string; content: Record<string, { schema: any }> } }

async function documentOf() {
  const t = createTestApp()
  const doc = (await t.call('GET', '/openapi.json')).body
  const bodies = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item as Record<string, Operation>).flatMap(([method, op]) => (op.requestBody ? [{ at: `${method} ${path}`, body: op.requestBody }] : [])),
  )
  return { ...t, doc, bodies }
}

const jsonSchema = (op: Operation) => op.requestBody!.content['application/json']!.schema

describe('request bodies in the OpenAPI document', () => {
  test('fields the server refuses on purpose are documented as `false` (no value passes, a generated client types them never), and the body says where each goes', async () => {
    const { doc } = await documentOf()
    const product = doc.paths['/v1/products/{id}'].put
    expect(jsonSchema(product).properties).toMatchObject({ price: false, sku: false, stock: false, name: { type: 'string' } })
    expect(jsonSchema(product).additionalProperties).toBe(false)
    expect(product.requestBody.description).toBe(
      'Refused here with a 400: `price` is set per variant: PATCH /v1/variants/:id (the product price is its lowest variant price); ' +
        '`sku` is set per variant: PATCH /v1/variants/:id; ' +
        '`stock` changes only through POST /v1/variants/:id/stock/receive or POST /v1/variants/:id/stock/adjust, so that every change is in the stock ledger.',
    )
    const variant = doc.paths['/v1/variants/{id}'].patch
    expect(jsonSchema(variant).properties).toMatchObject({ stock: false, price: { type: 'number' }, sku: { type: 'string' } })
    expect(variant.requestBody.description).toStartWith('Refused here with a 400: `stock` changes only through POST /v1/variants/:id/stock/receive')
  })

  test('no documented request body field is `not: {}`, which a generated client types as an optional unknown it may send', async () => {
    const { bodies } = await documentOf()
    const typedUnknown = bodies.flatMap(({ at, body }) =>
      Object.values(body.content).flatMap(({ schema }) =>
        Object.entries(schema?.properties ?? {})
          .filter(([, field]: [string, any]) => field.not !== undefined)
          .map(([name]) => `${at} ${name}`),
      ),
    )
    expect(typedUnknown).toEqual([])
  })

  test('the server still refuses those fields with the 400 that names the route that changes them', async () => {
    const { call, deps } = createTestApp()
    const { key } = await oneStore(call, deps, 'r')
    const catalog = storeCatalog(call, key.apiKey)
    const product = await catalog.createProduct()
    const price = await catalog.send('PUT', `/v1/products/${product.id}`, { name: 'Nova', price: 10 })
    expect([price.status, price.body.error.code]).toEqual([400, 'VALIDATION_ERROR'])
    expect(price.body.error.message).toContain('price: is set per variant: PATCH /v1/variants/:id')
    const stock = await catalog.send('PATCH', `/v1/variants/${product.variants[0].id}`, { stock: 99 })
    expect([stock.status, stock.body.error.code]).toEqual([400, 'VALIDATION_ERROR'])
    expect(stock.body.error.message).toContain('stock: changes only through POST /v1/variants/:id/stock/receive or POST /v1/variants/:id/stock/adjust')
    expect((await catalog.product(product.id)).name).toBe('Camiseta Básica')
  })

  test('linking an image takes one of two shapes, a library image (`mediaId`) or an external one (`url`): a `oneOf` in the document, with the server\'s messages unchanged', async () => {
    const { doc, call, deps } = await documentOf()
    const schema = jsonSchema(doc.paths['/v1/products/{id}/images'].post)
    const isPrimary = { description: 'make it the cover; the first image of a product is the cover anyway', type: 'boolean' }
    expect(schema.oneOf).toEqual([
      {
        title: 'A library image',
        type: 'object',
        properties: { mediaId: { type: 'string', maxLength: 64, minLength: 1, description: 'an image already in the store library (POST /v1/uploads)' }, isPrimary },
        required: ['mediaId'],
        additionalProperties: false,
      },
      {
        title: 'An external image',
        type: 'object',
        properties: { url: { type: 'string', format: 'uri', maxLength: 2048, description: 'an image hosted elsewhere' }, isPrimary },
        required: ['url'],
        additionalProperties: false,
      },
    ])
    const { key } = await oneStore(call, deps, 'i')
    const catalog = storeCatalog(call, key.apiKey)
    const product = await catalog.createProduct()
    const refusal = async (body: object) => {
      const res = await catalog.send('POST', `/v1/products/${product.id}/images`, body)
      return [res.status, res.body.error.message, res.body.error.details]
    }
    const exactlyOne = 'send exactly one of mediaId (a library image) or url (an external image)'
    const told = (message: string) => `Invalid request body: ${message}. The expected shape of this route is in /docs.`
    expect(await refusal({ isPrimary: true })).toEqual([400, told(exactlyOne), [{ path: '', message: exactlyOne }]])
    expect(await refusal({ mediaId: 'med_x', url: 'https://x.example/a.png' })).toEqual([400, told(exactlyOne), [{ path: '', message: exactlyOne }]])
    expect(await refusal({ url: 'ftp://x.example/a.png' })).toEqual([400, told('url: url must be an http:// or https:// address'), [{ path: 'url', message: 'url must be an http:// or https:// address' }]])
  })

  test('a body that may be left out (seed-demo, refund) is not required; every other body is', async () => {
    const { bodies } = await documentOf()
    const optional = bodies.filter(({ body }) => body.required !== true).map(({ at }) => at)
    expect(optional.sort()).toEqual(['post /v1/admin/groups/{id}/seed-demo', 'post /v1/store/orders/{id}/refund'])
    for (const { at, body } of bodies) if (!optional.includes(at)) expect({ at, required: body.required }).toEqual({ at, required: true })
  })

  test('every string a JSON body or a query string takes states its bound: a maxLength, an enum, or a pattern that allows no more', async () => {
    const { doc } = await documentOf()
    const resolve = (ref: string) => ref.split('/').slice(1).reduce((o: any, k) => o[k], doc)
    // A pattern bounds the length when it is anchored and repeats nothing without an upper bound (no *, + or {n,}).
    const bounded = (pattern: string) => /^\^.*\$$/.test(pattern) && !/(?<!\\)[*+]|\{\d+,\}/.test(pattern)
    const unbounded: string[] = []
    const walk = (schema: any, at: string, seen: Set<unknown>) => {
      if (!schema || typeof schema !== 'object' || seen.has(schema)) return
      seen.add(schema)
      if (schema.$ref) return walk(resolve(schema.$ref), at, seen)
      const types = [schema.type].flat()
      if (types.includes('string') && schema.maxLength === undefined && !schema.enum && schema.const === undefined && !(schema.pattern && bounded(schema.pattern))) unbounded.push(at)
      for (const [name, field] of Object.entries(schema.properties ?? {})) walk(field, `${at}.${name}`, seen)
      if (schema.items) walk(schema.items, `${at}[]`, seen)
      if (typeof schema.additionalProperties === 'object') walk(schema.additionalProperties, `${at}.*`, seen)
      for (const key of ['anyOf', 'oneOf', 'allOf']) for (const part of schema[key] ?? []) walk(part, at, seen)
    }
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        // Path parameters are ids: an unknown one, however long, is a 404 like any other (the URL's length is bounded).
        // Headers are bounded by the server's header limit, and a file body (CSV, an upload) by the body limit.
        for (const p of op.parameters ?? []) {
          const param = p.$ref ? resolve(p.$ref) : p
          if (param.in === 'query') walk(param.schema, `${method} ${path} ?${param.name}`, new Set())
        }
        const json = op.requestBody?.content?.['application/json']
        if (json) walk(json.schema, `${method} ${path} body`, new Set())
      }
    }
    expect(unbounded).toEqual([])
  })

  test('an id past its bound is a 400 naming the field, in a body and in a query string', async () => {
    const t = createTestApp()
    const w = await oneStore(t.call, t.deps, 'a')
    const long = `var_${'x'.repeat(200)}`
    const headers = { 'x-api-key': w.key.apiKey }
    const created = await t.call('POST', '/v1/products', { headers, body: { name: 'Caneca', sku: 'CAN-1', price: 10, stock: 1, categoryId: long } })
    expect([created.status, created.body.error.details]).toEqual([400, [{ path: 'categoryId', message: "categoryId has at most 64 characters; copy ids from this API's answers" }]])
    const listed = await t.call('GET', `/v1/products?brandId=${long}`, { headers })
    expect([listed.status, listed.body.error.details]).toEqual([400, [{ path: 'brandId', message: "brandId has at most 64 characters; copy ids from this API's answers" }]])
  })
})
