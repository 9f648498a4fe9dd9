import { and, asc, eq, sql } from 'drizzle-orm'
import type { StoreCtx } from '../../kernel/auth/kinds'
import { stores } from '../../kernel/auth/tables'
import { writeTransaction, type Sql } from '../../kernel/db/database'
import type { Deps } from '../../kernel/deps'
import { AppError, notFound } from '../../kernel/errors'
import { fromCents } from '../../kernel/money'
import { findVariant } from '../catalog/find'
import { products, variants } from '../catalog/tables'
import { cartItems, carts } from '../orders/tables'
import type { Cart } from './model'

/** The customer's one cart (decisions §11): lines by variant, priced at today's prices. */

export function customerOf(ctx: StoreCtx): string {
  if (ctx.actor.type !== 'customer') throw new Error('buyer route reached without a customer')
  return ctx.actor.customerId
}

/** The customer's cart, created on first use. */
export function cartOf(tx: Sql, deps: Deps, ctx: StoreCtx) {
  const customerId = customerOf(ctx)
  const found = tx.select().from(carts).where(and(eq(carts.customerId, customerId), eq(carts.storeId, ctx.storeId))).get()
  if (found) return found
  const now = deps.clock.now()
  const row = { id: deps.ids.next('cart'), storeId: ctx.storeId, customerId, createdAt: now, updatedAt: now }
  tx.insert(carts).values(row).run()
  return row
}

/** The lines of a cart with their variants and products as they are now. */
export function cartLines(tx: Sql, cartId: string) {
  return tx
    .select({
      id: cartItems.id,
      variantId: cartItems.variantId,
      quantity: cartItems.quantity,
      productId: variants.productId,
      sku: variants.sku,
      priceCents: variants.priceCents,
      stock: variants.stock,
      reserved: variants.reserved,
      variantDeletedAt: variants.deletedAt,
      name: products.name,
      state: products.state,
      productDeletedAt: products.deletedAt,
    })
    .from(cartItems)
    .innerJoin(variants, eq(variants.id, cartItems.variantId))
    .innerJoin(products, eq(products.id, variants.productId))
    .where(eq(cartItems.cartId, cartId))
    .orderBy(asc(cartItems.createdAt), sql`${cartItems}.rowid`)
    .all()
}

export type CartLine = ReturnType<typeof cartLines>[number]

/** Can be bought at all: a live variant of a live, PUBLISHED product. */
export const buyable = (l: CartLine) => l.variantDeletedAt === null && l.productDeletedAt === null && l.state === 'PUBLISHED'

const availableOf = (l: CartLine) => (buyable(l) ? l.stock - l.reserved : 0)

export function currencyOf(tx: Sql, storeId: string) {
  return tx.select({ currency: stores.currency }).from(stores).where(eq(stores.id, storeId)).get()!.currency
}

function cartView(tx: Sql, ctx: StoreCtx, cart: { id: string }): Cart {
  const lines = cartLines(tx, cart.id)
  const items = lines.map((l) => ({
    id: l.id,
    variantId: l.variantId,
    productId: l.productId,
    name: l.name,
    sku: l.sku,
    unitPrice: fromCents(l.priceCents),
    quantity: l.quantity,
    lineTotal: fromCents(l.priceCents * l.quantity),
    available: availableOf(l),
  }))
  return {
    id: cart.id,
    items,
    itemCount: lines.reduce((n, l) => n + l.quantity, 0),
    subtotal: fromCents(lines.reduce((sum, l) => sum + l.priceCents * l.quantity, 0)),
    currency: currencyOf(tx, ctx.storeId),
  }
}

export function getCart(deps: Deps, ctx: StoreCtx): Cart {
  // Reading a cart that exists takes no write lock; only the first look creates it.
  const existing = deps.db.select().from(carts).where(and(eq(carts.customerId, customerOf(ctx)), eq(carts.storeId, ctx.storeId))).get()
  if (existing) return cartView(deps.db, ctx, existing)
  return writeTransaction(deps.db, (tx) => cartView(tx, ctx, cartOf(tx, deps, ctx)))
}

/** Refuses a quantity the variant cannot supply now (409), or a product that cannot be bought. */
function assertCanHold(tx: Sql, ctx: StoreCtx, variantId: string, quantity: number) {
  const variant = findVariant(tx, ctx, variantId)
  const product = tx.select({ name: products.name, state: products.state, deletedAt: products.deletedAt }).from(products).where(eq(products.id, variant.productId)).get()!
  if (product.state !== 'PUBLISHED' || product.deletedAt !== null) {
    throw new AppError('PRODUCT_UNAVAILABLE', `Product '${product.name}' (variant ${variant.sku}) is ${product.state}, not PUBLISHED, so it cannot be bought. Publish it first: PUT /v1/products/${variant.productId} {"state":"PUBLISHED"}.`, [
      { variantId, productId: variant.productId, state: product.state },
    ])
  }
  const available = variant.stock - variant.reserved
  if (quantity > available) {
    throw new AppError('INSUFFICIENT_STOCK', `Only ${available} of variant ${variant.sku} available; the cart would hold ${quantity}. Lower the quantity.`, [
      { variantId, sku: variant.sku, requested: quantity, available },
    ])
  }
}

export function addItem(deps: Deps, ctx: StoreCtx, input: { variantId: string; quantity: number }): Cart {
  return writeTransaction(deps.db, (tx) => {
    const cart = cartOf(tx, deps, ctx)
    const existing = tx.select().from(cartItems).where(and(eq(cartItems.cartId, cart.id), eq(cartItems.variantId, input.variantId))).get()
    const quantity = (existing?.quantity ?? 0) + input.quantity
    assertCanHold(tx, ctx, input.variantId, quantity)
    const now = deps.clock.now()
    if (existing) tx.update(cartItems).set({ quantity }).where(eq(cartItems.id, existing.id)).run()
    else tx.insert(cartItems).values({ id: deps.ids.next('item'), cartId: cart.id, storeId: ctx.storeId, variantId: input.variantId, quantity, createdAt: now }).run()
    tx.update(carts).set({ updatedAt: now }).where(eq(carts.id, cart.id)).run()
    return cartView(tx, ctx, cart)
  })
}

function findItem(tx: Sql, cartId: string, itemId: string) {
  const item = tx.select().from(cartItems).where(and(eq(cartItems.id, itemId), eq(cartItems.cartId, cartId))).get()
  if (!item) throw notFound('cart item', itemId, 'GET /v1/cart shows the ids of your cart items')
  return item
}

export function changeItem(deps: Deps, ctx: StoreCtx, itemId: string, quantity: number): Cart {
  return writeTransaction(deps.db, (tx) => {
    const cart = cartOf(tx, deps, ctx)
    const item = findItem(tx, cart.id, itemId)
    assertCanHold(tx, ctx, item.variantId, quantity)
    tx.update(cartItems).set({ quantity }).where(eq(cartItems.id, item.id)).run()
    tx.update(carts).set({ updatedAt: deps.clock.now() }).where(eq(carts.id, cart.id)).run()
    return cartView(tx, ctx, cart)
  })
}

export function removeItem(deps: Deps, ctx: StoreCtx, itemId: string): Cart {
  return writeTransaction(deps.db, (tx) => {
    const cart = cartOf(tx, deps, ctx)
    const item = findItem(tx, cart.id, itemId)
    tx.delete(cartItems).where(eq(cartItems.id, item.id)).run()
    tx.update(carts).set({ updatedAt: deps.clock.now() }).where(eq(carts.id, cart.id)).run()
    return cartView(tx, ctx, cart)
  })
}
