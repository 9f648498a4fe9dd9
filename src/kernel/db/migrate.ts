import type { Database } from 'bun:sqlite'
import { join } from 'node:path'
import type { MigrationMeta } from 'drizzle-orm/migrator'
import { readMigrationFiles } from 'drizzle-orm/migrator'
import { VERSION } from '../../version'
import { writeTransaction, type Db } from './database'
import { openDatabase } from './open'
import { pluralize } from '../plural'

/**
 * The compiled executable has no migrations folder on disk, so the build script embeds them as this
 * constant (scripts/build.ts). Running from source, they are read from ./migrations.
 */
declare const STOREFRONT_MIGRATIONS: MigrationMeta[] | undefined

/**
 * What an empty database is once every migration has run, as a build computed it (`baselineFor`): the
 * executable's first start on a new folder makes it in one pass instead of replaying every migration
 * (a table rebuilt, a search index renamed: each a pass over the whole schema). Running from source
 * there is none, and the migrations run as they always do.
 */
declare const STOREFRONT_BASELINE: Baseline | undefined

export interface Baseline {
  /** The migrations it stands for, by the time drizzle-kit gave each, in order. */
  migrations: number[]
  /** Every CREATE of the schema, in the order SQLite keeps them (a virtual table makes its own shadow tables). */
  schema: string[]
  /** The rows the migrations wrote into an empty database (a counter's first row, AUTOINCREMENT's counters), table by table. */
  rows: { table: string; columns: string[]; values: (string | number | null)[][] }[]
}

export const embeddedBaseline = (): Baseline | undefined => (typeof STOREFRONT_BASELINE !== 'undefined' ? STOREFRONT_BASELINE : undefined)

export function loadMigrations(): MigrationMeta[] {
  if (typeof STOREFRONT_MIGRATIONS !== 'undefined') return STOREFRONT_MIGRATIONS
  return readMigrationFiles({ migrationsFolder: join(import.meta.dir, '../../../migrations') })
}

/** A build as a data folder knows it: the program's version and how many migrations its schema has. */
export interface Build {
  /** Null for a database that never recorded it. */
  version: string | null
  schema: number
}

export const buildName = (b: Build) => (b.version ? `Storefront ${b.version} (schema ${b.schema})` : `a Storefront of schema ${b.schema}`)

/** The database holds migrations this build does not know: a newer build wrote it. Nothing was changed. */
export class NewerDataFolder extends Error {
  constructor(
    readonly writtenBy: Build,
    readonly thisBuild: Build,
  ) {
    super(`written by ${buildName(writtenBy)}, newer than this ${buildName(thisBuild)}`)
  }
}

// The same bookkeeping table as drizzle's own migrator, so folders it migrated are read as they are.
export const MIGRATIONS_TABLE_NAME = '__drizzle_migrations'
const MIGRATIONS_TABLE = 'CREATE TABLE IF NOT EXISTS "__drizzle_migrations" (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at numeric)'
// Which build last opened the folder, so that an older build can name it when it refuses the folder.
// Its name, its columns and the key 'written_by' stay as they are in every later build.
export const META_TABLE_NAME = '__storefront_meta'
const META_TABLE = 'CREATE TABLE IF NOT EXISTS "__storefront_meta" (key text PRIMARY KEY, value text NOT NULL)'

const hasTable = (sqlite: Database, name: string) => sqlite.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== null

/** The migrations applied to this database, by the time drizzle-kit gave each (its identity, as for drizzle). */
export function appliedMigrations(sqlite: Database): number[] {
  if (!hasTable(sqlite, '__drizzle_migrations')) return []
  return (sqlite.query('SELECT created_at AS at FROM "__drizzle_migrations"').all() as { at: number }[]).map((r) => Number(r.at))
}

/** The version of the build that last opened the database, when it recorded one. */
export function recordedVersion(sqlite: Database): string | null {
  if (!hasTable(sqlite, '__storefront_meta')) return null
  return (sqlite.query("SELECT value FROM \"__storefront_meta\" WHERE key = 'written_by'").get() as { value: string } | null)?.value ?? null
}

/** Throws NewerDataFolder when the database was written by a build with migrations this one lacks. Only reads. */
export function refuseNewer(sqlite: Database, migrations = loadMigrations()): void {
  const applied = appliedMigrations(sqlite)
  const known = new Set(migrations.map((m) => m.folderMillis))
  if (applied.every((at) => known.has(at))) return
  throw new NewerDataFolder({ version: recordedVersion(sqlite), schema: applied.length }, { version: VERSION, schema: migrations.length })
}

/**
 * Applies every migration the database lacks and records this build's version, all in one transaction:
 * a failure anywhere leaves the database as it was. A database written by a newer build is refused
 * before anything is written (NewerDataFolder).
 *
 * Foreign keys are off while migrations run: a table rebuild (drizzle-kit's way to change a column in
 * SQLite) drops the old table, and with them on, that deletes every row pointing at it through ON DELETE
 * CASCADE. SQLite ignores the migrations' own `PRAGMA foreign_keys` inside a transaction, so it is done
 * around it, and the keys are checked before the commit instead.
 */
