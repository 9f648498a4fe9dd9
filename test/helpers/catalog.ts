import { expect } from 'bun:test'
import type { StoreCtx } from '../../src/kernel/auth/kinds'
import { createTestApp, type CallResult, type caller } from './app'
import { apiKey, expectOk, twoStores } from './world'

type Call = ReturnType<typeof caller>

let skuCounter = 0

/** A product body with a fresh sku; override what the test is about. */
export const productBody = (over: Record<string, unknown> = {}) => ({
  name: 'Camiseta Básica',
  sku: `SKU-${++skuCounter}`,
  price: 49.9,
  stock: 10,
  ...over,
})

/** Catalog calls of one store, with its API key. */
export function storeCatalog(call: Call, key: string) {
  const headers = apiKey(key)
  const send = (method: string, path: string, body?: unknown) => call(method, path, { headers, body })
  return {
    headers,
    send,
    createProduct: (over: Record<string, unknown> = {}) => expectOk(send('POST', '/v1/products', productBody(over)), 201),
    createTerm: (kind: 'categories' | 'brands' | 'collections', name: string) => expectOk(send('POST', `/v1/${kind}`, { name }), 201),
    product: (id: string) => expectOk(send('GET', `/v1/products/${id}`)),
    variant: (id: string) => expectOk(send('GET', `/v1/variants/${id}`)),
    list: (query = '') => expectOk(send('GET', `/v1/products${query ? `?${query}` : ''}`)),
  }
}

/** One of each catalog resource in a store: what the route-by-route tests point their ids at. */
export async function seedCatalog(call: Call, key: string) {
  const c = storeCatalog(call, key)
  const category = await c.createTerm('categories', 'Roupas')
  const brand = await c.createTerm('brands', 'Marca')
  const collection = await c.createTerm('collections', 'Verão')
  const product = await c.createProduct({ categoryId: category.id, brandId: brand.id, collectionIds: [collection.id] })
  return { category, brand, collection, product, variant: product.variants[0] }
}

/** Store A and B with their catalogs' clients, on an app without the rate limit. */
export async function catalogSetup() {
  const t = createTestApp({ settings: { rateLimitRps: '0' } })
  const w = await twoStores(t.call, t.deps)
  return { ...t, w, A: storeCatalog(t.call, w.A.key.apiKey), B: storeCatalog(t.call, w.B.key.apiKey) }
}

/** What a service function needs to act for store A (for moves that only orders make). */
export const storeCtx = (storeId: string): StoreCtx => ({ storeId, groupId: 'grp_test', actor: { type: 'secretKey', keyId: 'key_test', rm: null } })

/** The 404 of a cross-store id must read exactly like the 404 of an unknown id. */
export function expectSameNotFound(cross: CallResult, unknown: CallResult, crossId: string, unknownId: string) {
  expect(cross.status).toBe(404)
  expect(unknown.status).toBe(404)
  expect(cross.body.error.code).toBe('NOT_FOUND')
  expect(cross.body.error.message.replaceAll(crossId, 'X')).toBe(unknown.body.error.message.replaceAll(unknownId, 'X'))
}
