import { customerOf, type StoreCtx } from '../../kernel/auth/kinds'
import { groupedWrite } from '../../kernel/db/database'
import { AppError } from '../../kernel/errors'
import { totalCents } from '../../kernel/money'
import { cartToBuy, emptyCart } from '../cart'
import { moveStock } from '../catalog'
import type { OrdersDeps } from './expiry'
import { orderStatements, type OrderItemRow, type OrderRow } from './statements'
import { orderBody } from './views'

/**
 * Checkout: in one BEGIN IMMEDIATE transaction every line is reserved or none is,
 * the order snapshots names, skus and prices, gets the store's next number, and the cart is emptied.
 */
export async function checkout(deps: OrdersDeps, ctx: StoreCtx) {
  const customerId = customerOf(ctx)
  const order = await groupedWrite(deps.db, (tx) => {
    const cart = cartToBuy(tx, deps, ctx)
    const { lines } = cart
    const short = lines.filter((l) => l.quantity > l.stock - l.reserved)
    if (short.length > 0) {
      throw new AppError(
        'INSUFFICIENT_STOCK',
        `Not enough stock for ${short.map((l) => `${l.sku} (${l.quantity} wanted, ${l.stock - l.reserved} available)`).join(', ')}. Nothing was reserved; lower those quantities (PATCH /v1/cart/items/:id) and check out again.`,
        short.map((l) => ({ itemId: l.id, variantId: l.variantId, sku: l.sku, requested: l.quantity, available: l.stock - l.reserved })),
      )
    }
    const q = orderStatements(tx)
    const buyer = q.buyer.get({ customerId, storeId: ctx.storeId })!
    const now = deps.clock.now()
    const subtotalCents = totalCents(lines)
    const row: OrderRow = {
      id: deps.ids.next('ord'),
      storeId: ctx.storeId,
      number: (buyer.lastNumber ?? 0) + 1,
      customerId,
      customerName: buyer.name,
      customerEmail: buyer.email,
      status: 'PENDING',
      subtotalCents,
      totalCents: subtotalCents,
      currency: cart.currency,
      cancelReason: null,
      trackingCode: null,
      createdAt: now,
      updatedAt: now,
      expiresAt: now + deps.config.reservationTtlMinutes * 60_000,
      paidAt: null,
      shippedAt: null,
      deliveredAt: null,
      cancelledAt: null,
      refundedAt: null,
    }
    q.insertOrder.run(row)
    const items: OrderItemRow[] = lines.map((l, position) => ({
      orderId: row.id,
      position,
      variantId: l.variantId,
      productId: l.productId,
      name: l.name,
      sku: l.sku,
      unitPriceCents: l.priceCents,
      quantity: l.quantity,
      lineTotalCents: l.priceCents * l.quantity,
    }))
    q.insertItems.run({ items: JSON.stringify(items) })
    for (const l of lines) {
      moveStock(tx, deps, ctx, { variantId: l.variantId, kind: 'RESERVE', quantity: l.quantity, reason: `order #${row.number} checkout`, orderId: row.id })
    }
    emptyCart(tx, cart.id)
    deps.outbox.emit(tx, ctx.storeId, 'order.created', { orderId: row.id, number: row.number, customerId, total: subtotalCents / 100 })
    // What was written is the answer: a new order has these lines and no payments or refunds yet.
    return orderBody(row, items, [], [])
  })
  deps.orderExpiry.wake(Date.parse(order.expiresAt!))
  return order
}
