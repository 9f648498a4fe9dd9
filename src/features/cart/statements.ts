import { and, eq, isNull, sql, type SQL } from 'drizzle-orm'
import { stores } from '../../kernel/auth/tables'
import type { Db } from '../../kernel/db/database'
import { products, variants } from '../catalog/tables'
import { cartItems, carts } from '../orders/tables'

/*
 * A line's variant and product are read through scalar subqueries, not joins: the same rows (the
 * foreign keys make every item's variant and product exist), and SQLite runs a lookup by primary key
 * in a subquery for a fraction of what each join costs it here (about 6 µs a join, against 0.3 µs).
 */
// Written out with every name qualified: drizzle leaves the table off a column of a one-table select.
const ofVariant = <T>(column: string) => sql.raw(`(select v.${column} from variants v where v.id = cart_items.variant_id)`) as SQL<T>
const ofProduct = <T>(column: string, productIdFrom: 'variants' | 'cart_items') =>
  sql.raw(`(select p.${column} from products p where p.id = ${productIdFrom === 'variants' ? 'variants.product_id' : '(select v.product_id from variants v where v.id = cart_items.variant_id)'})`) as SQL<T>

/**
 * The cart's queries, built once per database. drizzle builds a statement's SQL text on every call,
 * which was most of a cart add's time (bench/README.md); built once they only bind and run. They run
 * on the one connection, so inside a transaction they read and write in it like `tx` would.
 */
function build(db: Db) {
  const p = sql.placeholder
  return {
    // The store's currency comes with the cart: the answer needs it, and a subquery costs no statement.
    cart: db
      .select({
        id: carts.id,
        storeId: carts.storeId,
        customerId: carts.customerId,
        createdAt: carts.createdAt,
        updatedAt: carts.updatedAt,
        currency: sql<string>`(select s.currency from stores s where s.id = carts.store_id)`,
      })
      .from(carts)
      .where(and(eq(carts.customerId, p('customerId')), eq(carts.storeId, p('storeId')))).prepare(),
    insertCart: db
      .insert(carts)
      .values({ id: p('id'), storeId: p('storeId'), customerId: p('customerId'), createdAt: p('now'), updatedAt: p('now') })
      .prepare(),
    touchCart: db.update(carts).set({ updatedAt: sql`${p('now')}` }).where(eq(carts.id, p('id'))).prepare(),
    item: db.select().from(cartItems).where(and(eq(cartItems.id, p('id')), eq(cartItems.cartId, p('cartId')))).prepare(),
    insertItem: db
      .insert(cartItems)
      .values({ id: p('id'), cartId: p('cartId'), storeId: p('storeId'), variantId: p('variantId'), quantity: p('quantity'), createdAt: p('now') })
      .prepare(),
    setQuantity: db.update(cartItems).set({ quantity: sql`${p('quantity')}` }).where(eq(cartItems.id, p('id'))).prepare(),
    removeItem: db.delete(cartItems).where(eq(cartItems.id, p('id'))).prepare(),
    // A live variant of this store with its product, shaped as a line of `lines`: what an add checks
    // and, for a variant not yet in the cart, its new line.
    variantLine: db
      .select({
        productId: variants.productId,
        sku: variants.sku,
        priceCents: variants.priceCents,
        stock: variants.stock,
        reserved: variants.reserved,
        variantDeletedAt: variants.deletedAt,
        name: ofProduct<string>('name', 'variants'),
        state: ofProduct<string>('state', 'variants'),
        productDeletedAt: ofProduct<number | null>('deleted_at', 'variants'),
      })
      .from(variants)
      .where(and(eq(variants.id, p('id')), eq(variants.storeId, p('storeId')), isNull(variants.deletedAt)))
      .prepare(),
    // Unordered: `cartLines` sorts the few lines in JavaScript, where SQLite's sorter cost 15 µs.
    lines: db
      .select({
        id: cartItems.id,
        variantId: cartItems.variantId,
        quantity: cartItems.quantity,
        productId: ofVariant<string>('product_id'),
        sku: ofVariant<string>('sku'),
        priceCents: ofVariant<number>('price_cents'),
        stock: ofVariant<number>('stock'),
        reserved: ofVariant<number>('reserved'),
        variantDeletedAt: ofVariant<number | null>('deleted_at'),
        name: ofProduct<string>('name', 'cart_items'),
        state: ofProduct<string>('state', 'cart_items'),
        productDeletedAt: ofProduct<number | null>('deleted_at', 'cart_items'),
        createdAt: cartItems.createdAt,
        rowid: sql<number>`cart_items.rowid`,
      })
      .from(cartItems)
      .where(eq(cartItems.cartId, p('cartId')))
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
