import { eq, max } from 'drizzle-orm'
import { customerOf, type StoreCtx } from '../../kernel/auth/kinds'
import { customers } from '../../kernel/auth/tables'
import { writeTransaction } from '../../kernel/db/database'
import { AppError } from '../../kernel/errors'
import { totalCents } from '../../kernel/money'
import { cartToBuy, emptyCart } from '../cart/service'
import { moveStock } from '../catalog/stock'
import type { OrdersDeps } from './expiry'
import { orderItems, orders } from './tables'
import { toOrder } from './views'

/**
 * Checkout: in one BEGIN IMMEDIATE transaction every line is reserved or none is,
 * the order snapshots names, skus and prices, gets the store's next number, and the cart is emptied.
 */
export function checkout(deps: OrdersDeps, ctx: StoreCtx) {
  const customerId = customerOf(ctx)
  const order = writeTransaction(deps.db, (tx) => {
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
    const customer = tx.select().from(customers).where(eq(customers.id, customerId)).get()!
    const [{ last }] = tx.select({ last: max(orders.number) }).from(orders).where(eq(orders.storeId, ctx.storeId)).all() as [{ last: number | null }]
    const now = deps.clock.now()
    const subtotalCents = totalCents(lines)
    const row = tx
      .insert(orders)
      .values({
        id: deps.ids.next('ord'),
        storeId: ctx.storeId,
        number: (last ?? 0) + 1,
        customerId,
        customerName: customer.name,
        customerEmail: customer.email,
        status: 'PENDING',
        subtotalCents,
        totalCents: subtotalCents,
        currency: cart.currency,
        createdAt: now,
        updatedAt: now,
        expiresAt: now + deps.config.reservationTtlMinutes * 60_000,
      })
      .returning()
      .get()!
    lines.forEach((l, position) => {
      tx.insert(orderItems)
        .values({
          orderId: row.id,
          position,
          variantId: l.variantId,
          productId: l.productId,
          name: l.name,
          sku: l.sku,
          unitPriceCents: l.priceCents,
          quantity: l.quantity,
          lineTotalCents: l.priceCents * l.quantity,
        })
        .run()
      moveStock(tx, deps, ctx, { variantId: l.variantId, kind: 'RESERVE', quantity: l.quantity, reason: `order #${row.number} checkout`, orderId: row.id })
    })
    emptyCart(tx, cart.id)
    deps.outbox.emit(tx, ctx.storeId, 'order.created', { orderId: row.id, number: row.number, customerId, total: subtotalCents / 100 })
    return toOrder(tx, row)
  })
  deps.orderExpiry.wake(Date.parse(order.expiresAt!))
  return order
}
