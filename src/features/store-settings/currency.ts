import { eq, sql, type SQLWrapper } from 'drizzle-orm'
import { stores } from '../../kernel/auth/tables'
import type { Sql } from '../../kernel/db/database'
import { perHandle } from '../../kernel/db/per-handle'
import { withParams } from '../../kernel/db/prepared'

// A store's currency, for the features that show money in it (the cart): read here, where the
// store's settings are kept, instead of from the stores table by each of them.

/** The currency of the store whose id `storeId` holds (a column of the caller's table), as a column of the caller's select: a subquery by primary key, no statement of its own. */
export const currencyOfStore = (storeId: SQLWrapper) => sql<string>`(select ${stores.currency} from ${stores} where ${stores.id} = ${storeId})`

// Built once per database handle: drizzle builds a statement's SQL text on every call.
const prepared = perHandle((db: Sql) =>
  withParams<{ storeId: string }>()(db.select({ currency: stores.currency }).from(stores).where(eq(stores.id, sql.placeholder('storeId'))).prepare()),
)

/** The store's currency, read on `db` (a transaction's handle too). */
export const storeCurrency = (db: Sql, storeId: string) => prepared(db).get({ storeId })!.currency
