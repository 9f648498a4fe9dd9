import { and, asc, count, eq, isNull, sql } from 'drizzle-orm'
import type { StoreCtx } from '../../kernel/auth/kinds'
import type { Deps } from '../../kernel/deps'
import { inJsonIds } from '../../kernel/db/json-ids'
import { LOW_STOCK_COUNTED } from './model'
import { isLow, lowStockKey, productCounts, products, PRODUCT_STATES, variants } from './tables'

// What other features read of the catalog in a glance: the store's overview, the moderation list.

/** Live products per state, from the counts the triggers keep: every state is listed, 0 included. */
export function productsByState(deps: Deps, ctx: StoreCtx): Record<(typeof PRODUCT_STATES)[number], number> {
  const rows = deps.db.select({ state: productCounts.state, n: productCounts.n }).from(productCounts).where(eq(productCounts.storeId, ctx.storeId)).all()
  const byState = Object.fromEntries(PRODUCT_STATES.map((s) => [s, 0])) as Record<(typeof PRODUCT_STATES)[number], number>
  for (const r of rows) byState[r.state] = r.n
  return byState
}

const available = sql<number>`${variants.stock} - ${variants.reserved}`.mapWith(Number)
/**
 * Written as the index variants_store_low is, key and condition, so that SQLite reads the low ones as
 * a range of it: the index holds only those, and a query that does not state its condition cannot use it.
 */
const short = lowStockKey(variants)
const belowMinimum = isLow(variants)

/**
 * The variants whose available units (stock minus reserved) are at or below their minStock: the
 * `limit` furthest below it, and how many there are (at most LOW_STOCK_COUNTED + 1, so a store of a million empty
 * variants costs a bounded count).
 */
export function lowStock(deps: Deps, ctx: StoreCtx, limit: number) {
  const low = and(eq(variants.storeId, ctx.storeId), isNull(variants.deletedAt), belowMinimum, isNull(products.deletedAt))
  const data = deps.db
    .select({ variantId: variants.id, productId: products.id, productName: products.name, sku: variants.sku, available, minStock: variants.minStock })
    .from(variants)
    .innerJoin(products, eq(products.id, variants.productId))
    .where(low)
    .orderBy(asc(short), sql`"variants"."rowid"`)
    .limit(limit)
    .all()
  const counted = deps.db.select({ one: sql`1` }).from(variants).innerJoin(products, eq(products.id, variants.productId)).where(low).limit(LOW_STOCK_COUNTED + 1).as('counted')
  const [total] = deps.db.select({ n: count() }).from(counted).all()
  return { total: total?.n ?? 0, data }
}

/** The names of the store's products with these ids (deleted ones too: a review outlives its product's listing). */
export function productNames(deps: Deps, ctx: StoreCtx, ids: string[]): Map<string, string> {
  const rows = deps.db
    .select({ id: products.id, name: products.name })
    .from(products)
    .where(and(eq(products.storeId, ctx.storeId), inJsonIds(products.id)))
    .prepare()
    .all({ ids: JSON.stringify([...new Set(ids)]) })
  return new Map(rows.map((r) => [r.id, r.name]))
}
