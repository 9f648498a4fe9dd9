import { and, eq, isNull, sql } from 'drizzle-orm'
import { perHandle } from '../../kernel/db/per-handle'
import type { Sql, Tx } from '../../kernel/db/database'
import type { StoreCtx } from '../../kernel/auth/kinds'
import { seesState } from './find'
import { productRatings, products } from './tables'

/**
 * A product's review summary, which product reads show and the list sorts by. The reviews feature
 * hands over the stars of the product's visible reviews in the transaction of every review change,
 * so product_ratings always holds what they sum to.
 */
export function ratingSummary(stars: number[]) {
  const by = (s: number) => stars.filter((r) => r === s).length
  return ratingOfCounts({ 5: by(5), 4: by(4), 3: by(3), 2: by(2), 1: by(1) })
}

/** The same summary from how many reviews gave each number of stars. */
export function ratingOfCounts(distribution: Record<1 | 2 | 3 | 4 | 5, number>) {
  const d = distribution
  const n = d[1] + d[2] + d[3] + d[4] + d[5]
  const total = d[1] + 2 * d[2] + 3 * d[3] + 4 * d[4] + 5 * d[5]
  return { average: n === 0 ? 0 : Math.round((total / n) * 100) / 100, count: n, distribution: { 5: d[5], 4: d[4], 3: d[3], 2: d[2], 1: d[1] } }
}

/** Rewrites the product's summary from the stars of its visible reviews. */
export function setProductRating(tx: Tx, storeId: string, productId: string, stars: number[]) {
  const s = ratingSummary(stars)
  const values = {
    count: s.count,
    sum: stars.reduce((a, b) => a + b, 0),
    average: s.average,
    r1: s.distribution[1],
    r2: s.distribution[2],
    r3: s.distribution[3],
    r4: s.distribution[4],
    r5: s.distribution[5],
  }
  tx.insert(productRatings).values({ productId, storeId, ...values }).onConflictDoUpdate({ target: productRatings.productId, set: values }).run()
}

const byLiveProduct = perHandle((db: Sql) =>
  db
    .select({ state: products.state, average: productRatings.average, count: productRatings.count, r1: productRatings.r1, r2: productRatings.r2, r3: productRatings.r3, r4: productRatings.r4, r5: productRatings.r5 })
    .from(productRatings)
    .innerJoin(products, eq(products.id, productRatings.productId))
    .where(and(eq(products.id, sql.placeholder('productId')), eq(products.storeId, sql.placeholder('storeId')), isNull(products.deletedAt)))
    .prepare(),
)

/**
 * The summary of a live product of the store that the caller may see (find.ts: with a publishable
 * key, a PUBLISHED one) as last written, or null when there is no such product: one statement for the
 * review page, which needs both.
 */
export function shownProductRating(db: Sql, ctx: StoreCtx, productId: string) {
  const r = byLiveProduct(db).get({ storeId: ctx.storeId, productId })
  if (!r || !seesState(ctx, r.state)) return null
  return { average: r.average, count: r.count, distribution: { 5: r.r5, 4: r.r4, 3: r.r3, 2: r.r2, 1: r.r1 } }
}
