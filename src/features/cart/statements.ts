import { and, eq, sql, type SQLWrapper } from 'drizzle-orm'
import type { Sql } from '../../kernel/db/database'
import { perHandle } from '../../kernel/db/per-handle'
import { withParams } from '../../kernel/db/prepared'
import { withTableNames } from '../../kernel/db/table-names'
import { variantLineJson } from '../catalog'
import { currencyOfStore } from '../store-settings'
import { cartItems, carts } from './tables'

/*
 * The cart's statements, prepared once per database handle: drizzle builds a statement's SQL text on
 * every call otherwise, which was most of a cart add's time (bench/README.md). Given a transaction's
 * handle, they read and write in it.
 */

const p = sql.placeholder

/** The lines of the cart `cartId` names, as the JSON array the `cart` statement reads. */
const linesOf = (cartId: SQLWrapper, storeId: SQLWrapper) =>
  withTableNames<string>(sql`(select json_group_array(json_array(${cartItems.id}, ${cartItems.variantId}, ${cartItems.quantity}, ${cartItems.createdAt}, ${cartItems}.rowid, ${variantLineJson(cartItems.variantId)}))
    from ${cartItems} where ${cartItems.cartId} = ${cartId} and ${cartItems.storeId} = ${storeId})`)

function build(db: Sql) {
  return {
    // The cart with the store's currency and every line, with what each line shows of its variant and
    // product, in one statement: a subquery costs no statement, and the lines come as one JSON array
    // (`[id, variantId, quantity, createdAt, rowid, [variant and product]]` each, unordered: service.ts
    // sorts the few lines in JavaScript, for less than SQLite's sorter costs), which drizzle maps as one
    // column instead of fourteen per line (bench/README.md, "The cart's one statement").
    cart: withParams<{ customerId: string; storeId: string }>()(
      db
        .select({
          id: carts.id,
          currency: currencyOfStore(carts.storeId),
          lines: linesOf(carts.id, carts.storeId),
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
  }
}

export const cartStatements = perHandle(build)

