import { and, asc, count, desc, eq, gte, isNull, lte, sql, sum, type SQL, type SQLWrapper } from 'drizzle-orm'
import { isShopFront, type StoreCtx } from '../../kernel/auth/kinds'
import { readTransaction, type Sql } from '../../kernel/db/database'
import { foldedName } from '../../kernel/db/folded'
import { AppError } from '../../kernel/errors'
import { toCents } from '../../kernel/money'
import { pageWindow, toPage } from '../../kernel/pagination'
import type { ProductListQuery, ProductSort } from './model'
import { countMatches, matchesSearch, searchExpression, searchWords } from './search'
import { productCollections, productCounts, productRatings, products } from './tables'
import type { CatalogDeps } from './images'
import { lookups, productViews } from './views'
import { visibilityOf, type Visibility } from './find'

// GET /products. Every order ends in the id, so pages never overlap or skip.
//
// A filtered page can be found two ways: walk the index of the sort order and test each row's filter
// columns inside the index (fast when many rows match: 20 turn up soon), or start from the rows that
// match (the search index, a collection, the price index...) and sort them (fast when few match). The
// total, counted first, picks the way. SQLite's `+column` keeps the planner from using an index for that
// term: walking, for the filters (but a price range on a price order, which is where the walk starts);
// starting from the matches, for the order, and for the store when the matches are a set of ids (a
// search, a collection), which would otherwise walk the whole store's index to test each entry. A search
// names the store (and the state, when asked) in the index itself, so its matches are the store's own.
// Every products index a walk or a count goes through holds the filter columns (tables.ts), so neither
// reads a product: only the page's rows are read. The ratings' order is another table's
// (product_ratings), whose walk looks up each product it passes.
type Lead = (c: SQLWrapper) => SQL
/** The name as the list sorts it (and products_store_name indexes it): built once, not on every page found. */
const SORTED_NAME = foldedName(products.name)
const ORDER: Record<ProductSort, (lead: Lead) => SQL[]> = {
  '-createdAt': (lead) => [desc(lead(products.createdAt)), desc(products.id)],
  createdAt: (lead) => [asc(lead(products.createdAt)), asc(products.id)],
  name: (lead) => [asc(lead(SORTED_NAME)), asc(products.id)],
  price: (lead) => [asc(lead(products.priceCents)), asc(products.id)],
  '-price': (lead) => [desc(lead(products.priceCents)), desc(products.id)],
  '-rating': (lead) => [desc(lead(productRatings.average)), desc(productRatings.count), desc(productRatings.productId)],
}

/** Up to this many matches, sorting the matches beats walking the sort order. */
const SORT_MATCHES_UP_TO = 2000

type Way = 'walk the order' | 'start from the matches'

const noIndex = (c: SQLWrapper) => sql`+${c}`
const asIs = (c: SQLWrapper) => sql`${c}`

function conditions(ctx: StoreCtx, query: ProductListQuery, way: Way) {
  const walking = way === 'walk the order'
  const byPrice = query.sort === 'price' || query.sort === '-price'
  const column = walking ? noIndex : asIs
  const price = walking && !byPrice ? noIndex : asIs
  const words = query.search ? searchWords(query.search) : null
  const expression = words ? searchExpression(ctx.storeId, query.state, words) : null
  const filters: SQL[] = []
  if (query.categoryId !== undefined) filters.push(eq(column(products.categoryId), query.categoryId))
  if (query.brandId !== undefined) filters.push(eq(column(products.brandId), query.brandId))
  if (query.collectionId !== undefined) {
    filters.push(sql`${column(products.id)} in (select ${productCollections.productId} from ${productCollections} where ${productCollections.collectionId} = ${query.collectionId})`)
  }
  if (query.minPrice !== undefined) filters.push(gte(price(products.priceCents), toCents(query.minPrice)))
  if (query.maxPrice !== undefined) filters.push(lte(price(products.priceCents), toCents(query.maxPrice)))
  if (expression) filters.push(matchesSearch(expression, column(products.seq)))
  // A search with no word in it (only emoji or punctuation: no letter or digit the index keeps) finds nothing, as any engine's would.
  else if (query.search) filters.push(sql`0`)
  const fromIds = !walking && (expression !== null || query.collectionId !== undefined)
  const scope = [eq((fromIds ? noIndex : asIs)(products.storeId), ctx.storeId), isNull(products.deletedAt)]
  if (query.state) scope.push(eq(products.state, query.state))
  return { filters, where: and(...scope, ...filters), expression, order: ORDER[query.sort](walking ? asIs : noIndex) }
}

/**
 * The list the caller may ask for. A publishable key lists PUBLISHED products only (find.ts): without
 * `state` it gets those, with `state=PUBLISHED` the same, and asking for another state is a 403 that
 * says where drafts are read. What it returns decides the answer, so a kept list is keyed by it.
 */
export function shownQuery(ctx: StoreCtx, query: ProductListQuery): ProductListQuery {
  if (!isShopFront(ctx.actor) || query.state === 'PUBLISHED') return query
  if (query.state === undefined) return { ...query, state: 'PUBLISHED' }
  throw new AppError(
    'SECRET_KEY_REQUIRED',
    `The shop front lists PUBLISHED products only: state=${query.state} is not for a publishable key (pk_...), which any visitor of the page can copy. ` +
      "Drafts and archived products are read with the secret key (sk_...) from your app's server; with this key leave `state` out or send state=PUBLISHED.",
  )
}

