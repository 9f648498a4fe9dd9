import { and, eq, inArray } from 'drizzle-orm'
import { isoTime } from '../../kernel/clock'
import type { Sql } from '../../kernel/db/database'
import { AppError, clip, notFound } from '../../kernel/errors'
import type { StoreCtx } from '../../kernel/auth/kinds'
import { fromCents } from '../../kernel/money'
import type { Order } from './model'
import { PAID_STATES, targetsOf } from './states'
import { orderStatements, type OrderItemRow, type OrderRow } from './statements'
import { orderItems, orders, type payments, type refunds } from './tables'

export type { OrderRow }

const ORDERS_HINT = 'GET /v1/orders lists your orders (GET /v1/store/orders all of the store\u2019s)'

/**
 * Loads an order of the caller's store; a customer sees only their own. Another store's or another
 * customer's order is the same 404 as an unknown id.
 */
export function findOrder(db: Sql, ctx: StoreCtx, id: string): OrderRow {
  const q = orderStatements(db)
  const row = ctx.actor.type === 'customer' ? q.byCustomer.get({ id, storeId: ctx.storeId, customerId: ctx.actor.customerId }) : q.byStore.get({ id, storeId: ctx.storeId })
  if (!row) throw /^#?\d+$/.test(id) ? orderNumberAsId(id) : notFound('order', id, ORDERS_HINT)
  return row
}

/**
 * An order's number (`7`, `#7`) is what a buyer and the panel read, so it is what a student first
 * tries in the path; the message says so instead of only "not found".
 */
const orderNumberAsId = (sent: string) =>
  new AppError(
    'NOT_FOUND',
    `'${clip(sent)}' looks like an order number. Numbers are for people (receipts, the panel); the API takes the order's id (ord_...): ` +
      `the id field of the order in the checkout's answer, in GET /v1/orders (the customer's orders) or in GET /v1/store/orders (all of the store's).`,
  )

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

type PaymentRow = typeof payments.$inferSelect
type RefundRow = typeof refunds.$inferSelect

/** The response bodies of many orders, with their lines, payments and refunds in three queries. */
export function toOrders(db: Sql, rows: OrderRow[]): Order[] {
  if (rows.length === 0) return []
  const q = orderStatements(db)
  const ids = { ids: JSON.stringify(rows.map((r) => r.id)) }
  const group = <T extends { orderId: string }>(list: T[]) => {
    const by = new Map<string, T[]>()
    for (const x of list) by.set(x.orderId, [...(by.get(x.orderId) ?? []), x])
    return by
  }
  const items = group(q.items.all(ids))
  const pays = group(q.payments.all(ids))
  const refs = group(q.refunds.all(ids))
  return rows.map((r) => orderBody(r, items.get(r.id) ?? [], pays.get(r.id) ?? [], refs.get(r.id) ?? []))
}

export const toOrder = (db: Sql, row: OrderRow): Order => toOrders(db, [row])[0]!

/** The statuses an order has had, from the time each move left on its row. */
function historyOf(r: OrderRow): Order['history'] {
  const moves: [OrderRow['status'], number | null][] = [
    ['PENDING', r.createdAt],
    ['PAID', r.paidAt],
    ['CANCELLED', r.cancelledAt],
    ['SHIPPED', r.shippedAt],
    ['DELIVERED', r.deliveredAt],
    ['REFUNDED', r.refundedAt],
  ]
  return moves
    .filter((m): m is [OrderRow['status'], number] => m[1] !== null)
    .sort((a, b) => a[1] - b[1])
    .map(([status, at]) => ({ status, at: isoTime(at) }))
}

/** An order's response body from its row, its lines (in position order), its payments and its refunds (oldest first). */
export function orderBody(r: OrderRow, items: OrderItemRow[], pays: PaymentRow[], refs: RefundRow[]): Order {
  return {
    id: r.id,
    number: r.number,
    status: r.status,
    allowedTransitions: targetsOf(r.status, 'transition'),
    refundable: targetsOf(r.status, 'refund').length > 0,
    items: items.map((i) => ({
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
    payments: pays.map((p) => ({
      id: p.id,
      method: p.method,
      status: p.status,
      amount: fromCents(p.amountCents),
      installments: p.installments,
      pixCode: p.pixCode,
      createdAt: isoTime(p.createdAt),
    })),
    refunds: refs.map((f) => ({ id: f.id, amount: fromCents(f.amountCents), reason: f.reason, restock: f.restock, createdAt: isoTime(f.createdAt) })),
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
    history: historyOf(r),
    createdAt: isoTime(r.createdAt),
    updatedAt: isoTime(r.updatedAt),
    expiresAt: r.status === 'PENDING' ? isoTime(r.expiresAt) : null,
  }
}
