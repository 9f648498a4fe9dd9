import { and, eq, isNull } from 'drizzle-orm'
import type { StoreCtx } from '../../kernel/auth/kinds'
import { writeTransaction, type Sql } from '../../kernel/db/database'
import { AppError, notFound } from '../../kernel/errors'
import { requireTerms } from '../taxonomy'
import type { Deps } from '../../kernel/deps'
import type { CatalogDeps, ProductReading } from './images'
import { findProduct, productsHint, savingSku, seesState } from './find'
import { DEFAULT_MIN_STOCK, type AddVariantBody, type CreateProductBody, type Product, type UpdateProductBody } from './model'
import { insertVariant, optionsTaken, sameOptions } from './variants'
import { productCollections, products, variants } from './tables'
import { lookups, productViews } from './views'

// Products: base data and state. Prices and stock live on the variants (variants.ts, stock.ts). An
// answer's image URLs start with `urlBase` (kernel/http/url-base.ts).

/** A product the caller may see (find.ts): with a publishable key, a DRAFT or ARCHIVED one is an unknown id. */
export function getProduct(reading: ProductReading, ctx: StoreCtx, id: string, urlBase: string): Product {
  const row = lookups(reading.db).byId.get({ id, storeId: ctx.storeId })
  if (!row || !seesState(ctx, row.state)) throw notFound('product', id, productsHint(ctx))
  return productViews(reading, [row], urlBase, true)[0]!
}

function checkTerms(db: Sql, ctx: StoreCtx, input: { categoryId?: string | null; brandId?: string | null; collectionIds?: string[] }) {
  if (input.categoryId != null) requireTerms(db, ctx, 'categories', [input.categoryId], 'categoryId')
  if (input.brandId != null) requireTerms(db, ctx, 'brands', [input.brandId], 'brandId')
  if (input.collectionIds) requireTerms(db, ctx, 'collections', [...new Set(input.collectionIds)], 'collectionIds')
}

function linkCollections(tx: Sql, productId: string, collectionIds: string[]) {
  tx.delete(productCollections).where(eq(productCollections.productId, productId)).run()
  const unique = [...new Set(collectionIds)]
  if (unique.length > 0) tx.insert(productCollections).values(unique.map((collectionId) => ({ productId, collectionId }))).run()
}

/** The variants a create makes: those listed, or the one the top-level sku, price and stock describe. */
function variantsToCreate(input: CreateProductBody): AddVariantBody[] {
  if (input.variants) return input.variants
  // The body's schema lets a create through only with all three, or with `variants`.
  return [{ sku: input.sku!, price: input.price!, stock: input.stock!, minStock: input.minStock ?? DEFAULT_MIN_STOCK, options: {} }]
}

/**
 * Two variants of one create with the same sku (ignoring case, as the store's unique index compares
 * them) or the same options: the list is checked as a whole before anything is written.
 */
function assertVariantsDistinct(list: AddVariantBody[]) {
  const seen = new Set<string>()
  for (const [i, { sku, options }] of list.entries()) {
    if (seen.has(sku.toLowerCase())) {
      throw new AppError('CONFLICT', `The sku '${sku}' is given to two variants (SKUs are compared ignoring case). Give each variant its own sku; nothing was created.`)
    }
    seen.add(sku.toLowerCase())
    const twin = list.slice(0, i).find((other) => sameOptions(other.options, options))
    if (twin) throw optionsTaken(twin.sku, options)
  }
}

/**
 * A SIMPLE product with its variants, all in one transaction: a sku already used in the store, or twice
 * in the list, leaves nothing behind. Each variant's initial stock is its first RECEIVE.
 *
 * The product row is written deleted and made live once its variants are in. The search index's
 * triggers index a live product's whole text again whenever a variant is added (its SKUs are part of
 * it): a hundred variants and a long description cost one create over half a second of the server,
 * every store waiting. A deleted product is not in the index; made live, it is indexed once.
 */
export function createProduct(deps: CatalogDeps, ctx: StoreCtx, input: CreateProductBody, urlBase: string): Product {
  const id = deps.ids.next('prod')
  const now = deps.clock.now()
  const list = variantsToCreate(input)
  assertVariantsDistinct(list)
  return writeTransaction(deps.db, (tx) => {
    checkTerms(tx, ctx, input)
    tx.insert(products)
      .values({
        id,
        storeId: ctx.storeId,
        type: input.type,
        name: input.name,
        description: input.description,
        state: input.state,
        categoryId: input.categoryId ?? null,
        brandId: input.brandId ?? null,
        createdAt: now,
        updatedAt: now,
        deletedAt: now,
      })
      .run()
    for (const [position, variant] of list.entries()) savingSku(variant.sku, () => insertVariant(tx, deps, ctx, id, variant, position))
    tx.update(products).set({ deletedAt: null }).where(eq(products.id, id)).run()
    linkCollections(tx, id, input.collectionIds)
    return getProduct({ db: tx, productImages: deps.productImages }, ctx, id, urlBase)
  })
}

export function updateProduct(deps: CatalogDeps, ctx: StoreCtx, id: string, input: UpdateProductBody, urlBase: string): Product {
  const { collectionIds, price: _price, sku: _sku, stock: _stock, ...base } = input
  return writeTransaction(deps.db, (tx) => {
    findProduct(tx, ctx, id)
    checkTerms(tx, ctx, input)
    tx.update(products).set({ ...base, updatedAt: deps.clock.now() }).where(eq(products.id, id)).run()
    if (collectionIds) linkCollections(tx, id, collectionIds)
    return getProduct({ db: tx, productImages: deps.productImages }, ctx, id, urlBase)
  })
}

/**
 * Soft delete: the product and its variants leave every read, search and cart (which look up live
 * variants only); orders keep their own snapshot of name, sku and price. The SKUs become free again.
 */
export function deleteProduct(deps: Deps, ctx: StoreCtx, id: string) {
  writeTransaction(deps.db, (tx) => {
    findProduct(tx, ctx, id)
    const now = deps.clock.now()
    tx.update(products).set({ deletedAt: now, updatedAt: now }).where(eq(products.id, id)).run()
    tx.update(variants).set({ deletedAt: now, updatedAt: now }).where(and(eq(variants.productId, id), isNull(variants.deletedAt))).run()
  })
}