/**
 * The list `query` asks for as the caller may see it (shownQuery), and the key its page is kept under,
 * made once per query object and visibility: a query string the kernel remembered (kernel/http/remembered.ts)
 * comes back as the same frozen object, so a list asked again costs no JSON of its query.
 */
export function listKey(ctx: StoreCtx, query: ProductListQuery): ListKey {
  const visibility = visibilityOf(ctx)
  let made = listKeys.get(query)
  const known = made?.[visibility]
  if (known) return known
  const shown = shownQuery(ctx, query)
  // The total depends on the filters alone: every page and every order of them shares it.
  const filters = JSON.stringify({ ...shown, page: undefined, pageSize: undefined, sort: undefined })
  const key = { shown, key: `list ${visibility} ${JSON.stringify(shown)}`, totalKey: `total ${visibility} ${filters}` }
  if (!made) listKeys.set(query, (made = {}))
  made[visibility] = key
  return key
}

/** A list as the caller may see it; the key its page is kept under, and the key of its total (any page, any order). */
export interface ListKey {
  shown: ProductListQuery
  key: string
  totalKey: string
}

const listKeys = new WeakMap<ProductListQuery, Partial<Record<Visibility, ListKey>>>()

/**
 * Finds a page's rows (their seq) and the total; the caller may keep the answer, and the total apart
 * from it, for the other pages (read-cache.ts `found`). `find` is given how to get the total: counted
 * now, or kept from another page of the same filters.
 */
export type PageFinder = (find: FindPage) => FoundPage
export type FindPage = (totalOf: TotalOf) => FoundPage
export type TotalOf = (count: () => number) => number
/** The page found now and its total counted now: a list read outside the cache. */
export const findNow: PageFinder = (find) => find((count) => count())
export interface FoundPage {
  total: number
  seqs: number[]
}

export function listProducts(deps: CatalogDeps, ctx: StoreCtx, asked: ProductListQuery, urlBase: string, sortMatchesUpTo = SORT_MATCHES_UP_TO, remember: PageFinder = findNow) {
  const query = shownQuery(ctx, asked)
  return readTransaction(deps.db, (db) => {
    const { total, seqs } = remember((totalOf) => findPage(db, ctx, query, sortMatchesUpTo, totalOf))
    const position = new Map(seqs.map((seq, i) => [seq, i]))
    const rows = seqs.length === 0 ? [] : lookups(db).bySeq.all({ ids: JSON.stringify(seqs) })
    rows.sort((a, b) => position.get(a.seq)! - position.get(b.seq)!)
    return toPage(productViews({ db, productImages: deps.productImages }, rows, urlBase), total, query)
  })
}

/** The expensive half of a list: which products, in which order, how many. Stock and images play no part. */
function findPage(db: Sql, ctx: StoreCtx, query: ProductListQuery, sortMatchesUpTo: number, totalOf: TotalOf): FoundPage {
  const matching = conditions(ctx, query, 'start from the matches')
  const filtered = matching.filters.length > 0
  const total = totalOf(() => countAll(db, ctx, query, matching))
  const way: Way = filtered && total <= sortMatchesUpTo ? 'start from the matches' : 'walk the order'
  const { limit, offset } = pageWindow(query)
  // The page's rows are found by their seq alone, which the indexes cover, so a deep page skips its
  // offset inside an index; only the rows shown are then read in full.
  // Walking the rating order walks the ratings index, which needs the store named on its side; starting
  // from the matches, the planner must not walk it (the whole store, with no order to stop early).
  const byRating = query.sort === '-rating'
  const pageQuery = db.select({ seq: products.seq }).from(products)
  const { where, order } = conditions(ctx, query, way)
  const ratingsOfStore = eq((way === 'walk the order' ? asIs : noIndex)(productRatings.storeId), ctx.storeId)
  const seqs = (byRating ? pageQuery.innerJoin(productRatings, eq(productRatings.productId, products.id)) : pageQuery)
    .where(and(where, byRating ? ratingsOfStore : undefined))
    .orderBy(...order)
    .limit(limit)
    .offset(offset)
    .all()
    .map((r) => r.seq)
  return { total, seqs }
}

function countAll(db: Sql, ctx: StoreCtx, query: ProductListQuery, matching: ReturnType<typeof conditions>) {
  if (matching.filters.length === 0) return storeTotal(db, ctx, query.state)
  // The index holds a row for each live product, under its store and state: a search alone is counted there.
  if (matching.expression && matching.filters.length === 1) return countMatches(db, matching.expression)
  return countWhere(db, matching.where)
}

/** Without filters the total comes from product_counts (kept by triggers) instead of a count of every row. */
function storeTotal(db: Sql, ctx: StoreCtx, state: ProductListQuery['state']) {
  const where = and(eq(productCounts.storeId, ctx.storeId), state ? eq(productCounts.state, state) : undefined)
  const [row] = db.select({ n: sum(productCounts.n).mapWith(Number) }).from(productCounts).where(where).all()
  return row?.n ?? 0
}

function countWhere(db: Sql, where: SQL | undefined) {
  const [row] = db.select({ n: count() }).from(products).where(where).all()
  return row?.n ?? 0
}
