import { and, eq, sql } from 'drizzle-orm'
import type { Sql } from '../../kernel/db/database'
import { perHandle } from '../../kernel/db/per-handle'
import { withParams } from '../../kernel/db/prepared'
import { joinVariantLine, VARIANT_LINE_FIELDS } from '../catalog'
import { currencyOfStore } from '../store-settings'
import { cartItems, carts } from './tables'

/*
 * The cart's statements, prepared once per database handle: drizzle builds a statement's SQL text on
 * every call otherwise, which was most of a cart add's time (bench/README.md). Given a transaction's
 * handle, they read and write in it.
 */

const p = sql.placeholder

function build(db: Sql) {
  return {
    // The cart with the store's currency and every line, with what each line shows of its variant and
    // product, in one statement: a row per line (`CartRow`; one row with no line for an empty cart),
    // read as plain values rather than mapped to names by drizzle (bench/README.md, "The cart's one
    // statement"). Unordered: service.ts sorts the few lines in JavaScript, for less than SQLite's
    // sorter costs.
    cart: withParams<{ customerId: string; storeId: string }>()(
      joinVariantLine(
        db
          .select({
            id: carts.id,
            currency: currencyOfStore(carts.storeId),
            itemId: cartItems.id,
            variantId: cartItems.variantId,
            quantity: cartItems.quantity,
            createdAt: cartItems.createdAt,
            rowid: sql<number>`${cartItems}.rowid`,
            ...VARIANT_LINE_FIELDS,
          })
          .from(carts)
          .leftJoin(cartItems, and(eq(cartItems.cartId, carts.id), eq(cartItems.storeId, carts.storeId)))
          .$dynamic(),
        cartItems.variantId,
      )
        .where(and(eq(carts.customerId, p('customerId')), eq(carts.storeId, p('storeId'))))
        .prepare(),
    ),
    insertCart: withParams<{ id: string; storeId: string; customerId: string; now: number }>()(
      db.insert(carts).values({ id: p('id'), storeId: p('storeId'), customerId: p('customerId'), createdAt: p('now'), updatedAt: p('now') }).prepare(),
    ),
    touchCart: withParams<{ id: string; storeId: string; now: number }>()(
      db
        .update(carts)
        .set({ updatedAt: sql`${p('now')}` })
        .where(and(eq(carts.id, p('id')), eq(carts.storeId, p('storeId'))))
        .prepare(),
    ),
    insertItem: withParams<{ id: string; cartId: string; storeId: string; variantId: string; quantity: number; now: number }>()(
      db
        .insert(cartItems)
        .values({ id: p('id'), cartId: p('cartId'), storeId: p('storeId'), variantId: p('variantId'), quantity: p('quantity'), createdAt: p('now') })
        .prepare(),
    ),
    setQuantity: withParams<{ id: string; storeId: string; quantity: number }>()(
      db
        .update(cartItems)
        .set({ quantity: sql`${p('quantity')}` })
        .where(and(eq(cartItems.id, p('id')), eq(cartItems.storeId, p('storeId'))))
        .prepare(),
    ),
    removeItem: withParams<{ id: string; storeId: string }>()(
      db
        .delete(cartItems)
        .where(and(eq(cartItems.id, p('id')), eq(cartItems.storeId, p('storeId'))))
        .prepare(),
    ),
    emptyCart: withParams<{ cartId: string }>()(db.delete(cartItems).where(eq(cartItems.cartId, p('cartId'))).prepare()),
  }
}

export const cartStatements = perHandle(build)

