import { expect } from 'bun:test'
import { stockMovements, variants } from '../../src/features/catalog/tables'
import { and, eq } from 'drizzle-orm'
import { outboxEvents } from '../../src/kernel/tables'
import type { Deps } from '../../src/kernel/deps'
import { type caller, createTestApp } from './app'
import { storeCatalog } from './catalog'
import { apiKey, bearer, expectOk, twoStores } from './world'

type Call = ReturnType<typeof caller>

/** A buyer of one store: its key plus a customer token, with cart and order calls. */
export function buyer(call: Call, key: string, token: string) {
  const headers = { ...apiKey(key), ...bearer(token) }
  const send = (method: string, path: string, body?: unknown, extra: Record<string, string> = {}) => call(method, path, { headers: { ...headers, ...extra }, body })
  return {
    headers,
    send,
    cart: () => expectOk(send('GET', '/v1/cart')),
    add: (variantId: string, quantity = 1) => send('POST', '/v1/cart/items', { variantId, quantity }),
    checkout: () => send('POST', '/v1/orders/checkout'),
    pay: (orderId: string, body: unknown = { method: 'PIX' }, key?: string) => send('POST', `/v1/orders/${orderId}/pay`, body, key ? { 'idempotency-key': key } : {}),
    cancel: (orderId: string) => send('POST', `/v1/orders/${orderId}/cancel`),
    order: (orderId: string) => expectOk(send('GET', `/v1/orders/${orderId}`)),
    /** Adds and checks out: a PENDING order. */
    async buy(variantId: string, quantity = 1) {
      await expectOk(this.add(variantId, quantity))
      return expectOk(this.checkout(), 201)
    },
  }
}

/** Registers a customer through the API and returns a buyer for them. */
export async function registerBuyer(call: Call, key: string, email: string, name = 'Cliente') {
  const session = await expectOk(call('POST', '/v1/customers/register', { headers: apiKey(key), body: { email, password: 'password-123', name } }), 201)
  return { ...buyer(call, key, session.token), customer: session.customer }
}

/** Stores A and B, a PUBLISHED product in A, A's buyer and A's panel (the store key). */
export async function shopSetup(over: Record<string, unknown> = {}) {
  const t = createTestApp({ settings: { rateLimitRps: '0' } })
  const w = await twoStores(t.call, t.deps)
  const catalog = storeCatalog(t.call, w.A.key.apiKey)
  const product = await catalog.createProduct({ state: 'PUBLISHED', price: 19.99, stock: 10, minStock: 2, ...over })
  const variantId: string = product.variants[0].id
  const shop = buyer(t.call, w.A.key.apiKey, w.A.customer.token)
  const panel = (method: string, path: string, body?: unknown) => t.call(method, `/v1/store/orders${path}`, { headers: apiKey(w.A.key.apiKey), body })
  return { ...t, w, catalog, product, variantId, shop, panel }
}

/** Stock and reserved of a variant, read straight from the table. */
export const levels = (deps: Deps, variantId: string) => {
  const v = deps.db.select({ stock: variants.stock, reserved: variants.reserved }).from(variants).where(eq(variants.id, variantId)).get()!
  return { stock: v.stock, reserved: v.reserved }
}

/** The ledger replayed from the first movement must land on the variant's levels. */
export function expectLedgerConsistent(deps: Deps, variantId: string) {
  const moves = deps.db.select().from(stockMovements).where(eq(stockMovements.variantId, variantId)).orderBy(stockMovements.id).all()
  let stock = 0
  let reserved = 0
  for (const m of moves) {
    const q = m.quantity
    if (m.kind === 'RECEIVE' || m.kind === 'ADJUST' || m.kind === 'RETURN') stock += q
    else if (m.kind === 'RESERVE') reserved += q
    else if (m.kind === 'RELEASE') reserved -= q
    else if (m.kind === 'SALE') (stock -= q), (reserved -= q)
    expect({ stock, reserved }).toEqual({ stock: m.stockAfter, reserved: m.reservedAfter })
    expect(reserved).toBeGreaterThanOrEqual(0)
    expect(reserved).toBeLessThanOrEqual(stock)
  }
  expect(levels(deps, variantId)).toEqual({ stock, reserved })
  return moves
}


/** The events of a type written to the outbox for a store, oldest first. */
export function eventsOf(deps: Deps, storeId: string, type: string) {
  return deps.db
    .select()
    .from(outboxEvents)
    .where(and(eq(outboxEvents.storeId, storeId), eq(outboxEvents.type, type)))
    .orderBy(outboxEvents.createdAt)
    .all()
    .map((e) => e.data as Record<string, unknown>)
}
