import { sql } from 'drizzle-orm'
import { check, index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { stores } from '../../kernel/auth/tables'
import { foldedName } from '../../kernel/db/folded'
import { brands, categories, collections } from '../taxonomy/tables'

// The catalog. Three things are kept by the database itself, in triggers written by
// hand in migrations/*_catalog_search*.sql, so that no code path (orders, a store reset) can forget them:
// the search index `product_search` (FTS5), `products.price_cents` (the lowest live variant price) and
// `product_counts` (live products per store and state, so an unfiltered list need not count 100,000 rows).

export const PRODUCT_STATES = ['DRAFT', 'PUBLISHED', 'ARCHIVED'] as const

export const STOCK_MOVEMENT_KINDS = ['RECEIVE', 'ADJUST', 'RESERVE', 'RELEASE', 'SALE', 'RETURN'] as const
export type StockMovementKind = (typeof STOCK_MOVEMENT_KINDS)[number]

const live = (t: { deletedAt: unknown }) => sql`${t.deletedAt} is null`

type Levels = { stock: unknown; reserved: unknown; minStock: unknown }
/** Units available minus the minimum, as the index of low variants and the query that reads it both write it. */
export const lowStockKey = (t: Levels) => sql`(${t.stock} - ${t.reserved} - ${t.minStock})`
/** A variant at or below its minimum: the condition of that index, which the query must state as it is. */
export const isLow = (t: Levels) => sql`${lowStockKey(t)} <= 0`

export const products = sqliteTable(
  'products',
  {
    /** The row's stable rowid: the search index (FTS5) is keyed by it. Never shown. */
    seq: integer().primaryKey(),
    id: text().notNull().unique(),
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    type: text().notNull().default('SIMPLE'),
    name: text().notNull(),
    description: text().notNull().default(''),
    state: text({ enum: PRODUCT_STATES }).notNull().default('DRAFT'),
    categoryId: text('category_id').references(() => categories.id, { onDelete: 'set null' }),
    brandId: text('brand_id').references(() => brands.id, { onDelete: 'set null' }),
    /** The lowest price of the live variants; kept by a trigger on variants. */
    priceCents: integer('price_cents').notNull().default(0),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    /** Soft delete: gone from reads and carts; past orders keep their own snapshot. */
    deletedAt: integer('deleted_at'),
  },
  (t) => [
    // Every index a list walks or counts in holds every filter column (state, price, category, brand),
    // so a filtered list walks its sort order, or counts its matches, without reading a product: a
    // shop front's list always filters by state, and a product read for each entry made a deep page,
    // or the count of a price range, of a 100,000-product store cost hundreds of ms.
    index('products_store_created')
      .on(t.storeId, t.createdAt, t.id, t.state, t.priceCents, t.categoryId, t.brandId)
      .where(live(t)),
    index('products_store_price').on(t.storeId, t.priceCents, t.id, t.state, t.categoryId, t.brandId).where(live(t)),
    index('products_store_name').on(t.storeId, foldedName(t.name), t.id, t.state, t.priceCents, t.categoryId, t.brandId).where(live(t)),
    index('products_store_category').on(t.storeId, t.categoryId, t.state, t.priceCents, t.brandId).where(live(t)),
    index('products_store_brand').on(t.storeId, t.brandId, t.state, t.priceCents, t.categoryId).where(live(t)),
  ],
)

export const variants = sqliteTable(
  'variants',
  {
    id: text().primaryKey(),
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    productId: text('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    sku: text().notNull(),
    priceCents: integer('price_cents').notNull(),
    stock: integer().notNull().default(0),
    /** Units held by PENDING orders; available = stock - reserved. */
    reserved: integer().notNull().default(0),
    minStock: integer('min_stock').notNull().default(5),
    options: text({ mode: 'json' }).$type<Record<string, string>>().notNull().default({}),
    position: integer().notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    deletedAt: integer('deleted_at'),
  },
  (t) => [
    // The stock invariant is the database's, not only the code's.
    check('variants_stock_levels', sql`${t.reserved} >= 0 and ${t.reserved} <= ${t.stock}`),
    check('variants_price', sql`${t.priceCents} >= 0`),
    check('variants_min_stock', sql`${t.minStock} >= 0`),
    uniqueIndex('variants_store_sku').on(t.storeId, sql`lower(${t.sku})`).where(live(t)),
    index('variants_product').on(t.productId, t.position),
    // The store overview's low stock: units available minus the minimum, at or below 0, read as a range.
    // Only the low ones are in it: a stock move of a variant with units to spare writes no page of it.
    index('variants_store_low').on(t.storeId, lowStockKey(t)).where(sql`${live(t)} and ${isLow(t)}`),
  ],
)

/** Every change of a variant's stock or reservation, with the levels it left behind. */
export const stockMovements = sqliteTable(
  'stock_movements',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    storeId: text('store_id').notNull(),
    variantId: text('variant_id')
      .notNull()
      .references(() => variants.id, { onDelete: 'cascade' }),
    kind: text({ enum: STOCK_MOVEMENT_KINDS }).notNull(),
    /** Units moved: signed for ADJUST, positive for every other kind. */
    quantity: integer().notNull(),
    stockAfter: integer('stock_after').notNull(),
    reservedAfter: integer('reserved_after').notNull(),
    reason: text(),
    orderId: text('order_id'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    check('stock_movements_kind', sql`${t.kind} in ('RECEIVE', 'ADJUST', 'RESERVE', 'RELEASE', 'SALE', 'RETURN')`),
    index('stock_movements_variant').on(t.variantId, t.id),
  ],
)

export const productCollections = sqliteTable(
  'product_collections',
  {
    productId: text('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    collectionId: text('collection_id')
      .notNull()
      .references(() => collections.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.productId, t.collectionId] }), index('product_collections_collection').on(t.collectionId, t.productId)],
)

/**
 * The review summary of each product (count, sum, per-star counts and the average rounded to 2
 * decimals), written by ratings.ts, which the reviews feature calls in the transaction of each review change.
 */
export const productRatings = sqliteTable(
  'product_ratings',
  {
    productId: text('product_id')
      .primaryKey()
      .references(() => products.id, { onDelete: 'cascade' }),
    storeId: text('store_id').notNull(),
    count: integer().notNull().default(0),
    sum: integer().notNull().default(0),
    average: real().notNull().default(0),
    r1: integer().notNull().default(0),
    r2: integer().notNull().default(0),
    r3: integer().notNull().default(0),
    r4: integer().notNull().default(0),
    r5: integer().notNull().default(0),
  },
  (t) => [index('product_ratings_store_average').on(t.storeId, t.average, t.count, t.productId)],
)

/** Live products per store and state, kept by triggers: the total of an unfiltered list. */
export const productCounts = sqliteTable(
  'product_counts',
  {
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    state: text({ enum: PRODUCT_STATES }).notNull(),
    n: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.storeId, t.state] })],
)

