import type { StoreCtx } from '../../kernel/auth/kinds'
import { today as todayOf } from '../../kernel/clock'
import type { Deps } from '../../kernel/deps'
import { listKeys } from '../api-keys'
import { lowStock, productsByState } from '../catalog'
import { orderSummary } from '../orders'
import { getSettings } from '../store-settings'
import { failingEndpoints } from '../webhooks'
import { FAILING_WINDOW_HOURS, LOW_STOCK_SHOWN, type Overview } from './model'

/** The store at a glance: each part read through the feature that owns it. */
export function storeOverview(deps: Deps, ctx: StoreCtx): Overview {
  const now = deps.clock.now()
  const today = todayOf(deps.clock, now)
  const orders = orderSummary(deps, ctx, today.from, today.to)
  return {
    today: today.shown,
    products: productsByState(deps, ctx),
    orders: { byStatus: orders.byStatus, paidToday: orders.paid, currency: getSettings(deps, ctx).currency },
    lowStock: lowStock(deps, ctx, LOW_STOCK_SHOWN),
    webhooks: { failing: failingEndpoints(deps, ctx, now - FAILING_WINDOW_HOURS * 60 * 60 * 1000) },
    apiKeys: listKeys(deps, ctx),
  }
}
