import { join } from 'node:path'
import type { MigrationMeta } from 'drizzle-orm/migrator'
import { readMigrationFiles } from 'drizzle-orm/migrator'
import type { Db } from './database'

/**
 * The compiled executable has no migrations folder on disk, so the build script embeds them as this
 * constant (scripts/build.ts). Running from source, they are read from ./migrations.
 */
declare const STOREFRONT_MIGRATIONS: MigrationMeta[] | undefined

export function loadMigrations(): MigrationMeta[] {
  if (typeof STOREFRONT_MIGRATIONS !== 'undefined') return STOREFRONT_MIGRATIONS
  return readMigrationFiles({ migrationsFolder: join(import.meta.dir, '../../../migrations') })
}

/** Applies every migration not yet applied, all inside one transaction (drizzle's own migrator). */
export function migrate(db: Db, migrations = loadMigrations()): void {
  const dialect = (db as unknown as { dialect: { migrate(m: MigrationMeta[], s: unknown, c: object): void } }).dialect
  const session = (db as unknown as { session: unknown }).session
  dialect.migrate(migrations, session, {})
}
