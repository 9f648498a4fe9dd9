import { and, asc, eq, isNull, sql } from 'drizzle-orm'
import { inJsonIds } from '../../kernel/db/json-ids'
import { perHandle } from '../../kernel/db/per-handle'
import { isoTime } from '../../kernel/clock'
import type { Sql } from '../../kernel/db/database'
import { fromCents } from '../../kernel/money'
import type { Product, ProductSummary, StockMovement, Variant } from './model'
import { imageUrl, toImage, type ProductReading } from './images'
import { productCollections, productRatings, products, type stockMovements, variants } from './tables'

// How stored rows become response bodies: cents to money, times to ISO, levels to available.

type VariantRow = typeof variants.$inferSelect

export const toVariant = (v: VariantRow): Variant => ({
  id: v.id,
  productId: v.productId,
  sku: v.sku,
  price: fromCents(v.priceCents),
  stock: v.stock,
  reserved: v.reserved,
  available: v.stock - v.reserved,
  minStock: v.minStock,
  options: v.options,
  createdAt: isoTime(v.createdAt),
  updatedAt: isoTime(v.updatedAt),
})

/**
 * A stock movement's id: `mov_` and its row's number in the ledger, in 20 digits. Ids are strings with
 * a type prefix everywhere; the ledger keeps the database's own row number, which orders it, and the
 * digits written out in full keep that order in the string.
 */
const movementId = (seq: number) => `mov_${String(seq).padStart(20, '0')}`

export const toMovement = (m: typeof stockMovements.$inferSelect): StockMovement => ({
  id: movementId(m.id),
  variantId: m.variantId,
  kind: m.kind,
  quantity: m.quantity,
  stock: m.stockAfter,
  reserved: m.reservedAfter,
  available: m.stockAfter - m.reservedAfter,
  reason: m.reason,
  orderId: m.orderId,
  createdAt: isoTime(m.createdAt),
})

/** The columns a product body is made of: the product and its review summary. */
export const productColumns = {
  seq: products.seq,
  id: products.id,
  name: products.name,
  description: products.description,
  state: products.state,
  categoryId: products.categoryId,
  brandId: products.brandId,
  priceCents: products.priceCents,
  createdAt: products.createdAt,
  updatedAt: products.updatedAt,
  ratingAverage: productRatings.average,
  ratingCount: productRatings.count,
  r1: productRatings.r1,
  r2: productRatings.r2,
  r3: productRatings.r3,
  r4: productRatings.r4,
  r5: productRatings.r5,
}


const groupBy = <T, K>(items: T[], key: (t: T) => K) => {
  const map = new Map<K, T[]>()
  for (const item of items) {
    const group = map.get(key(item))
    if (group) group.push(item)
    else map.set(key(item), [item])
  }
  return map
}

/** Products with their review summary; every product has one (a trigger makes it). */
export const selectProducts = (db: Sql) =>
  db.select(productColumns).from(products).innerJoin(productRatings, eq(productRatings.productId, products.id))

type ProductRow = Awaited<ReturnType<ReturnType<typeof selectProducts>['all']>>[number]

/**
 * The look-ups of product bodies, built once per database handle: drizzle builds a statement's
 * SQL text on every call, and a page's bodies are made again after every change to the store's catalog.
 */
function buildLookups(db: Sql) {
  return {
    variants: db.select().from(variants).where(and(inJsonIds(variants.productId), isNull(variants.deletedAt))).orderBy(asc(variants.position)).prepare(),
    collections: db.select().from(productCollections).where(inJsonIds(productCollections.productId)).orderBy(asc(productCollections.collectionId)).prepare(),
    /** The rows of a list page, by their seq (JSON array `ids`). */
    bySeq: selectProducts(db).where(inJsonIds(products.seq)).prepare(),
    /** A live product of a store. */
    byId: selectProducts(db)
      .where(and(eq(products.id, sql.placeholder('id')), eq(products.storeId, sql.placeholder('storeId')), isNull(products.deletedAt)))
      .prepare(),
  }
}
export const lookups = perHandle(buildLookups)

/**
 * Builds the bodies for a page of products with three more queries, whatever the page size; image URLs
 * start with `urlBase` (kernel/http/url-base.ts).
 */
export function productViews(reading: ProductReading, rows: ProductRow[], urlBase: string): ProductSummary[]
export function productViews(reading: ProductReading, rows: ProductRow[], urlBase: string, withImages: true): Product[]
export function productViews({ db, productImages }: ProductReading, rows: ProductRow[], urlBase: string, withImages = false): (ProductSummary | Product)[] {
  if (rows.length === 0) return []
  const productIds = rows.map((r) => r.id)
  const ids = { ids: JSON.stringify(productIds) }
  const q = lookups(db)
  const variantsOf = groupBy(q.variants.all(ids), (v) => v.productId)
  const imagesOf = groupBy(productImages(db, productIds), (i) => i.productId)
  const collectionsOf = groupBy(q.collections.all(ids), (c) => c.productId)
  return rows.map((r) => {
    const vs = (variantsOf.get(r.id) ?? []).map(toVariant)
    const images = imagesOf.get(r.id) ?? []
    const cover = images.find((i) => i.isPrimary) ?? images[0]
    const summary: ProductSummary = {
      id: r.id,
      type: 'SIMPLE',
      name: r.name,
      sku: vs[0]?.sku ?? '',
      description: r.description,
      price: fromCents(r.priceCents),
      stock: vs.reduce((sum, v) => sum + v.available, 0),
      state: r.state,
      categoryId: r.categoryId,
      brandId: r.brandId,
      collectionIds: (collectionsOf.get(r.id) ?? []).map((c) => c.collectionId),
      variants: vs,
      image: cover ? imageUrl(urlBase, cover.url) : null,
      rating: {
        average: r.ratingAverage,
        count: r.ratingCount,
        distribution: { 5: r.r5, 4: r.r4, 3: r.r3, 2: r.r2, 1: r.r1 },
      },
      createdAt: isoTime(r.createdAt),
      updatedAt: isoTime(r.updatedAt),
    }
    if (!withImages) return summary
    return {
      ...summary,
      images: images.map((i) => toImage(urlBase, i)),
    }
  })
}
