import { and, count, eq, gte, max } from 'drizzle-orm'
import type { StoreCtx } from '../../kernel/auth/kinds'
import { isoTime } from '../../kernel/clock'
import type { Deps } from '../../kernel/deps'
import { webhookDeliveries, webhookEndpoints } from './tables'

/** The store's endpoints with FAILED attempts since `since`: how many, and when the last one was. */
export function failingEndpoints(deps: Deps, ctx: Pick<StoreCtx, 'storeId'>, since: number) {
  return deps.db
    .select({ webhookId: webhookEndpoints.id, url: webhookEndpoints.url, failed: count(), lastFailedAt: max(webhookDeliveries.createdAt) })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.webhookId))
    .where(and(eq(webhookDeliveries.storeId, ctx.storeId), gte(webhookDeliveries.createdAt, since), eq(webhookDeliveries.status, 'FAILED')))
    .groupBy(webhookEndpoints.id)
    .all()
    .map((r) => ({ ...r, lastFailedAt: r.lastFailedAt === null ? null : isoTime(r.lastFailedAt) }))
}
