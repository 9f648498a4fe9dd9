import { integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { customers, stores } from '../../kernel/auth/tables'
import { variants } from '../catalog/tables'

/** One cart per customer: checkout empties it, the cart itself stays. */
export const carts = sqliteTable(
  'carts',
  {
    id: text().primaryKey(),
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    customerId: text('customer_id')
      .notNull()
      .references(() => customers.id, { onDelete: 'cascade' }),
    createdAt: integer('created_at').notNull(),
    /**
     * When a line was last added or removed. A new quantity of a line already there does not move it:
     * that write would be a second page in the commit of every add (bench/README.md, cart add).
     */
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [uniqueIndex('carts_customer').on(t.customerId)],
)

export const cartItems = sqliteTable(
  'cart_items',
  {
    id: text().primaryKey(),
    cartId: text('cart_id')
      .notNull()
      .references(() => carts.id, { onDelete: 'cascade' }),
    storeId: text('store_id').notNull(),
    variantId: text('variant_id')
      .notNull()
      .references(() => variants.id, { onDelete: 'cascade' }),
    quantity: integer().notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [uniqueIndex('cart_items_cart_variant').on(t.cartId, t.variantId)],
)
