import { and, count, eq, gte, lt, sum } from 'drizzle-orm'
import type { StoreCtx } from '../../kernel/auth/kinds'
import type { Deps } from '../../kernel/deps'
import { fromCents } from '../../kernel/money'
import { orders, ORDER_STATES, type OrderState } from './tables'

// What the store's overview reads of the orders.

/** Orders per status (every status listed, 0 included), and the orders paid in `[from, to)` with their total. */
export function orderSummary(deps: Deps, ctx: StoreCtx, from: number, to: number) {
  const rows = deps.db.select({ status: orders.status, n: count() }).from(orders).where(eq(orders.storeId, ctx.storeId)).groupBy(orders.status).all()
  const byStatus = Object.fromEntries(ORDER_STATES.map((s) => [s, 0])) as Record<OrderState, number>
  for (const r of rows) byStatus[r.status] = r.n
  // An order is paid before it expires, so the orders made since `from` minus the reservation time are all it can be.
  const [paid] = deps.db
    .select({ n: count(), cents: sum(orders.totalCents).mapWith(Number) })
    .from(orders)
    .where(and(eq(orders.storeId, ctx.storeId), gte(orders.createdAt, from - deps.config.reservationTtlMinutes * 60_000), gte(orders.paidAt, from), lt(orders.paidAt, to)))
    .all()
  return { byStatus, paid: { orders: paid?.n ?? 0, amount: fromCents(paid?.cents ?? 0) } }
}
