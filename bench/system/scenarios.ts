/**
 * What the whole-system bench's clients ask: the classroom mix (every store's shop front browsing and
 * one customer buying) and the helpers the single-endpoint scenarios share.
 */
import { Database } from 'bun:sqlite'
import { join } from 'node:path'
import { MAX_LINE_QUANTITY } from '../../src/kernel/money'
import type { LoadClient, LoadRequest } from './load'
import { call } from './harness'
import type { SeededStore } from './seed'

export const key = (s: SeededStore) => ({ 'x-api-key': s.apiKey })

/** How many products whole orders buy from, at random: the catalog of the target's store. */
export const ORDER_PRODUCTS = 10_000

/**
 * The variants whole orders buy: one each of the first `ORDER_PRODUCTS` published products of `store`
 * with stock to spare (a run buys about one unit of each), read from its data folder before a server
 * opens it. Each order picks one at random, so that orders write all over the catalog, as a class's do,
 * and not to one hot row and its page.
 */
export function orderVariants(dataDir: string, store: SeededStore): string[] {
  const db = new Database(join(dataDir, 'storefront.db'))
  try {
    const rows = db
      .query(
        `select v.id from variants v join products p on p.id = v.product_id
          where v.store_id = ? and p.state = 'PUBLISHED' and p.deleted_at is null and v.deleted_at is null and v.stock - v.reserved >= 20
          order by p.seq limit ?`,
      )
      .all(store.storeId, ORDER_PRODUCTS) as { id: string }[]
    if (rows.length < ORDER_PRODUCTS) throw new Error(`the seeded store has ${rows.length} products to order from, not ${ORDER_PRODUCTS}: seed it again (--fresh)`)
    return rows.map((r) => r.id)
  } finally {
    db.close()
  }
}

/** Register over HTTP, one at a time (argon2 takes 19 MiB a hash: a burst of them would swell RSS). */
export async function customers(base: string, store: SeededStore, n: number, prefix: string) {
  const out: Record<string, string>[] = []
  for (let i = 0; i < n; i++) {
    const r = await call<{ token: string }>(base, 'POST', '/v1/customers/register', key(store), { email: `${prefix}${i}@run.bench`, password: 'bench-password', name: `Run ${i}` })
    out.push({ ...key(store), authorization: `Bearer ${r.json.token}` })
  }
  return out
}

export const get = (label: string, path: string): LoadRequest => ({ label, method: 'GET', path })
export const productPath = (id: string) => `/v1/products/${id}`

/** What a student's shop front asks, in the order a page view would. */
export function browsing(store: SeededStore, offset: number): LoadRequest[] {
  const ids = store.sampleProductIds
  return Array.from({ length: 8 }, (_, i) => [
    get('product list', `/v1/products?page=${1 + ((i + offset) % 5)}&pageSize=20`),
    get('product detail', productPath(ids[(offset * 37 + i * 11) % ids.length]!)),
    get('search', `/v1/products?search=${['camiseta', 'azul', 'mochila%20verde', 'caneca'][(i + offset) % 4]}`),
    get('review list', `/v1/products/${store.reviewedProductId}/reviews?page=1&pageSize=20`),
    get('product detail', productPath(ids[(offset * 53 + i * 7) % ids.length]!)),
  ]).flat()
}

/**
 * A buyer adding one unit at a time to the cart line `itemId` of `variantId`. A line holds at most
 * MAX_LINE_QUANTITY units, so the cycle opens by setting the line back to one unit (labelled apart,
 * once every MAX_LINE_QUANTITY - 1 requests, and first in every run, whose cycle restarts).
 */
export function cartAddCycle(variantId: string, itemId: string): LoadRequest[] {
  const add: LoadRequest = { label: 'cart add', method: 'POST', path: '/v1/cart/items', body: { variantId, quantity: 1 } }
  return [{ label: 'cart reset', method: 'PATCH', path: `/v1/cart/items/${itemId}`, body: { quantity: 1 } }, ...Array<LoadRequest>(MAX_LINE_QUANTITY - 2).fill(add)]
}

const THINK_MS = 100

/**
 * 30 stores x 3 clients: two shop fronts browsing, one customer buying; 100 ms between requests.
 * Their first requests are spread evenly over the first 100 ms, as independent apps arrive: started
 * in the same millisecond, closed loops with the same pause stay in step for the whole run, and each
 * wave of 90 requests waits behind itself (bench/README.md, "The classroom mix's arrivals").
 */
export async function classroomClients(base: string, stores: SeededStore[]): Promise<LoadClient[]> {
  const clients: LoadClient[] = []
  for (const [s, store] of stores.entries()) {
    const [buyer] = await customers(base, store, 1, `mix${s}-`)
    clients.push({ headers: key(store), flow: 'cycle', requests: browsing(store, 2 * s), thinkMs: THINK_MS })
    clients.push({ headers: key(store), flow: 'cycle', requests: browsing(store, 2 * s + 1), thinkMs: THINK_MS })
    clients.push({ headers: buyer!, flow: 'order', variantId: store.stockVariantId, thinkMs: THINK_MS })
  }
  return clients.map((client, i) => ({ ...client, startAfterMs: (i * THINK_MS) / clients.length }))
}
