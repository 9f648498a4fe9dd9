import { and, count, eq, isNull, max } from 'drizzle-orm'
import type { StoreCtx } from '../../kernel/auth/kinds'
import { writeTransaction, type Sql, type Tx } from '../../kernel/db/database'
import type { Deps } from '../../kernel/deps'
import { AppError, assertBelowLimit } from '../../kernel/errors'
import { toCents } from '../../kernel/money'
import { MAX_VARIANTS_PER_CREATE, type AddVariantBody, type PatchVariantBody, type Variant } from './model'
import { findProduct, findShownVariant, findVariant, savingSku } from './find'
import { moveStock } from './stock'
import { products, variants } from './tables'
import { toVariant } from './views'

// Variants: the sellable unit. Their price and sku change here; their stock only in stock.ts.

export const sameOptions = (a: Record<string, string>, b: Record<string, string>) => {
  const keys = Object.keys(a)
  return keys.length === Object.keys(b).length && keys.every((k) => b[k] === a[k])
}

/** The 409 of a variant whose options `twinSku`, a variant of the same product, already has. */
export const optionsTaken = (twinSku: string, options: Record<string, string>) =>
  new AppError('CONFLICT', `Variant ${twinSku} of this product already has the options ${JSON.stringify(options)}. Give each variant different options, e.g. {"size": "M"} and {"size": "L"}.`)

/** Two live variants of one product cannot have the same options: nothing would tell them apart. */
function assertDistinctOptions(db: Sql, productId: string, options: Record<string, string>, exceptId?: string) {
  const twin = db
    .select({ id: variants.id, sku: variants.sku, options: variants.options })
    .from(variants)
    .where(and(eq(variants.productId, productId), isNull(variants.deletedAt)))
    .all()
    .find((v) => v.id !== exceptId && sameOptions(v.options, options))
  if (twin) throw optionsTaken(twin.sku, options)
}

/**
 * Inserts a variant at `position` with no stock, then receives its initial stock, so the ledger starts
 * at zero. Its options are the caller's to have checked against the product's other variants.
 */
export function insertVariant(tx: Tx, deps: Deps, ctx: StoreCtx, productId: string, input: AddVariantBody, position: number) {
  const id = deps.ids.next('var')
  const now = deps.clock.now()
  tx.insert(variants)
    .values({
      id,
      storeId: ctx.storeId,
      productId,
      sku: input.sku,
      priceCents: toCents(input.price),
      minStock: input.minStock,
      options: input.options,
      position,
      createdAt: now,
      updatedAt: now,
    })
    .run()
  if (input.stock > 0) return moveStock(tx, deps, ctx, { variantId: id, kind: 'RECEIVE', quantity: input.stock, reason: 'initial stock' })
  return findVariant(tx, ctx, id)
}

/** Variants a product may have (as many as one creation takes): every read of the product lists them all. */
export const MAX_VARIANTS_PER_PRODUCT = MAX_VARIANTS_PER_CREATE

export function addVariant(deps: Deps, ctx: StoreCtx, productId: string, input: AddVariantBody): Variant {
  return savingSku(input.sku, () =>
    writeTransaction(deps.db, (tx) => {
      findProduct(tx, ctx, productId)
      const { n } = tx.select({ n: count() }).from(variants).where(and(eq(variants.productId, productId), isNull(variants.deletedAt))).get()!
      assertBelowLimit(n, MAX_VARIANTS_PER_PRODUCT, { who: `Product ${productId}`, things: 'variants', owner: 'a product', fix: 'Sell the others as another product (POST /v1/products).' })
      assertDistinctOptions(tx, productId, input.options)
      const [{ last }] = tx.select({ last: max(variants.position) }).from(variants).where(eq(variants.productId, productId)).all() as [{ last: number | null }]
      const variant = insertVariant(tx, deps, ctx, productId, input, (last ?? -1) + 1)
      tx.update(products).set({ updatedAt: deps.clock.now() }).where(eq(products.id, productId)).run()
      return toVariant(variant)
    }),
  )
}

export const getVariant = (deps: Deps, ctx: StoreCtx, id: string): Variant => toVariant(findShownVariant(deps.db, ctx, id))

export function patchVariant(deps: Deps, ctx: StoreCtx, id: string, input: PatchVariantBody): Variant {
  const { price, stock: _stock, ...rest } = input
  return savingSku(input.sku, () =>
    writeTransaction(deps.db, (tx) => {
      const current = findVariant(tx, ctx, id)
      if (rest.options) assertDistinctOptions(tx, current.productId, rest.options, id)
      const changes = { ...rest, ...(price === undefined ? {} : { priceCents: toCents(price) }) }
      if (Object.keys(changes).length === 0) return toVariant(current)
      const now = deps.clock.now()
      // The product's body shows its variants (and its price is the lowest): it changed too, as when one is added.
      tx.update(products).set({ updatedAt: now }).where(eq(products.id, current.productId)).run()
      return toVariant(tx.update(variants).set({ ...changes, updatedAt: now }).where(eq(variants.id, id)).returning().get()!)
    }),
  )
}

/** The stock endpoints: RECEIVE (units arrived) and ADJUST (a signed correction with its reason). */
export function receiveStock(deps: Deps, ctx: StoreCtx, id: string, input: { quantity: number; note?: string }): Variant {
  return toVariant(
    writeTransaction(deps.db, (tx) => moveStock(tx, deps, ctx, { variantId: id, kind: 'RECEIVE', quantity: input.quantity, reason: input.note ?? null })),
  )
}

export function adjustStock(deps: Deps, ctx: StoreCtx, id: string, input: { quantity: number; reason: string }): Variant {
  return toVariant(
    writeTransaction(deps.db, (tx) => moveStock(tx, deps, ctx, { variantId: id, kind: 'ADJUST', quantity: input.quantity, reason: input.reason })),
  )
}