/**
 * A number per store that triggers raise on every change a product read can show (products,
 * variants, collections, ratings, images), but a change of stock: cached reads of the store are valid
 * while it stays.
 */
export const catalogVersions = sqliteTable('catalog_versions', {
  storeId: text('store_id')
    .primaryKey()
    .references(() => stores.id, { onDelete: 'cascade' }),
  version: integer().notNull(),
  /** Raised only by changes that can alter which products a list shows, or their order (0008). */
  matches: integer().notNull().default(0),
  /** Raised by every change of a variant's stock, reservation or update time (0012). */
  stock: integer().notNull().default(0),
  /** Raised by every change a product's review page shows: reviews, their photos, names, ratings (0013). */
  reviews: integer().notNull().default(0),
})

/** How many of a store's latest stock changes `stock_changes` holds: the trigger writes version % STOCK_CHANGES_KEPT. */
export const STOCK_CHANGES_KEPT = 4096

/**
 * The store's latest stock changes, as a ring: the change that raised the store's `stock` version to
 * `version` is in slot `version % STOCK_CHANGES_KEPT`, with the product it changed, written by the
 * trigger that raises it (0018). Consecutive changes write consecutive slots, so an order writes a
 * page the orders before it wrote, not one of a per-product table spread over the whole catalog; the
 * ring needs no pruning. A read that is further behind than the ring holds drops all of the store's
 * bodies (read-cache.ts).
 */
export const stockChanges = sqliteTable(
  'stock_changes',
  {
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    slot: integer().notNull(),
    version: integer().notNull(),
    productId: text('product_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.storeId, t.slot] })],
)
