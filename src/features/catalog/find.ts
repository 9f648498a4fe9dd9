import { and, asc, count, eq, gte, inArray, isNull, sql } from 'drizzle-orm'
import type { StoreCtx } from '../../kernel/auth/kinds'
import { isUniqueViolation, type Sql } from '../../kernel/db/database'
import { AppError, notFound } from '../../kernel/errors'
import { products, variants } from './tables'

// Loading a live product or variant of the caller's store. Anything else (unknown, deleted, another
// store's) is the same 404, which also says when the id is of another kind (a product id where a
// variant id belongs).

export const PRODUCTS_HINT = 'GET /v1/products lists them'
export const VARIANTS_HINT = "a product's variants are listed in GET /v1/products/:id"

export function findProduct(db: Sql, ctx: StoreCtx, id: string) {
  const row = db
    .select({ id: products.id })
    .from(products)
    .where(and(eq(products.id, id), eq(products.storeId, ctx.storeId), isNull(products.deletedAt)))
    .get()
  if (!row) throw notFound('product', id, PRODUCTS_HINT)
  return row
}

/** Which of these products are live (not deleted), for features that keep rows of products: their images. */
export function liveProducts(db: Sql, productIds: string[]): Set<string> {
  if (productIds.length === 0) return new Set()
  const rows = db.select({ id: products.id }).from(products).where(and(inArray(products.id, productIds), isNull(products.deletedAt))).all()
  return new Set(rows.map((r) => r.id))
}

export const countLiveProducts = (db: Sql, storeId: string) =>
  db.select({ n: count() }).from(products).where(and(eq(products.storeId, storeId), isNull(products.deletedAt))).get()!.n

/**
 * The live variants of the store's PUBLISHED products with at least `units` available, in the order
 * the products were made: what a buyer can buy (the demo seed picks from them).
 */
export const variantsForSale = (db: Sql, storeId: string, units: number) =>
  db
    .select({ id: variants.id, productId: variants.productId })
    .from(variants)
    .innerJoin(products, eq(products.id, variants.productId))
    .where(and(eq(products.storeId, storeId), eq(products.state, 'PUBLISHED'), isNull(products.deletedAt), isNull(variants.deletedAt), gte(sql`${variants.stock} - ${variants.reserved}`, units)))
    .orderBy(asc(products.seq), asc(variants.position))
    .all()

export function findVariant(db: Sql, ctx: StoreCtx, id: string) {
  const row = db
    .select()
    .from(variants)
    .where(and(eq(variants.id, id), eq(variants.storeId, ctx.storeId), isNull(variants.deletedAt)))
    .get()
  if (!row) throw notFound('variant', id, VARIANTS_HINT)
  return row
}

/** SKUs are unique per store (ignoring case) among live variants; the unique index decides. */
export function savingSku<T>(sku: string | undefined, write: () => T): T {
  try {
    return write()
  } catch (e) {
    if (isUniqueViolation(e)) {
      throw new AppError('CONFLICT', `The sku '${sku}' is already used by a variant of this store (SKUs are compared ignoring case). Choose another sku.`)
    }
    throw e
  }
}
