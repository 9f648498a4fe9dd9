import { and, asc, eq, sql } from 'drizzle-orm'
import { customers } from '../../kernel/auth/tables'
import type { Sql } from '../../kernel/db/database'
import { inJsonIds } from '../../kernel/db/json-ids'
import { perHandle } from '../../kernel/db/per-handle'
import { withParams } from '../../kernel/db/prepared'
import { orderItems, orders, payments, refunds } from './tables'

/*
 * The queries of the buying flow (checkout, pay, an order's body), prepared once per database handle:
 * drizzle builds a statement's SQL text on every call otherwise, which was most of an order's CPU time
 * (bench/README.md). Given a transaction's handle, they read and write in it.
 */

const p = sql.placeholder
export type OrderRow = typeof orders.$inferSelect
export type OrderItemRow = typeof orderItems.$inferSelect
type Ids = { ids: string }

/** A field of each element of the JSON array bound to `items`, for an INSERT of all the lines at once. */
const field = (name: keyof OrderItemRow) => sql.raw(`value ->> '${name}'`)

function build(db: Sql) {
  const byId = and(eq(orders.id, p('id')), eq(orders.storeId, p('storeId')))
  return {
    byStore: withParams<{ id: string; storeId: string }>()(db.select().from(orders).where(byId).prepare()),
    byCustomer: withParams<{ id: string; storeId: string; customerId: string }>()(
      db.select().from(orders).where(and(byId, eq(orders.customerId, p('customerId')))).prepare(),
    ),
    // An order's body: its lines, payments and refunds, of any number of orders (a JSON array of ids).
    items: withParams<Ids>()(db.select().from(orderItems).where(inJsonIds(orderItems.orderId)).orderBy(asc(orderItems.orderId), asc(orderItems.position)).prepare()),
    payments: withParams<Ids>()(db.select().from(payments).where(inJsonIds(payments.orderId)).orderBy(asc(payments.createdAt), sql`${payments}.rowid`).prepare()),
    refunds: withParams<Ids>()(db.select().from(refunds).where(inJsonIds(refunds.orderId)).orderBy(asc(refunds.createdAt), sql`${refunds}.rowid`).prepare()),
    itemsOf: withParams<{ orderId: string }>()(db.select().from(orderItems).where(eq(orderItems.orderId, p('orderId'))).orderBy(asc(orderItems.position)).prepare()),
    // Checkout: the buyer's name and e-mail for the order's copy, and the store's last order number, in one statement.
    buyer: withParams<{ customerId: string; storeId: string }>()(
      db
        .select({
          name: customers.name,
          email: customers.email,
          lastNumber: sql<number | null>`(select max(${orders.number}) from ${orders} where ${orders.storeId} = ${p('storeId')})`,
        })
        .from(customers)
        .where(eq(customers.id, p('customerId')))
        .prepare(),
    ),
    insertOrder: withParams<Omit<OrderRow, 'cancelReason' | 'trackingCode' | 'paidAt' | 'shippedAt' | 'deliveredAt' | 'cancelledAt' | 'refundedAt'>>()(
      db
        .insert(orders)
        .values({
          id: p('id'),
          storeId: p('storeId'),
          number: p('number'),
          customerId: p('customerId'),
          customerName: p('customerName'),
          customerEmail: p('customerEmail'),
          status: p('status'),
          subtotalCents: p('subtotalCents'),
          totalCents: p('totalCents'),
          currency: p('currency'),
          createdAt: p('createdAt'),
          updatedAt: p('updatedAt'),
          expiresAt: p('expiresAt'),
        })
        .prepare(),
    ),
    // All the lines of an order in one statement, whatever their number: one JSON array of rows.
    insertItems: withParams<{ items: string }>()(
      db
        .insert(orderItems)
        .select(
          sql`select ${field('orderId')}, ${field('position')}, ${field('variantId')}, ${field('productId')}, ${field('name')}, ${field('sku')},
            ${field('unitPriceCents')}, ${field('quantity')}, ${field('lineTotalCents')} from json_each(${p('items')})`,
        )
        .prepare(),
    ),
    insertPayment: withParams<typeof payments.$inferSelect>()(
      db
        .insert(payments)
        .values({
          id: p('id'),
          orderId: p('orderId'),
          storeId: p('storeId'),
          method: p('method'),
          status: p('status'),
          amountCents: p('amountCents'),
          installments: p('installments'),
          pixCode: p('pixCode'),
          createdAt: p('createdAt'),
        })
        .prepare(),
    ),
    markPaid: withParams<{ id: string; now: number }>()(
      db
        .update(orders)
        .set({ status: 'PAID', paidAt: sql`${p('now')}`, updatedAt: sql`${p('now')}` })
        .where(eq(orders.id, p('id')))
        .prepare(),
    ),
  }
}

export const orderStatements = perHandle(build)
