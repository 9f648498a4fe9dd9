import { customerOf, type StoreCtx } from '../../kernel/auth/kinds'
import { groupedWrite, writeTransaction, type Db, type Tx } from '../../kernel/db/database'
import type { Deps } from '../../kernel/deps'
import { AppError, notFound } from '../../kernel/errors'
import { fromCents, MAX_CART_LINES, MAX_LINE_QUANTITY, totalCents } from '../../kernel/money'
import { lineOfVariant, variantLine, variantsHint, type LineOfVariant, type VariantLineValues } from '../catalog'
import { assertCartWithinLimits, assertPriceWithinLimit, lineTooLarge, tooManyLines } from './limits'
import type { Cart } from './model'
import { cartStatements } from './statements'

// The customer's one cart: lines by variant, priced at today's prices.

const statementsOf = (db: Db) => cartStatements(db)

/** A cart line: the row's own fields and what it shows of its variant and product as they are now. */
export interface CartLine extends LineOfVariant {
  id: string
  variantId: string
  quantity: number
  createdAt: number
  rowid: number
}

/** A cart with its lines, oldest first. */
export interface CartWithLines {
  id: string
  currency: string
  lines: CartLine[]
}

/**
 * A row of the cart statement: the cart, then a line (nulls for a cart with no lines) with its variant
 * and product; a line always has them (foreign keys that cascade).
 */
type CartRow = [string, string, string | null, string, number, number, number, ...VariantLineValues]

/**
 * The customer's cart with its lines (cartStatements' one statement), or undefined before the first
 * look. A line of a deleted product or variant is not one: a deletion leaves every cart in the same
 * commit, with no write to any cart, and its SKU, free again, can never show up in a line bought under
 * it. Such rows stay in the table, unseen, until checkout empties the cart (docs/tables.md).
 */
function readCart(db: Db, ctx: StoreCtx): CartWithLines | undefined {
  const rows = statementsOf(db).cart.values({ customerId: customerOf(ctx), storeId: ctx.storeId }) as CartRow[]
  const first = rows[0]
  if (!first) return undefined
  const lines: CartLine[] = []
  for (const [, , id, variantId, quantity, createdAt, rowid, ...variant] of rows) {
    if (id === null) continue
    const line = { id, variantId, quantity, createdAt, rowid, ...lineOfVariant(variant) }
    if (line.variantDeletedAt === null && line.productDeletedAt === null) lines.push(line)
  }
  lines.sort((a, b) => a.createdAt - b.createdAt || a.rowid - b.rowid)
  return { id: first[0], currency: first[1], lines }
}

/** The customer's cart with its lines, created (empty) on first use. */
function cartOf(tx: Tx, deps: Deps, ctx: StoreCtx): CartWithLines {
  const found = readCart(tx, ctx)
  if (found) return found
  statementsOf(tx).insertCart.run({ id: deps.ids.next('cart'), storeId: ctx.storeId, customerId: customerOf(ctx), now: deps.clock.now() })
  // Read as any cart is: with the store's currency.
  return readCart(tx, ctx)!
}

/** Can be bought now: its product is PUBLISHED (a DRAFT or ARCHIVED one stays in the cart, unavailable). */
const buyable = (l: CartLine) => l.state === 'PUBLISHED'

const availableOf = (l: CartLine) => (buyable(l) ? l.stock - l.reserved : 0)

/** The answer: the cart's lines (as `readCart` reads them) priced and counted. */
function cartView(cart: CartWithLines): Cart {
  const { lines } = cart
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
    subtotal: fromCents(totalCents(lines)),
    currency: cart.currency,
  }
}

export function getCart(deps: Deps, ctx: StoreCtx): Cart {
  // Reading a cart that exists takes no write lock; only the first look creates it.
  const cart = readCart(deps.db, ctx) ?? writeTransaction(deps.db, (tx) => cartOf(tx, deps, ctx))
  return cartView(cart)
}

/**
 * Refuses a quantity the variant cannot supply now (409), a variant that is gone (404), or a product
 * that cannot be bought (also for a price above the limit). `variant` is the variant with its product,
 * from the cart's own line when it has one (the lines were read in this transaction), else as
 * `variantLine` reads it: with a publishable key a variant of a DRAFT or ARCHIVED product is not
 * found (404, as an unknown id), so that a shop page never learns a draft exists; the line of a
 * product unpublished after it entered the cart is the customer's own, and stays 409.
 */
function assertCanHold(ctx: StoreCtx, variantId: string, variant: LineOfVariant | undefined, quantity: number, itemId?: string): LineOfVariant {
  if (!variant || variant.variantDeletedAt !== null) throw notFound('variant', variantId, variantsHint(ctx))
  if (variant.state !== 'PUBLISHED' || variant.productDeletedAt !== null) {
    const publish = `PUT /v1/products/${variant.productId} {"state":"PUBLISHED"}`
    // A line already in the cart is the buyer's to remove; publishing is the store's.
    const next = itemId ? `Remove the line (DELETE /v1/cart/items/${itemId}); the store can publish it again with ${publish}.` : `Publish it first: ${publish}.`
    throw new AppError('PRODUCT_UNAVAILABLE', `Product '${variant.name}' (variant ${variant.sku}) is ${variant.state}, not PUBLISHED, so it cannot be bought. ${next}`, [
      { variantId, productId: variant.productId, state: variant.state },
    ])
  }
  assertPriceWithinLimit({ variantId, sku: variant.sku, priceCents: variant.priceCents })
  const available = variant.stock - variant.reserved
  if (quantity > available) {
    throw new AppError('INSUFFICIENT_STOCK', `Only ${available} of variant ${variant.sku} available; the cart would hold ${quantity}. Lower the quantity.`, [
      { variantId, sku: variant.sku, requested: quantity, available },
    ])
  }
  return variant
}

