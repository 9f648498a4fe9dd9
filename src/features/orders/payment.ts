import { customerOf, type StoreCtx } from '../../kernel/auth/kinds'
import { isoTime } from '../../kernel/clock'
import { groupedWrite, groupsSettled } from '../../kernel/db/database'
import type { Deps } from '../../kernel/deps'
import { AppError } from '../../kernel/errors'
import { cancelOrder, expiredOrder, markPaid } from './changes'
import { withIdempotency } from './idempotency'
import type { PayBody } from './model'
import { pixCode } from './pix'
import { assertMove, canMove } from './states'
import { orderStatements } from './statements'
import { findOrder, orderBody, type OrderRow } from './views'

/**
 * The simulated payment processor. It answers asynchronously, as a real one would, so that a second
 * request can arrive while a payment is under way (which the Idempotency-Key rules are about).
 */
const processor = {
  authorize: (body: PayBody) => new Promise<boolean>((resolve) => setImmediate(() => resolve(body.simulate !== 'decline'))),
}

/**
 * Throws the 409 INVALID_TRANSITION of an order that cannot be paid (unless it can). An order that
 * expired is told as such: the buyer last saw it PENDING, and what to do next is to check out again.
 */
function refusePayment(order: OrderRow) {
  const expired = expiredOrder(order, 'PAID', 'it cannot be paid now. To buy them, add them to the cart again (POST /v1/cart/items) and check out (POST /v1/orders/checkout), then pay the new order.')
  if (expired) throw expired
  assertMove(order.id, order.status, 'PAID', 'pay')
}

/** POST /orders/:id/pay: approved by default; `simulate: "decline"` is 402 and the order stays PENDING. */
export function pay(deps: Deps, ctx: StoreCtx, orderId: string, body: PayBody, idempotencyKey: string | undefined) {
  const request = { orderId, method: body.method, simulate: body.simulate ?? null, installments: body.installments ?? 1 }
  return withIdempotency(deps, { storeId: ctx.storeId, customerId: customerOf(ctx) }, idempotencyKey, request, async () => {
    // Refuse early what cannot be paid; the transaction below checks again after the processor answered.
    const before = findOrder(deps.db, ctx, orderId)
    if (!canMove(before.status, 'PAID', 'pay')) {
      // What refuses it may be another payment of this order, written in a commit group not committed yet.
      await groupsSettled(deps.db)
      refusePayment(findOrder(deps.db, ctx, orderId))
    }
    const approved = await processor.authorize(body)
    const result = await groupedWrite(deps.db, (tx) => {
      const order = findOrder(tx, ctx, orderId)
      const now = deps.clock.now()
      // Past its time (the timer may not have run yet), the order expires here instead of being paid.
      if (order.status === 'PENDING' && order.expiresAt <= now) return { outcome: 'expired' as const, order: cancelOrder(tx, deps, order, 'EXPIRED', 'expire') }
      refusePayment(order)
      const paymentId = deps.ids.next('pay')
      const q = orderStatements(tx)
      q.insertPayment.run({
        id: paymentId,
        orderId: order.id,
        storeId: order.storeId,
        method: body.method,
        status: approved ? 'APPROVED' : 'DECLINED',
        amountCents: order.totalCents,
        installments: body.installments ?? 1,
        pixCode: body.method === 'PIX' ? pixCode(paymentId, order.totalCents) : null,
        createdAt: now,
      })
      if (!approved) return { outcome: 'declined' as const, order, paymentId }
      const { order: paid, items } = markPaid(tx, deps, order)
      // A PENDING order has no refunds; its payments are read after this one was written.
      return { outcome: 'paid' as const, body: orderBody(paid, items, q.payments.all({ ids: JSON.stringify([order.id]) }), []) }
    })
    // Committed: the expiry stands, and the answer is the refusal of paying an expired order.
    if (result.outcome === 'expired') return refusePayment(result.order) as never
    if (result.outcome === 'declined') {
      throw new AppError(
        'PAYMENT_DECLINED',
        `The payment was declined (simulated), so order #${result.order.number} stays PENDING until ${isoTime(result.order.expiresAt)}. Pay again without "simulate" to approve it.`,
        [{ orderId, paymentId: result.paymentId, status: 'DECLINED' }],
      )
    }
    return { status: 200, body: result.body }
  })
}
