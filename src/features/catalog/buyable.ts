import { and, eq, isNull, sql, type SQLWrapper } from 'drizzle-orm'
import type { SelectedFields } from 'drizzle-orm/sqlite-core'
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

/**
 * The variant and product columns of a line, for the variant whose id `variantId` holds (a column of
 * the caller's table). Every one is a subquery by primary key.
 */
function lineColumns(variantId: SQLWrapper) {
  const ofVariant = <T>(column: SQLWrapper) => sql<T>`(select ${column} from ${variants} where ${variants.id} = ${variantId})`
  const productId = ofVariant<string>(variants.productId)
  return {
    productId,
    sku: ofVariant<string>(variants.sku),
    priceCents: ofVariant<number>(variants.priceCents),
    stock: ofVariant<number>(variants.stock),
    reserved: ofVariant<number>(variants.reserved),
    variantDeletedAt: ofVariant<number | null>(variants.deletedAt),
    ...productColumns(productId),
  }
}

/**
 * A select of the caller's `own` columns and, for the variant whose id `variantId` holds (one of the
 * caller's columns), what a cart line shows of it and its product: name, sku, price, stock, reserved,
 * state and deletion. The caller adds its table and conditions; one statement reads its rows and what
 * they show, and the caller never names the catalog's tables.
 */
export const selectWithVariantLines = <Own extends SelectedFields>(db: Sql, own: Own, variantId: SQLWrapper) => db.select({ ...own, ...lineColumns(variantId) })

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
 * A live variant of the store with its product, shaped as `lineColumns` shapes a line, as the caller
 * may see it (find.ts): with a publishable key, a variant of a DRAFT or ARCHIVED product is none, as
 * an unknown id. Undefined if none.
 */
export function variantLine(db: Sql, ctx: StoreCtx, id: string) {
  const line = prepared(db).get({ id, storeId: ctx.storeId })
  return line && seesState(ctx, line.state) ? line : undefined
}

export type VariantLine = NonNullable<ReturnType<typeof variantLine>>
