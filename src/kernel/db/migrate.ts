import type { Database } from 'bun:sqlite'
import { join } from 'node:path'
import type { MigrationMeta } from 'drizzle-orm/migrator'
import { readMigrationFiles } from 'drizzle-orm/migrator'
import { VERSION } from '../../version'
import { writeTransaction, type Db } from './database'
import { pluralize } from '../plural'

/**
 * The compiled executable has no migrations folder on disk, so the build script embeds them as this
 * constant (scripts/build.ts). Running from source, they are read from ./migrations.
 */
declare const STOREFRONT_MIGRATIONS: MigrationMeta[] | undefined

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
export function migrate(db: Db, migrations = loadMigrations()): void {
  const sqlite = db.$client
  refuseNewer(sqlite, migrations)
  const applied = new Set(appliedMigrations(sqlite))
  const pending = migrations.filter((m) => !applied.has(m.folderMillis))
  sqlite.exec('PRAGMA foreign_keys = OFF')
  try {
    writeTransaction(db, () => {
      sqlite.exec(MIGRATIONS_TABLE)
      sqlite.exec(META_TABLE)
      for (const migration of pending) {
        // exec runs every statement of a part (a prepared statement would run the first one only).
        for (const part of migration.sql) if (part.trim()) sqlite.exec(part)
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
