import { Database } from 'bun:sqlite'
import { drizzle, type BunSQLiteDatabase } from 'drizzle-orm/bun-sqlite'
import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core'
import { perHandle } from './per-handle'

export type Db = BunSQLiteDatabase & { $client: Database }
/** The database or a transaction on it: what a service function writes through. */
export type Sql = BaseSQLiteDatabase<'sync', unknown>

export interface OpenDatabase {
  sqlite: Database
  db: Db
  close(): void
}

/** Another process holds the database file: a second server, or a command run beside the server. */
export class DatabaseInUse extends Error {}

/**
 * Opens (or creates) the SQLite file with the settings every connection needs: WAL, foreign keys on,
 * and the file held by this connection alone for as long as it is open.
 *
 * `locking_mode = EXCLUSIVE`, set before WAL is entered, keeps the WAL index in this process's memory
 * instead of a shared-memory file and takes the file locks once instead of on every transaction, which
 * makes a statement outside a transaction, and a transaction's `BEGIN` and `COMMIT`, markedly cheaper
 * (bench/README.md). The price is that no other process can open the file while this one has it: the
 * teacher's commands reach a running server through its control socket (src/cli/jobs.ts), and a
 * second server on the same folder is told which one holds it.
 */
export function openDatabase(file: string): OpenDatabase {
  const sqlite = new Database(file, { create: true, strict: true })
  try {
    // A command finishing its work on the folder is waited for; a running server is not let go.
    sqlite.exec('PRAGMA busy_timeout = 5000')
    sqlite.exec('PRAGMA locking_mode = EXCLUSIVE')
    sqlite.exec('PRAGMA journal_mode = WAL')
  } catch (e) {
    sqlite.close()
    if ((e as { code?: string }).code === 'SQLITE_BUSY') throw new DatabaseInUse(`${file} is in use by another process`)
    throw e
  }
  sqlite.exec('PRAGMA synchronous = NORMAL')
  sqlite.exec('PRAGMA foreign_keys = ON')
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
 * drizzle compiles every statement afresh (`prepare`), which was a good share of an order's CPU time
 * (bench/README.md). Bun's `query` keeps one compiled statement per SQL text, for the 20 texts used
 * last on this connection (docs/caches.md). Sharing it is safe because drizzle runs each
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

declare const writing: unique symbol

/**
 * What a write transaction hands its work: the database on its one connection (so every statement
 * runs in the transaction), with that connection as `$client` for statements written in SQL. Functions
 * whose writes must land together with their caller's (the stock ledger, the outbox) ask for a `Tx`,
 * so they cannot be called outside a write transaction.
 */
export type Tx = Db & { readonly [writing]: true }

/** A callback's result that is not a promise: an `await` inside a transaction would commit it early. */
type Sync<T> = T extends PromiseLike<unknown> ? never : T

/**
 * The one way to write: BEGIN IMMEDIATE takes the write lock before the first read, so two requests
 * cannot both read the old stock and both write (docs/transactions.md). `work` must be synchronous, by
 * type and at run time. Inside an open transaction it is a savepoint.
 */
export function writeTransaction<T>(db: Db, work: (tx: Tx) => Sync<T>): T {
  return inTransaction(db, 'write', work as (tx: Db) => T)
}

/**
 * The one way to read several statements as one snapshot, and cheaper than a transaction per
 * statement: every statement outside a transaction opens and ends one of its own.
 */
export function readTransaction<T>(db: Db, work: (tx: Db) => Sync<T>): T {
  return inTransaction(db, 'read', work as (tx: Db) => T)
}

function inTransaction<T>(db: Db, kind: 'read' | 'write', work: (tx: Db) => T): T {
  const control = controls(db.$client)
  const nested = db.$client.inTransaction
  ;(nested ? control.savepoint : kind === 'write' ? control.beginImmediate : control.begin).run()
  try {
    const result = work(db)
    if (result instanceof Promise) throw new Error(`${kind}Transaction callback must be synchronous`)
    ;(nested ? control.release : control.commit).run()
    return result
  } catch (error) {
    // A failed COMMIT (or SQLite's own rollback after some errors) can leave no transaction to end.
    if (!db.$client.inTransaction) throw error
    if (nested) {
      control.rollbackToSavepoint.run()
      control.release.run()
    } else control.rollback.run()
    throw error
  }
}

/** Prepared once per connection, instead of drizzle's transaction object and Bun's wrapper made on every call. */
const controls = perHandle((sqlite: Database) => ({
  begin: sqlite.prepare('BEGIN DEFERRED'),
  beginImmediate: sqlite.prepare('BEGIN IMMEDIATE'),
  commit: sqlite.prepare('COMMIT'),
  rollback: sqlite.prepare('ROLLBACK'),
  savepoint: sqlite.prepare('SAVEPOINT nested'),
  release: sqlite.prepare('RELEASE nested'),
  rollbackToSavepoint: sqlite.prepare('ROLLBACK TO nested'),
}))

/** True when SQLite refused a write because of a UNIQUE constraint (or a unique index). */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | undefined
  return e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || /UNIQUE constraint failed/.test(e?.message ?? '')
}
