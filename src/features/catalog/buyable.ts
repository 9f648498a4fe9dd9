import { and, eq, isNull, sql, type SQLWrapper } from 'drizzle-orm'
import type { Sql } from '../../kernel/db/database'
import { perHandle } from '../../kernel/db/per-handle'
import { withParams } from '../../kernel/db/prepared'
import type { StoreCtx } from '../../kernel/auth/kinds'
import { seesState } from './find'
import { products, variants } from './tables'

// What a cart reads of the catalog: a variant with its product, as a cart line shows it and an add
// checks it. The reads go by primary key through scalar subqueries, not joins: the same rows, and
// SQLite runs such a lookup for a fraction of what a joined table costs it (bench/README.md).

const ofProduct = <T>(column: SQLWrapper, productId: SQLWrapper) => sql<T>`(select ${column} from ${products} where ${products.id} = ${productId})`

/** The product's columns a line shows, of the product `productId` names. */
const productColumns = (productId: SQLWrapper) => ({
  name: ofProduct<string>(products.name, productId),
  state: ofProduct<string>(products.state, productId),
  productDeletedAt: ofProduct<number | null>(products.deletedAt, productId),
})

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
 * of its product, as one JSON array (`lineOfVariant` reads it), or null when the variant is gone. One
 * subquery by primary key for the lot: a column each cost SQLite a lookup per column and drizzle a
 * mapping per column, most of a cart add's time (bench/README.md, "The cart's one statement").
 */
export const variantLineJson = (variantId: SQLWrapper) =>
  sql`json((select json_array(${variants.productId}, ${variants.sku}, ${variants.priceCents}, ${variants.stock}, ${variants.reserved}, ${variants.deletedAt}, ${products.name}, ${products.state}, ${products.deletedAt})
    from ${variants}, ${products} where ${variants.id} = ${variantId} and ${products.id} = ${variants.productId}))`

/** The array `variantLineJson` wrote, as named fields. */
export function lineOfVariant(values: VariantLineValues): LineOfVariant {
  const [productId, sku, priceCents, stock, reserved, variantDeletedAt, name, state, productDeletedAt] = values
  return { productId, sku, priceCents, stock, reserved, variantDeletedAt, name, state, productDeletedAt }
}

const prepared = perHandle((db: Sql) =>
  withParams<{ id: string; storeId: string }>()(
    db
      .select({
        productId: variants.productId,
        sku: variants.sku,
        priceCents: variants.priceCents,
        stock: variants.stock,
        reserved: variants.reserved,
        variantDeletedAt: variants.deletedAt,
        ...productColumns(variants.productId),
      })
      .from(variants)
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
  const line = prepared(db).get({ id, storeId: ctx.storeId })
  return line && seesState(ctx, line.state) ? line : undefined
}

