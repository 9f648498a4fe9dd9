import { eq } from 'drizzle-orm'
import type { StoreCtx } from '../../kernel/auth/kinds'
import { isoTime } from '../../kernel/clock'
import type { Sql, Tx } from '../../kernel/db/database'
import type { Deps } from '../../kernel/deps'
import { AppError } from '../../kernel/errors'
import { fromCents } from '../../kernel/money'
import { moveStock } from '../catalog'
import { assertMove, type Operation } from './states'
import { orderStatements, type OrderItemRow, type OrderRow } from './statements'
import { orders, type CancelReason, type OrderState } from './tables'

// State changes shared by the buyer, the store panel and the expiry timer; each runs in the caller's transaction.

const itemsOf = (tx: Sql, orderId: string) => orderStatements(tx).itemsOf.all({ orderId })

/** The store's context for moves made on its behalf (expiry); only storeId is read by stock moves. */
export const systemCtx = (storeId: string): StoreCtx => ({ storeId, groupId: '', actor: { type: 'secretKey', keyId: 'system', rm: null } })

function update(tx: Tx, order: OrderRow, set: Partial<OrderRow>): OrderRow {
  return tx.update(orders).set(set).where(eq(orders.id, order.id)).returning().get()!
}

/**
 * The 409 INVALID_TRANSITION of an order that expired, told as such (`next`: what to do instead): its
 * buyer last saw it PENDING, and "CANCELLED is final" would not say why.
 */
export function expiredOrder(order: OrderRow, requested: OrderState, next: string): AppError | undefined {
  if (order.status !== 'CANCELLED' || order.cancelReason !== 'EXPIRED') return undefined
  return new AppError('INVALID_TRANSITION', `Order #${order.number} expired at ${isoTime(order.expiresAt)} before it was paid, so it was cancelled and its items went back to stock; ${next}`, [
    { orderId: order.id, status: order.status, requested, cancelReason: order.cancelReason },
  ])
}

/** PENDING → CANCELLED: the reservation is released and `order.cancelled` sent. */
export function cancelOrder(tx: Tx, deps: Deps, order: OrderRow, reason: CancelReason, op: Operation): OrderRow {
  // Expiry moves PENDING orders only, which expiredOrder never refuses.
  const expired = expiredOrder(order, 'CANCELLED', 'there is nothing left to cancel.')
  if (expired) throw expired
  assertMove(order.id, order.status, 'CANCELLED', op)
  const ctx = systemCtx(order.storeId)
  const label = { CUSTOMER: 'cancelled by the customer', STORE: 'cancelled by the store', EXPIRED: 'not paid in time' }[reason]
  for (const item of itemsOf(tx, order.id)) {
    moveStock(tx, deps, ctx, { variantId: item.variantId, kind: 'RELEASE', quantity: item.quantity, reason: `order #${order.number} ${label}`, orderId: order.id })
  }
  const now = deps.clock.now()
  const after = update(tx, order, { status: 'CANCELLED', cancelReason: reason, cancelledAt: now, updatedAt: now })
  deps.outbox.emit(tx, order.storeId, 'order.cancelled', { orderId: order.id, number: order.number, reason, total: fromCents(after.totalCents) })
  return after
}

/** PENDING → PAID after an approved payment: each reservation becomes a sale. Returns the order as it is now, and its lines. */
export function markPaid(tx: Tx, deps: Deps, order: OrderRow): { order: OrderRow; items: OrderItemRow[] } {
  assertMove(order.id, order.status, 'PAID', 'pay')
  const ctx = systemCtx(order.storeId)
  const items = itemsOf(tx, order.id)
  for (const item of items) {
    moveStock(tx, deps, ctx, { variantId: item.variantId, kind: 'SALE', quantity: item.quantity, reason: `order #${order.number} paid`, orderId: order.id })
  }
  const now = deps.clock.now()
  orderStatements(tx).markPaid.run({ id: order.id, now })
  const after: OrderRow = { ...order, status: 'PAID', paidAt: now, updatedAt: now }
  deps.outbox.emit(tx, order.storeId, 'order.paid', { orderId: order.id, number: order.number, total: fromCents(after.totalCents) })
  return { order: after, items }
}

/** PAID → SHIPPED → DELIVERED by the store; each fires `shipment.updated`. */
export function ship(tx: Tx, deps: Deps, order: OrderRow, to: 'SHIPPED' | 'DELIVERED', trackingCode: string | null): OrderRow {
  assertMove(order.id, order.status, to, 'transition')
  const now = deps.clock.now()
  const after =
    to === 'SHIPPED'
      ? update(tx, order, { status: to, shippedAt: now, trackingCode, updatedAt: now })
      : update(tx, order, { status: to, deliveredAt: now, updatedAt: now })
  deps.outbox.emit(tx, order.storeId, 'shipment.updated', { orderId: order.id, number: order.number, status: to, trackingCode: after.trackingCode })
  return after
}

/** PAID | SHIPPED | DELIVERED → REFUNDED, the whole total; with restock the units return to stock. */
export function refundOrder(tx: Tx, deps: Deps, order: OrderRow, input: { reason?: string; restock: boolean }): OrderRow {
  assertMove(order.id, order.status, 'REFUNDED', 'refund')
  const ctx = systemCtx(order.storeId)
  if (input.restock) {
    for (const item of itemsOf(tx, order.id)) {
      moveStock(tx, deps, ctx, { variantId: item.variantId, kind: 'RETURN', quantity: item.quantity, reason: `order #${order.number} refunded`, orderId: order.id })
    }
  }
  return update(tx, order, { status: 'REFUNDED', refundedAt: deps.clock.now(), updatedAt: deps.clock.now() })
}
