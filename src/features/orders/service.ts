import { and, count, desc, eq, gte, lt, type SQL } from 'drizzle-orm'
import { customerOf, type StoreCtx } from '../../kernel/auth/kinds'
import { writeTransaction } from '../../kernel/db/database'
import type { Deps } from '../../kernel/deps'
import { AppError } from '../../kernel/errors'
import { instantOfQuery } from '../../kernel/instant-query'
import { pageWindow, toPage, type PageQuery } from '../../kernel/pagination'
import { cancelOrder, refundOrder, ship } from './changes'
import type { OrdersDeps } from './expiry'
import { assertMove } from './states'
import type { OrderState } from './tables'
import { orders, refunds } from './tables'
import { findOrder, toOrder, toOrders } from './views'

// Reading orders, and the changes the buyer and the store panel ask for.

function page(deps: Deps, where: SQL | undefined, query: PageQuery) {
  const { limit, offset } = pageWindow(query)
  const rows = deps.db.select().from(orders).where(where).orderBy(desc(orders.createdAt), desc(orders.number)).limit(limit).offset(offset).all()
  const [{ n }] = deps.db.select({ n: count() }).from(orders).where(where).all() as [{ n: number }]
  return toPage(toOrders(deps.db, rows), n, query)
}

export function listCustomerOrders(deps: Deps, ctx: StoreCtx, query: PageQuery & { status?: OrderState }) {
  const where = and(eq(orders.storeId, ctx.storeId), eq(orders.customerId, customerOf(ctx)), query.status ? eq(orders.status, query.status) : undefined)
  return page(deps, where, query)
}

export function listStoreOrders(deps: Deps, ctx: StoreCtx, query: PageQuery & { status?: OrderState; customerId?: string; from?: string; to?: string }) {
  const where = and(
    eq(orders.storeId, ctx.storeId),
    query.status ? eq(orders.status, query.status) : undefined,
    query.customerId ? eq(orders.customerId, query.customerId) : undefined,
    query.from ? gte(orders.createdAt, instantOfQuery(query.from, deps.clock.timeZone)) : undefined,
    query.to ? lt(orders.createdAt, instantOfQuery(query.to, deps.clock.timeZone, true)) : undefined,
  )
  return page(deps, where, query)
}

export const getOrder = (deps: Deps, ctx: StoreCtx, id: string) => toOrder(deps.db, findOrder(deps.db, ctx, id))

/** The customer cancels their own PENDING order. */
export function cancelByCustomer(deps: OrdersDeps, ctx: StoreCtx, id: string) {
  deps.orderExpiry.tick()
  return writeTransaction(deps.db, (tx) => toOrder(tx, cancelOrder(tx, deps, findOrder(tx, ctx, id), 'CUSTOMER', 'cancel')))
}

/** The store moves an order: PENDING → CANCELLED, PAID → SHIPPED, SHIPPED → DELIVERED (states.ts). */
export function transition(deps: OrdersDeps, ctx: StoreCtx, id: string, input: { to: OrderState; trackingCode?: string }) {
  deps.orderExpiry.tick()
  return writeTransaction(deps.db, (tx) => {
    const order = findOrder(tx, ctx, id)
    // The code is given once, when the parcel leaves: DELIVERED keeps it, so the buyer's code never changes.
    if (input.trackingCode !== undefined && input.to !== 'SHIPPED') {
      throw new AppError('VALIDATION_ERROR', 'trackingCode goes with "to": "SHIPPED", when the parcel leaves; DELIVERED keeps the code given then. Leave it out otherwise.', [
        { path: 'trackingCode', message: 'only with SHIPPED' },
      ])
    }
    if (input.to === 'SHIPPED' || input.to === 'DELIVERED') return toOrder(tx, ship(tx, deps, order, input.to, input.trackingCode ?? null))
    if (input.to === 'CANCELLED') return toOrder(tx, cancelOrder(tx, deps, order, 'STORE', 'transition'))
    // PAID, REFUNDED, PENDING are never a store transition: 409, whose message says how they happen.
    assertMove(order.id, order.status, input.to, 'transition')
    throw new Error(`unreachable: no store transition leads to ${input.to}`)
  })
}

/** The store refunds the whole order; restock (the default) returns the units to stock. */
export function refund(deps: Deps, ctx: StoreCtx, id: string, input: { reason?: string; restock: boolean }) {
  return writeTransaction(deps.db, (tx) => {
    const order = findOrder(tx, ctx, id)
    const refundId = deps.ids.next('ref')
    const after = refundOrder(tx, deps, order, input)
    tx.insert(refunds).values({ id: refundId, orderId: order.id, storeId: order.storeId, amountCents: order.totalCents, reason: input.reason ?? null, restock: input.restock, createdAt: deps.clock.now() }).run()
    deps.outbox.emit(tx, order.storeId, 'order.refunded', { orderId: order.id, number: order.number, refundId, amount: order.totalCents / 100, restock: input.restock })
    return toOrder(tx, after)
  })
}
