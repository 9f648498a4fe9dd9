import type { Statement } from 'bun:sqlite'
import { Column, is, Param, Placeholder, SQL } from 'drizzle-orm'
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

/**
 * `withParams<{ id: string }>()(db.select().from(t).where(eq(t.id, sql.placeholder('id'))).prepare())`
 *
 * The query runs as drizzle runs it, with the work drizzle does on every run done once here
 * (`runsAsDrizzle`, docs/caches.md).
 */
export const withParams =
  <P extends Record<string, unknown>>() =>
  <C extends PreparedQueryConfig>(query: SQLitePreparedQuery<C>): Prepared<P, C> =>
    runsAsDrizzle(query) as unknown as Prepared<P, C>

/** What drizzle's bun:sqlite prepared query holds (drizzle-orm/bun-sqlite/session.js). */
interface BunPrepared {
  stmt?: Statement
  query?: { sql: string; params: unknown[] }
  fields?: { path: string[]; field: unknown }[]
  customResultMapper?: unknown
}

interface Decoder {
  mapFromDriverValue(value: unknown): unknown
}

/**
 * A prepared query's four methods with drizzle's results, without drizzle's work per run: drizzle
 * finds each parameter's placeholder and each column's decoder again on every run (a class check per
 * value, `fillPlaceholders` and `mapResultRow`): 6.6 % of the server's CPU under whole orders. Here
 * both are found once. Values are encoded and decoded by the same column methods, and a missing value
 * throws drizzle's error. A query of another shape (rows nested by table, a relational query's mapper,
 * another driver) is left as drizzle made it. test/kernel/prepared.test.ts holds the two to the same
 * answers.
 */
export function runsAsDrizzle<T extends object>(query: T): T | Prepared<Record<string, unknown>, PreparedQueryConfig> {
  const { stmt, query: built, fields, customResultMapper } = query as BunPrepared
  // drizzle sets `fields` on every query it prepares, undefined when the query returns no rows.
  if (!stmt || !built || !('fields' in query) || customResultMapper || fields?.some((f) => f.path.length !== 1)) return query
  const bind = binder(built.params)
  const decode = fields ? rowDecoder(fields) : undefined
  return {
    run: (values) => stmt.run(...(bind(values) as [])),
    values: (values) => stmt.values(...(bind(values) as [])),
    get(values) {
      const row = stmt.values(...(bind(values) as []))[0]
      return row === undefined || !decode ? row : decode(row)
    },
    all: (values) => (decode ? stmt.values(...(bind(values) as [])).map(decode) : stmt.all(...(bind(values) as []))),
  }
}

/** The statement's parameters from the placeholders' values, in order. */
function binder(params: unknown[]): (values: Record<string, unknown>) => unknown[] {
  const slots = params.map((p) => {
    if (is(p, Placeholder)) return { name: p.name as string, encoder: undefined, value: undefined }
    if (is(p, Param) && is(p.value, Placeholder)) return { name: p.value.name as string, encoder: p.encoder, value: undefined }
    return { name: undefined, encoder: undefined, value: p }
  })
  return (values) => {
    const out = new Array<unknown>(slots.length)
    for (let i = 0; i < slots.length; i++) {
      const { name, encoder, value } = slots[i]!
      if (name === undefined) {
        out[i] = value
        continue
      }
      if (!(name in values)) throw new Error(`No value for placeholder "${name}" was provided`)
      out[i] = encoder ? encoder.mapToDriverValue(values[name]) : values[name]
    }
    return out
  }
}

/** A row of values as an object keyed by the selected fields, each value through its field's decoder. */
function rowDecoder(fields: { path: string[]; field: unknown }[]): (row: unknown[]) => Record<string, unknown> {
  const columns = fields.map(({ path, field }) => ({ key: path[0]!, decoder: decoderOf(field) }))
  return (row) => {
    const out: Record<string, unknown> = {}
    for (let i = 0; i < columns.length; i++) {
      const raw = row[i]
      out[columns[i]!.key] = raw === null ? null : columns[i]!.decoder.mapFromDriverValue(raw)
    }
    return out
  }
}

/** As drizzle's `mapResultRow` picks it: the column itself, a SQL's decoder, an aliased SQL's or a subquery's. */
function decoderOf(field: unknown): Decoder {
  if (is(field, Column)) return field
  // `decoder` is marked internal in drizzle's types.
  const decoder = (sql: SQL) => (sql as unknown as { decoder: Decoder }).decoder
  if (is(field, SQL)) return decoder(field)
  const f = field as { _?: { sql: SQL }; sql?: SQL }
  return decoder((f._?.sql ?? f.sql)!)
}
