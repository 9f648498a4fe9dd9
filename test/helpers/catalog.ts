import type { caller } from './app'
import { apiKey, expectOk } from './world'

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
