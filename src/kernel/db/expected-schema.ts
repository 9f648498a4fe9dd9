import { Database } from 'bun:sqlite'
import { drizzle } from 'drizzle-orm/bun-sqlite'
import { appliedMigrations, loadMigrations, META_TABLE_NAME, migrate, MIGRATIONS_TABLE_NAME } from './migrate'

/** A table, index, trigger or view, as `sqlite_master` lists it. */
export interface SchemaObject {
  type: string
  name: string
  tbl_name: string
  sql: string | null
}

export type SchemaDifference =
  /** The database has it; the migrations do not make it. */
  | { kind: 'extra'; object: SchemaObject }
  /** Both have it, defined differently. */
  | { kind: 'changed'; object: SchemaObject }
  /** The migrations make it; the database lacks it. */
  | { kind: 'missing'; object: SchemaObject }
  /** The migrations the database records are not this build's first ones, in order. */
  | { kind: 'history'; recorded: number }

const objectsOf = (sqlite: Database) => sqlite.query('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name').all() as SchemaObject[]

/**
 * drizzle's own migrator wrote the bookkeeping table with other line breaks than ours, so the folders
 * it migrated hold another text for the same table; its text is compared with the spaces evened out.
 */
const evened = (sql: string | null) => sql?.replace(/\s+/g, ' ').replace(/\( /g, '(').replace(/ \)/g, ')') ?? null

/**
 * How the schema of a database differs from the one the migrations it records build (empty when it is
 * exactly that one): every table, index, trigger and view is compared by type, name, table and SQL text.
 * The expected schema is built by applying the same migrations to a database in memory, so it is right
 * for a database of any earlier schema, and for migrations added later. Only reads `sqlite`.
 *
 * A database whose schema is exactly the migrations' holds nothing that runs by itself: an extra
 * trigger, say, would run on the server's own writes once the database is in use.
 */
export function schemaDifferences(sqlite: Database, migrations = loadMigrations()): SchemaDifference[] {
  const recorded = appliedMigrations(sqlite)
  const first = migrations.slice(0, recorded.length).map((m) => m.folderMillis)
  if (recorded.some((at, i) => at !== first[i])) return [{ kind: 'history', recorded: recorded.length }]
  const memory = new Database(':memory:')
  let expected: SchemaObject[]
  try {
    migrate(drizzle({ client: memory }), migrations.slice(0, recorded.length))
    expected = objectsOf(memory)
  } finally {
    memory.close()
  }
  const actual = objectsOf(sqlite)
  const key = (o: SchemaObject) => `${o.type}\u0000${o.name}`
  // A build older than the meta table never wrote it: its absence is no difference.
  if (!actual.some((o) => o.type === 'table' && o.name === META_TABLE_NAME)) expected = expected.filter((o) => o.tbl_name !== META_TABLE_NAME)
  const wanted = new Map(expected.map((o) => [key(o), o]))
  const differences: SchemaDifference[] = []
  for (const object of actual) {
    const twin = wanted.get(key(object))
    wanted.delete(key(object))
    if (!twin) differences.push({ kind: 'extra', object })
    else if (object.tbl_name !== twin.tbl_name || !sameSql(object, twin)) differences.push({ kind: 'changed', object })
  }
  for (const object of wanted.values()) differences.push({ kind: 'missing', object })
  return differences
}

const sameSql = (object: SchemaObject, twin: SchemaObject) =>
  object.name === MIGRATIONS_TABLE_NAME && object.type === 'table' ? evened(object.sql) === evened(twin.sql) : object.sql === twin.sql
