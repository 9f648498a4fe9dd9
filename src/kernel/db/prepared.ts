import type { PreparedQueryConfig, SQLitePreparedQuery } from 'drizzle-orm/sqlite-core'

/**
 * A drizzle prepared query that takes its placeholders (`sql.placeholder`) by name and type, `P`.
 * drizzle's own type takes any record and finds a missing placeholder only when the query runs; this
 * one does not compile with a missing, misspelt or mistyped value.
 */
export interface Prepared<P, C extends PreparedQueryConfig> {
  get(params: P): C['get']
  all(params: P): C['all']
  run(params: P): C['run']
  values(params: P): C['values']
}

/** `withParams<{ id: string }>()(db.select().from(t).where(eq(t.id, sql.placeholder('id'))).prepare())` */
export const withParams =
  <P extends Record<string, unknown>>() =>
  <C extends PreparedQueryConfig>(query: SQLitePreparedQuery<C>): Prepared<P, C> =>
    query as unknown as Prepared<P, C>
