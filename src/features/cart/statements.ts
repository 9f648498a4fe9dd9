import { and, asc, eq, isNull, sql } from 'drizzle-orm'
import { stores } from '../../kernel/auth/tables'
import type { Db } from '../../kernel/db/database'
import { products, variants } from '../catalog/tables'
import { cartItems, carts } from '../orders/tables'

/**
 * The cart's queries, built once per database. drizzle builds a statement's SQL text on every call,
 * which was most of a cart add's time (bench/README.md); built once they only bind and run. They run
 * on the one connection, so inside a transaction they read and write in it like `tx` would.
 */
function build(db: Db) {
  const p = sql.placeholder
  return {
    cart: db.select().from(carts).where(and(eq(carts.customerId, p('customerId')), eq(carts.storeId, p('storeId')))).prepare(),
    insertCart: db
      .insert(carts)
      .values({ id: p('id'), storeId: p('storeId'), customerId: p('customerId'), createdAt: p('now'), updatedAt: p('now') })
      .prepare(),
    touchCart: db.update(carts).set({ updatedAt: sql`${p('now')}` }).where(eq(carts.id, p('id'))).prepare(),
    item: db.select().from(cartItems).where(and(eq(cartItems.id, p('id')), eq(cartItems.cartId, p('cartId')))).prepare(),
    itemOfVariant: db.select().from(cartItems).where(and(eq(cartItems.cartId, p('cartId')), eq(cartItems.variantId, p('variantId')))).prepare(),
    insertItem: db
      .insert(cartItems)
      .values({ id: p('id'), cartId: p('cartId'), storeId: p('storeId'), variantId: p('variantId'), quantity: p('quantity'), createdAt: p('now') })
      .prepare(),
    setQuantity: db.update(cartItems).set({ quantity: sql`${p('quantity')}` }).where(eq(cartItems.id, p('id'))).prepare(),
    removeItem: db.delete(cartItems).where(eq(cartItems.id, p('id'))).prepare(),
    liveVariant: db
      .select()
      .from(variants)
      .where(and(eq(variants.id, p('id')), eq(variants.storeId, p('storeId')), isNull(variants.deletedAt)))
      .prepare(),
    productState: db.select({ name: products.name, state: products.state, deletedAt: products.deletedAt }).from(products).where(eq(products.id, p('id'))).prepare(),
    lines: db
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
      .where(eq(cartItems.cartId, p('cartId')))
      .orderBy(asc(cartItems.createdAt), sql`${cartItems}.rowid`)
      .prepare(),
    currency: db.select({ currency: stores.currency }).from(stores).where(eq(stores.id, p('storeId'))).prepare(),
  }
}

const built = new WeakMap<Db, ReturnType<typeof build>>()

export function cartStatements(db: Db) {
  let statements = built.get(db)
  if (!statements) built.set(db, (statements = build(db)))
  return statements
}
