import { and, eq, isNull, sql, type SQLWrapper } from 'drizzle-orm'
import type { SQLiteSelect } from 'drizzle-orm/sqlite-core'
import type { Sql } from '../../kernel/db/database'
import { perHandle } from '../../kernel/db/per-handle'
import { withParams } from '../../kernel/db/prepared'
import type { StoreCtx } from '../../kernel/auth/kinds'
import { seesState } from './find'
import { products, variants } from './tables'

// What a cart reads of the catalog: a variant with its product, as a cart line shows it and an add
// checks it. A cart joins them to its lines (joinVariantLine) and selects VARIANT_LINE_FIELDS, read as
// plain rows of values: one statement for the cart and its lines, and no mapping of columns to names
// by drizzle (bench/README.md, "The cart's one statement").

/** The columns of a line's variant and product, in the order of `VariantLineValues`. */
export const VARIANT_LINE_FIELDS = {
  productId: variants.productId,
  sku: variants.sku,
  priceCents: variants.priceCents,
  stock: variants.stock,
  reserved: variants.reserved,
  variantDeletedAt: variants.deletedAt,
  name: products.name,
  state: products.state,
  productDeletedAt: products.deletedAt,
}

/**
 * `query` with the variant whose id `variantId` holds (a column of the caller's table) and its product
 * joined, for VARIANT_LINE_FIELDS: left joins, so that a row without a variant id (a cart with no
 * lines) stays.
 */
export const joinVariantLine = <Q extends SQLiteSelect>(query: Q, variantId: SQLWrapper) =>
  query.leftJoin(variants, eq(variants.id, variantId)).leftJoin(products, eq(products.id, variants.productId))

/** What a cart line shows of its variant and product (`variantLine` reads the same of one variant). */
export interface LineOfVariant {
  productId: string
  sku: string
  priceCents: number
  stock: number
  reserved: number
  variantDeletedAt: number | null
  name: string
  state: string
  productDeletedAt: number | null
}

/** A line's variant and product as VARIANT_LINE_FIELDS reads them: values, in this order. */
export type VariantLineValues = [string, string, number, number, number, number | null, string, string, number | null]

/** The values VARIANT_LINE_FIELDS read, as named fields. */
export function lineOfVariant(values: VariantLineValues): LineOfVariant {
  const [productId, sku, priceCents, stock, reserved, variantDeletedAt, name, state, productDeletedAt] = values
  return { productId, sku, priceCents, stock, reserved, variantDeletedAt, name, state, productDeletedAt }
}

const prepared = perHandle((db: Sql) =>
  withParams<{ id: string; storeId: string }>()(
    db
      .select(VARIANT_LINE_FIELDS)
      .from(variants)
      .innerJoin(products, eq(products.id, variants.productId))
      .where(and(eq(variants.id, sql.placeholder('id')), eq(variants.storeId, sql.placeholder('storeId')), isNull(variants.deletedAt)))
      .prepare(),
  ),
)

/**
 * A live variant of the store with its product, shaped as a cart line shows it (LineOfVariant), as the caller
 * may see it (find.ts): with a publishable key, a variant of a DRAFT or ARCHIVED product is none, as
 * an unknown id. Undefined if none.
 */
export function variantLine(db: Sql, ctx: StoreCtx, id: string): LineOfVariant | undefined {
  const row = prepared(db).values({ id, storeId: ctx.storeId })[0] as VariantLineValues | undefined
  const line = row && lineOfVariant(row)
  return line && seesState(ctx, line.state) ? line : undefined
}

