import { Database, type Statement } from 'bun:sqlite'
import { drizzle, type BunSQLiteDatabase } from 'drizzle-orm/bun-sqlite'
import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core'

export type Db = BunSQLiteDatabase & { $client: Database }
/** The database or a transaction on it: what a service function writes through. */
export type Sql = BaseSQLiteDatabase<'sync', unknown>

export interface OpenDatabase {
  sqlite: Database
  db: Db
  close(): void
}

/**
 * Opens (or creates) the SQLite file with the settings every connection needs: WAL so readers never
 * wait for the writer, foreign keys on, and a busy timeout so concurrent writers queue instead of failing.
 */
export function openDatabase(file: string): OpenDatabase {
  const sqlite = new Database(file, { create: true, strict: true })
  sqlite.exec('PRAGMA journal_mode = WAL')
  sqlite.exec('PRAGMA synchronous = NORMAL')
  sqlite.exec('PRAGMA foreign_keys = ON')
  sqlite.exec('PRAGMA busy_timeout = 5000')
  const db = drizzle({ client: cachingStatements(sqlite) })
  return {
    sqlite,
    db,
    close() {
      // Fold the WAL back into the main file so a copied data dir is complete on its own.
      try {
        sqlite.exec('PRAGMA wal_checkpoint(TRUNCATE)')
      } finally {
        sqlite.close()
      }
    },
  }
}

/**
 * drizzle compiles every statement afresh (`prepare`), which was a fifth of the CPU time of an order.
 * Bun's `query` keeps one compiled statement per SQL text. Sharing it is safe because drizzle runs each
 * statement to completion synchronously and never finalizes it; code that uses `sqlite` directly is
 * left with the uncached `prepare`.
 */
function cachingStatements(sqlite: Database): Database {
  return new Proxy(sqlite, {
    get(target, prop) {
      if (prop === 'prepare') return (sql: string) => target.query(sql)
      const value = Reflect.get(target, prop, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}

/**
 * Read-then-write work runs in BEGIN IMMEDIATE, so two requests cannot both read the old stock and
 * both write. The callback must be synchronous: an await inside would commit early (STYLE §4). The
 * work gets the database itself: it is one connection, so every statement runs in the transaction.
 */
export function writeTransaction<T>(db: Db, work: (tx: Sql) => T): T {
  return immediateTransaction(db.$client, () => work(db))
}

/**
 * The one way to open a write transaction, for drizzle (writeTransaction) and for code that runs its
 * statements on bun:sqlite directly (the cart): `BEGIN IMMEDIATE`, `COMMIT` and `ROLLBACK` prepared
 * once per connection instead of drizzle's transaction object and Bun's wrapper made on every call.
 * Inside an open transaction it is a savepoint.
 */
export function immediateTransaction<T>(sqlite: Database, work: () => T): T {
  if (sqlite.inTransaction) return sqlite.transaction(work).immediate()
  let control = controls.get(sqlite)
  if (!control) {
    control = { begin: sqlite.prepare('BEGIN IMMEDIATE'), commit: sqlite.prepare('COMMIT'), rollback: sqlite.prepare('ROLLBACK') }
    controls.set(sqlite, control)
  }
  control.begin.run()
  try {
    const result = work()
    if (result instanceof Promise) throw new Error('writeTransaction callback must be synchronous')
    control.commit.run()
    return result
  } catch (error) {
    // A failed COMMIT (or SQLite's own rollback after some errors) can leave no transaction to end.
    if (sqlite.inTransaction) control.rollback.run()
    throw error
  }
}

const controls = new WeakMap<Database, { begin: Statement; commit: Statement; rollback: Statement }>()

/**
 * Several reads as one snapshot: in WAL mode every statement outside a transaction takes and drops a
 * read lock of its own (about 8 µs, more than a small query), so a read of five queries pays it once
 * here, and no commit can land halfway through it. Inside a transaction it is a savepoint.
 */
export function readTransaction<T>(sqlite: Database, read: () => T): T {
  return sqlite.transaction(read).deferred()
}

/** True when SQLite refused a write because of a UNIQUE constraint (or a unique index). */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | undefined
  return e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || /UNIQUE constraint failed/.test(e?.message ?? '')
}
