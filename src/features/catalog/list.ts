import { and, asc, count, desc, eq, gte, isNull, lte, sql, sum, type SQL } from 'drizzle-orm'
import type { StoreCtx } from '../../kernel/auth/kinds'
import type { Deps } from '../../kernel/deps'
import { toCents } from '../../kernel/money'
import { pageWindow, toPage } from '../../kernel/pagination'
import type { ProductListQuery, ProductSort } from './model'
import { matchesSearch, searchExpression } from './search'
import { productCollections, productCounts, productRatings, products } from './tables'
import { productViews, selectProducts } from './views'

/**
 * GET /products (decisions §8). Every order ends in the id, so pages never overlap or skip. The
 * indexes on products carry the filter columns, so a filtered page walks one index in order.
 */
const ORDER: Record<ProductSort, SQL[]> = {
  '-createdAt': [desc(products.createdAt), desc(products.id)],
  createdAt: [asc(products.createdAt), asc(products.id)],
  name: [asc(sql`lower(${products.name})`), asc(products.id)],
  price: [asc(products.priceCents), asc(products.id)],
  '-price': [desc(products.priceCents), desc(products.id)],
  '-rating': [desc(productRatings.average), desc(productRatings.count), desc(productRatings.productId)],
}

export function listProducts(deps: Deps, ctx: StoreCtx, query: ProductListQuery) {
  const { db } = deps
  const filters: SQL[] = []
  if (query.categoryId !== undefined) filters.push(eq(products.categoryId, query.categoryId))
  if (query.brandId !== undefined) filters.push(eq(products.brandId, query.brandId))
  if (query.collectionId !== undefined) {
    filters.push(sql`${products.id} in (select ${productCollections.productId} from ${productCollections} where ${productCollections.collectionId} = ${query.collectionId})`)
  }
  if (query.minPrice !== undefined) filters.push(gte(products.priceCents, toCents(query.minPrice)))
  if (query.maxPrice !== undefined) filters.push(lte(products.priceCents, toCents(query.maxPrice)))
  const expression = query.search ? searchExpression(query.search) : null
  if (expression) filters.push(matchesSearch(expression))

  const scope = [eq(products.storeId, ctx.storeId), isNull(products.deletedAt)]
  if (query.state) scope.push(eq(products.state, query.state))
  // Sorting by rating walks the ratings index, which needs the store named on its side too.
  if (query.sort === '-rating') scope.push(eq(productRatings.storeId, ctx.storeId))

  const { limit, offset } = pageWindow(query)
  const rows = selectProducts(db)
    .where(and(...scope, ...filters))
    .orderBy(...ORDER[query.sort])
    .limit(limit)
    .offset(offset)
    .all()
  return toPage(productViews(db, rows), filters.length === 0 ? storeTotal(deps, ctx, query.state) : filteredTotal(deps, ctx, query.state, filters), query)
}

/** Without filters the total comes from product_counts (kept by triggers) instead of a count of every row. */
function storeTotal(deps: Deps, ctx: StoreCtx, state: ProductListQuery['state']) {
  const where = and(eq(productCounts.storeId, ctx.storeId), state ? eq(productCounts.state, state) : undefined)
  const [row] = deps.db.select({ n: sum(productCounts.n).mapWith(Number) }).from(productCounts).where(where).all()
  return row?.n ?? 0
}

function filteredTotal(deps: Deps, ctx: StoreCtx, state: ProductListQuery['state'], filters: SQL[]) {
  const where = and(eq(products.storeId, ctx.storeId), isNull(products.deletedAt), state ? eq(products.state, state) : undefined, ...filters)
  const [row] = deps.db.select({ n: count() }).from(products).where(where).all()
  return row?.n ?? 0
}
