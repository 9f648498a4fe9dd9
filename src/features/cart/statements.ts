import { and, eq, sql } from 'drizzle-orm'
import type { Sql } from '../../kernel/db/database'
import { perHandle } from '../../kernel/db/per-handle'
import { withParams } from '../../kernel/db/prepared'
import { selectWithVariantLines } from '../catalog'
import { currencyOfStore } from '../store-settings'
import { cartItems, carts } from './tables'

/*
 * The cart's statements, prepared once per database handle: drizzle builds a statement's SQL text on
 * every call otherwise, which was most of a cart add's time (bench/README.md). Given a transaction's
 * handle, they read and write in it.
 */

const p = sql.placeholder

function build(db: Sql) {
  const ofCart = and(eq(cartItems.cartId, p('cartId')), eq(cartItems.storeId, p('storeId')))
  return {
    // The store's currency comes with the cart: the answer needs it, and a subquery costs no statement.
    cart: withParams<{ customerId: string; storeId: string }>()(
      db
        .select({
          id: carts.id,
          storeId: carts.storeId,
          customerId: carts.customerId,
          createdAt: carts.createdAt,
          updatedAt: carts.updatedAt,
          currency: currencyOfStore(carts.storeId),
        })
        .from(carts)
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
    // Each line with what it shows of its variant, in the one statement the catalog builds.
    // Unordered: `cartLines` sorts the few lines in JavaScript, for less than SQLite's sorter costs.
    lines: withParams<{ cartId: string; storeId: string }>()(
      selectWithVariantLines(
        db,
        { id: cartItems.id, variantId: cartItems.variantId, quantity: cartItems.quantity, createdAt: cartItems.createdAt, rowid: sql<number>`${cartItems}.rowid` },
        cartItems.variantId,
      )
        .from(cartItems)
        .where(ofCart)
        .prepare(),
    ),
  }
}

export const cartStatements = perHandle(build)

export type CartRow = NonNullable<ReturnType<ReturnType<typeof cartStatements>['cart']['get']>>
export type LineRow = ReturnType<ReturnType<typeof cartStatements>['lines']['all']>[number]
