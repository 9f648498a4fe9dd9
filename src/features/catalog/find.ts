import { and, asc, count, eq, gte, inArray, isNull, sql, type SQL } from 'drizzle-orm'
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core'
import { isShopFront, type StoreCtx } from '../../kernel/auth/kinds'
import { isUniqueViolation, type Sql } from '../../kernel/db/database'
import { AppError, notFound } from '../../kernel/errors'
import { products, variants } from './tables'

// Loading a live product or variant of the caller's store. Anything else (unknown, deleted, another
// store's) is the same 404, which also says when the id is of another kind (a product id where a
// variant id belongs).
//
// A publishable key sits in a shop page, where anyone can copy it: it sees PUBLISHED products only. A
// DRAFT or ARCHIVED product, and its variants, reviews and images, read to it as an unknown id, with
// the same 404, so that it never learns one exists. The secret key and student tokens see every state.

const PRODUCTS_HINT = 'GET /v1/products lists them'
const VARIANTS_HINT = "a product's variants are listed in GET /v1/products/:id"
/** What a 404 adds for a publishable key: true of every unknown id, so it tells nothing of this one. */
const SHOP_FRONT_NOTE = 'with a publishable key only PUBLISHED products are found (publish a draft with the secret key: PUT /v1/products/:id {"state": "PUBLISHED"})'

/** Where to find a product's id, as the caller sees the catalog. */
export const productsHint = (ctx: StoreCtx) => (isShopFront(ctx.actor) ? `${PRODUCTS_HINT}; ${SHOP_FRONT_NOTE}` : PRODUCTS_HINT)
/** Where to find a variant's id, as the caller sees the catalog. */
export const variantsHint = (ctx: StoreCtx) => (isShopFront(ctx.actor) ? `${VARIANTS_HINT}; ${SHOP_FRONT_NOTE}` : VARIANTS_HINT)

/**
 * What of the catalog the caller sees: `published` with a publishable key, `all` otherwise. Every
 * kept product read is keyed by it, so that an answer made for the secret key is never served to a
 * publishable one.
 */
export type Visibility = 'published' | 'all'
export const visibilityOf = (ctx: StoreCtx): Visibility => (isShopFront(ctx.actor) ? 'published' : 'all')

/** Whether the caller may see a product in `state`. */
export const seesState = (ctx: StoreCtx, state: string) => state === 'PUBLISHED' || !isShopFront(ctx.actor)

/** A live product of the store that the caller may see (with a publishable key, a PUBLISHED one), or undefined. */
function shownProduct(db: Sql, ctx: StoreCtx, id: string) {
  const row = db
    .select({ id: products.id, state: products.state })
    .from(products)
    .where(and(eq(products.id, id), eq(products.storeId, ctx.storeId), isNull(products.deletedAt)))
    .get()
  return row && seesState(ctx, row.state) ? row : undefined
}

/** A live product of the store that the caller may see (with a publishable key, a PUBLISHED one). */
export function findProduct(db: Sql, ctx: StoreCtx, id: string) {
  const row = shownProduct(db, ctx, id)
  if (!row) throw notFound('product', id, productsHint(ctx))
  return row
}

/**
 * For what a feature keeps of products (a review): whether a publishable key may see the product,
 * and, for a list, the products it sees. Every other caller sees what the store keeps: true, and no
 * condition.
 */
export const shopFrontSees = (db: Sql, ctx: StoreCtx, productId: string) => !isShopFront(ctx.actor) || shownProduct(db, ctx, productId) !== undefined
export const shopFrontProducts = (db: Sql, ctx: StoreCtx, productId: SQLiteColumn): SQL | undefined =>
  isShopFront(ctx.actor)
    ? inArray(
        productId,
        db
          .select({ id: products.id })
          .from(products)
          .where(and(eq(products.storeId, ctx.storeId), eq(products.state, 'PUBLISHED'), isNull(products.deletedAt))),
      )
    : undefined

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

/**
 * A live variant of the store whatever its product's state: what stock moves and the store's own
 * routes load (an order releases the stock of a product archived since). A read for the caller takes
 * `findShownVariant`.
 */
export function findVariant(db: Sql, ctx: StoreCtx, id: string) {
  const row = db
    .select()
    .from(variants)
    .where(and(eq(variants.id, id), eq(variants.storeId, ctx.storeId), isNull(variants.deletedAt)))
    .get()
  if (!row) throw notFound('variant', id, variantsHint(ctx))
  return row
}

/** A live variant the caller may see: with a publishable key, a variant of a PUBLISHED product only. */
export function findShownVariant(db: Sql, ctx: StoreCtx, id: string) {
  const row = findVariant(db, ctx, id)
  if (isShopFront(ctx.actor)) {
    const product = db.select({ state: products.state }).from(products).where(eq(products.id, row.productId)).get()
    if (!product || !seesState(ctx, product.state)) throw notFound('variant', id, variantsHint(ctx))
  }
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