/*
 * Each change reads the cart's lines once, before its write: they hold the line it changes, with that
 * line's variant and product as they are now, and with the change applied they are the answer (the
 * write changes no stock, price or name), so the cart is not read again.
 */
export function addItem(deps: Deps, ctx: StoreCtx, input: { variantId: string; quantity: number }): Promise<Cart> {
  return groupedWrite(deps.db, (tx) => {
    const q = statementsOf(tx)
    const cart = cartOf(tx, deps, ctx)
    const { lines } = cart
    const at = lines.findIndex((l) => l.variantId === input.variantId)
    const existing = lines[at]
    const quantity = (existing?.quantity ?? 0) + input.quantity
    if (existing && quantity > MAX_LINE_QUANTITY) {
      const room = MAX_LINE_QUANTITY - existing.quantity
      throw lineTooLarge({ ...existing, quantity }, room > 0 ? `It holds ${existing.quantity}: add at most ${room} more.` : `It holds ${existing.quantity} and is full: check out first.`)
    }
    if (!existing && lines.length >= MAX_CART_LINES) {
      throw tooManyLines(lines.length, 'Check out first (POST /v1/orders/checkout) or remove a line (DELETE /v1/cart/items/:id), then add this one.')
    }
    const variant = assertCanHold(ctx, input.variantId, existing ?? variantLine(tx, ctx, input.variantId), quantity, existing?.id)
    const now = deps.clock.now()
    if (existing) {
      q.setQuantity.run({ id: existing.id, storeId: ctx.storeId, quantity })
      lines[at] = { ...existing, quantity }
    } else {
      const id = deps.ids.next('item')
      q.insertItem.run({ id, cartId: cart.id, storeId: ctx.storeId, variantId: input.variantId, quantity, now })
      q.touchCart.run({ id: cart.id, storeId: ctx.storeId, now })
      // Lines are ordered by (createdAt, rowid), and the new row has the largest rowid of them.
      const line = { ...variant, id, variantId: input.variantId, quantity, createdAt: now, rowid: Number.MAX_SAFE_INTEGER }
      lines.splice(lines.findLastIndex((l) => l.createdAt <= now) + 1, 0, line)
    }
    return cartView(cart)
  })
}

/** The cart's lines and where among them the line `itemId` is (404 if it is not this cart's). */
function linesWith(cart: CartWithLines, itemId: string) {
  const { lines } = cart
  const at = lines.findIndex((l) => l.id === itemId)
  if (at < 0) throw notFound('cart item', itemId, 'GET /v1/cart shows the ids of your cart items')
  return { lines, at, line: lines[at]! }
}

export function changeItem(deps: Deps, ctx: StoreCtx, itemId: string, quantity: number): Promise<Cart> {
  return groupedWrite(deps.db, (tx) => {
    const cart = cartOf(tx, deps, ctx)
    const { lines, at, line } = linesWith(cart, itemId)
    assertCanHold(ctx, line.variantId, line, quantity, line.id)
    statementsOf(tx).setQuantity.run({ id: line.id, storeId: ctx.storeId, quantity })
    lines[at] = { ...line, quantity }
    return cartView(cart)
  })
}

export function removeItem(deps: Deps, ctx: StoreCtx, itemId: string): Promise<Cart> {
  return groupedWrite(deps.db, (tx) => {
    const q = statementsOf(tx)
    const cart = cartOf(tx, deps, ctx)
    const { lines, at, line } = linesWith(cart, itemId)
    q.removeItem.run({ id: line.id, storeId: ctx.storeId })
    q.touchCart.run({ id: cart.id, storeId: ctx.storeId, now: deps.clock.now() })
    lines.splice(at, 1)
    return cartView(cart)
  })
}

/**
 * Checkout's way into the cart, in checkout's transaction: the customer's cart with its lines as they
 * are now, every one buyable and within the limits (limits.ts), or the refusal that names what to fix.
 * Whether the stock suffices is checkout's to say, as it reserves.
 */
export function cartToBuy(tx: Tx, deps: Deps, ctx: StoreCtx): CartWithLines {
  const cart = cartOf(tx, deps, ctx)
  const { lines } = cart
  if (lines.length === 0) throw new AppError('CART_EMPTY', 'The cart is empty. Add items first: POST /v1/cart/items {"variantId": "var_...", "quantity": 1}.')
  const unavailable = lines.filter((l) => !buyable(l))
  if (unavailable.length > 0) {
    throw new AppError(
      'PRODUCT_UNAVAILABLE',
      `${unavailable.map((l) => `'${l.name}' (${l.sku})`).join(', ')} can no longer be bought. ${unavailable.length === 1 ? `Remove that item from the cart (DELETE /v1/cart/items/${unavailable[0]!.id})` : 'Remove those items from the cart (DELETE /v1/cart/items/:id, each itemId in details)'} and check out again.`,
      unavailable.map((l) => ({ itemId: l.id, variantId: l.variantId, state: l.state })),
    )
  }
  assertCartWithinLimits(lines)
  return cart
}

/** After checkout: the cart keeps no lines, and stays for the next purchase. */
export function emptyCart(tx: Tx, cartId: string) {
  statementsOf(tx).emptyCart.run({ cartId })
}
