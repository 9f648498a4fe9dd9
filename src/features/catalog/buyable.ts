import { and, eq, isNull, sql, type SQLWrapper } from 'drizzle-orm'
import type { Sql } from '../../kernel/db/database'
import { perHandle } from '../../kernel/db/per-handle'
import { withParams } from '../../kernel/db/prepared'
import type { StoreCtx } from '../../kernel/auth/kinds'
import { seesState } from './find'
import { products, variants } from './tables'

// What a cart reads of the catalog: a variant with its product, as a cart line shows it and an add
// checks it, as one JSON array of the columns below: drizzle maps one column instead of nine, and a
// cart's lines read every variant and product through one subquery each (bench/README.md, "The cart's
// one statement").

/** The columns of a line's variant and product, in the order of `VariantLineValues`. */
const LINE_COLUMNS = sql.join([variants.productId, variants.sku, variants.priceCents, variants.stock, variants.reserved, variants.deletedAt, products.name, products.state, products.deletedAt], sql`, `)

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

/** A line's variant and product as `variantLineJson` writes them: an array, in this order. */
export type VariantLineValues = [string, string, number, number, number, number | null, string, string, number | null]

/**
 * What a cart line shows of the variant whose id `variantId` holds (a column of the caller's table) and
 * of its product, as one JSON array (`lineOfVariant` reads it): one subquery by primary key for the lot,
 * where a column each cost SQLite a lookup and drizzle a mapping per column.
 */
export const variantLineJson = (variantId: SQLWrapper) =>
  sql`json((select json_array(${LINE_COLUMNS}) from ${variants}, ${products} where ${variants.id} = ${variantId} and ${products.id} = ${variants.productId}))`

/** The array `variantLineJson` wrote, as named fields. */
export function lineOfVariant(values: VariantLineValues): LineOfVariant {
  const [productId, sku, priceCents, stock, reserved, variantDeletedAt, name, state, productDeletedAt] = values
  return { productId, sku, priceCents, stock, reserved, variantDeletedAt, name, state, productDeletedAt }
}

const prepared = perHandle((db: Sql) =>
  withParams<{ id: string; storeId: string }>()(
    db
      .select({ line: sql<string>`json_array(${LINE_COLUMNS})` })
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
  const row = prepared(db).get({ id, storeId: ctx.storeId })
  const line = row && lineOfVariant(JSON.parse(row.line) as VariantLineValues)
  return line && seesState(ctx, line.state) ? line : undefined
}

