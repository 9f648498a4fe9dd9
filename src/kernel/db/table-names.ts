import { type SQL, sql } from 'drizzle-orm'

/**
 * `fragment` as a column of a select or a value of an insert, with every column in it named with its
 * table. drizzle writes a fragment given there with bare column names (`"store_id"`), which SQLite
 * resolves against the outer statement's table first: a subquery on `stores` comparing `"id"` with
 * `"store_id"` found the caller's `store_id` only because `stores` has none. Nested in another fragment,
 * drizzle names them in full (`"stores"."id" = "carts"."store_id"`).
 */
export const withTableNames = <T = unknown>(fragment: SQL): SQL<T> => sql<T>`${fragment}`
