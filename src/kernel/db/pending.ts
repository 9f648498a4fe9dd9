import { type SQLWrapper, sql } from 'drizzle-orm'

/**
 * `status = 'PENDING'`, the value written in the SQL rather than bound: the condition of a partial index
 * of pending rows (orders to expire, webhook attempts to send), which SQLite's planner matches only to
 * the same literal in a query (compiledOnce, database.ts). The index and the queries that should read it
 * are written with this one expression.
 */
export const pendingOnly = (status: SQLWrapper) => sql`${status} = 'PENDING'`