export function migrate(db: Db, migrations = loadMigrations(), baseline = embeddedBaseline()): void {
  const sqlite = db.$client
  refuseNewer(sqlite, migrations)
  const applied = new Set(appliedMigrations(sqlite))
  const pending = migrations.filter((m) => !applied.has(m.folderMillis))
  // A new folder's empty database is made from the baseline when it stands for exactly these migrations.
  const fromBaseline = baseline !== undefined && isEmpty(sqlite) && sameMigrations(baseline, migrations)
  sqlite.exec('PRAGMA foreign_keys = OFF')
  try {
    writeTransaction(db, () => {
      sqlite.exec(MIGRATIONS_TABLE)
      sqlite.exec(META_TABLE)
      if (fromBaseline) make(sqlite, baseline)
      for (const migration of pending) {
        // exec runs every statement of a part (a prepared statement would run the first one only).
        if (!fromBaseline) for (const part of migration.sql) if (part.trim()) sqlite.exec(part)
        sqlite.query('INSERT INTO "__drizzle_migrations" (hash, created_at) VALUES (?, ?)').run(migration.hash, migration.folderMillis)
      }
      if (pending.length) refuseDanglingKeys(sqlite)
      if (recordedVersion(sqlite) !== VERSION) sqlite.query("INSERT OR REPLACE INTO \"__storefront_meta\" (key, value) VALUES ('written_by', ?)").run(VERSION)
    })
  } finally {
    sqlite.exec('PRAGMA foreign_keys = ON')
  }
}

function refuseDanglingKeys(sqlite: Database) {
  const dangling = sqlite.query('PRAGMA foreign_key_check').all() as { table: string; rowid: number; parent: string }[]
  if (dangling.length === 0) return
  const first = dangling[0]!
  throw new Error(
    `the migrations would leave ${pluralize(dangling.length, 'row')} pointing at rows that do not exist (the first: ${first.table} rowid ${first.rowid}, into ${first.parent}); nothing was changed`,
  )
}

const isEmpty = (sqlite: Database) => sqlite.query('SELECT 1 FROM sqlite_master').get() === null

const sameMigrations = (baseline: Baseline, migrations: MigrationMeta[]) =>
  baseline.migrations.length === migrations.length && migrations.every((m, i) => baseline.migrations[i] === m.folderMillis)

function make(sqlite: Database, baseline: Baseline) {
  for (const statement of baseline.schema) sqlite.exec(statement)
  for (const { table, columns, values } of baseline.rows) {
    const insert = sqlite.query(`INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`)
    for (const row of values) insert.run(...row)
  }
}

/** The tables SQLite makes for a virtual table (a search index's data), which the virtual table's CREATE makes again. */
const shadowTables = (sqlite: Database) => new Set((sqlite.query("SELECT name FROM pragma_table_list WHERE type = 'shadow'").all() as { name: string }[]).map((t) => t.name))

/** The migrations' bookkeeping, which `migrate` writes itself. */
const BOOKKEEPING = new Set([MIGRATIONS_TABLE_NAME, META_TABLE_NAME])

/**
 * The baseline of `migrations`: an empty database is migrated (in memory) and read back, its schema in
 * the order SQLite keeps it and the rows the migrations wrote. The build embeds it (scripts/build.ts);
 * test/kernel/migrate.test.ts checks that a database made from it is the one the migrations make.
 */
export function baselineFor(migrations: MigrationMeta[]): Baseline {
  const { sqlite, db } = openDatabase(':memory:')
  try {
    migrate(db, migrations, undefined)
    const shadows = shadowTables(sqlite)
    const own = (name: string) => !name.startsWith('sqlite_') && !shadows.has(name) && !BOOKKEEPING.has(name)
    const entries = (sqlite.query('SELECT type, name, tbl_name AS of, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid').all() as { type: string; name: string; of: string; sql: string }[]).filter(
      (e) => own(e.name) && own(e.of),
    )
    const schema = entries.map((e) => e.sql)
    const rows: Baseline['rows'] = []
    // The AUTOINCREMENT counters too: a table rebuilt by copying rows leaves one, even at 0.
    const tables = [...entries.filter((e) => e.type === 'table' && !e.sql.startsWith('CREATE VIRTUAL TABLE')).map((e) => e.name), ...(hasTable(sqlite, 'sqlite_sequence') ? ['sqlite_sequence'] : [])]
    for (const name of tables) {
      const all = sqlite.query(`SELECT * FROM "${name}"`)
      const values = all.values() as (string | number | null)[][]
      if (values.length === 0) continue
      if (values.flat().some((v) => v !== null && typeof v !== 'string' && typeof v !== 'number')) throw new Error(`the migrations write a value of ${name} that the baseline cannot carry (only text, numbers and null)`)
      rows.push({ table: name, columns: all.columnNames, values })
    }
    return { migrations: migrations.map((m) => m.folderMillis), schema, rows }
  } finally {
    sqlite.close()
  }
}
