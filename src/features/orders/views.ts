import { and, asc, eq, inArray, sql } from 'drizzle-orm'
import { isoTime } from '../../kernel/clock'
import type { Sql } from '../../kernel/db/database'
import { notFound } from '../../kernel/errors'
import type { StoreCtx } from '../../kernel/auth/kinds'
import { fromCents } from '../../kernel/money'
import type { Order } from './model'
import { PAID_STATES, targetsOf } from './states'
import { orderItems, orders, payments, refunds } from './tables'

export type OrderRow = typeof orders.$inferSelect

const ORDERS_HINT = 'GET /v1/orders lists your orders (GET /v1/store/orders all of the store\u2019s)'

/**
 * Loads an order of the caller's store; a customer sees only their own. Another store's or another
 * customer's order is the same 404 as an unknown id.
 */
export function findOrder(db: Sql, ctx: StoreCtx, id: string): OrderRow {
  const conditions = [eq(orders.id, id), eq(orders.storeId, ctx.storeId)]
  if (ctx.actor.type === 'customer') conditions.push(eq(orders.customerId, ctx.actor.customerId))
  const row = db.select().from(orders).where(and(...conditions)).get()
  if (!row) throw notFound('order', id, ORDERS_HINT)
  return row
}

/** Whether the customer has a paid, unrefunded order of this store with the product in it (PAID_STATES). */
export function hasPaidOrderWith(db: Sql, storeId: string, customerId: string, productId: string): boolean {
  const found = db
    .select({ id: orders.id })
    .from(orders)
    .innerJoin(orderItems, eq(orderItems.orderId, orders.id))
    .where(and(eq(orders.storeId, storeId), eq(orders.customerId, customerId), inArray(orders.status, [...PAID_STATES]), eq(orderItems.productId, productId)))
    .limit(1)
    .get()
  return found !== undefined
}

/** The response bodies of many orders, with their lines, payments and refunds in three queries. */
export function toOrders(db: Sql, rows: OrderRow[]): Order[] {
  if (rows.length === 0) return []
  const ids = rows.map((r) => r.id)
  const group = <T extends { orderId: string }>(list: T[]) => {
    const by = new Map<string, T[]>()
    for (const x of list) by.set(x.orderId, [...(by.get(x.orderId) ?? []), x])
    return by
  }
  const items = group(db.select().from(orderItems).where(inArray(orderItems.orderId, ids)).orderBy(asc(orderItems.orderId), asc(orderItems.position)).all())
  const pays = group(db.select().from(payments).where(inArray(payments.orderId, ids)).orderBy(asc(payments.createdAt), sql`${payments}.rowid`).all())
  const refs = group(db.select().from(refunds).where(inArray(refunds.orderId, ids)).orderBy(asc(refunds.createdAt), sql`${refunds}.rowid`).all())
  return rows.map((r) => ({
    id: r.id,
    number: r.number,
    status: r.status,
    allowedTransitions: targetsOf(r.status, 'transition'),
    refundable: targetsOf(r.status, 'refund').length > 0,
    items: (items.get(r.id) ?? []).map((i) => ({
      variantId: i.variantId,
      productId: i.productId,
      name: i.name,
      sku: i.sku,
      unitPrice: fromCents(i.unitPriceCents),
      quantity: i.quantity,
      lineTotal: fromCents(i.lineTotalCents),
    })),
    subtotal: fromCents(r.subtotalCents),
    total: fromCents(r.totalCents),
    currency: r.currency,
    customer: { id: r.customerId, name: r.customerName, email: r.customerEmail },
    payments: (pays.get(r.id) ?? []).map((p) => ({
      id: p.id,
      method: p.method,
      status: p.status,
      amount: fromCents(p.amountCents),
      installments: p.installments,
      pixCode: p.pixCode,
      createdAt: isoTime(p.createdAt),
    })),
    refunds: (refs.get(r.id) ?? []).map((f) => ({ id: f.id, amount: fromCents(f.amountCents), reason: f.reason, restock: f.restock, createdAt: isoTime(f.createdAt) })),
    shipment:
      r.shippedAt === null
        ? null
        : {
            status: r.deliveredAt === null ? ('SHIPPED' as const) : ('DELIVERED' as const),
            trackingCode: r.trackingCode,
            shippedAt: isoTime(r.shippedAt),
            deliveredAt: r.deliveredAt === null ? null : isoTime(r.deliveredAt),
          },
    cancelReason: r.cancelReason,
    createdAt: isoTime(r.createdAt),
    updatedAt: isoTime(r.updatedAt),
    expiresAt: r.status === 'PENDING' ? isoTime(r.expiresAt) : null,
  }))
}

export const toOrder = (db: Sql, row: OrderRow): Order => toOrders(db, [row])[0]!
