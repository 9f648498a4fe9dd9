import { sql, type SQLWrapper } from 'drizzle-orm'
import { stores } from '../../kernel/auth/tables'
import { withTableNames } from '../../kernel/db/table-names'

// A store's currency, for the features that show money in it (the cart): read here, where the
// store's settings are kept, instead of from the stores table by each of them.

/** The currency of the store whose id `storeId` holds (a column of the caller's table), as a column of the caller's select: a subquery by primary key, no statement of its own. */
export const currencyOfStore = (storeId: SQLWrapper) => withTableNames<string>(sql`(select ${stores.currency} from ${stores} where ${stores.id} = ${storeId})`)
