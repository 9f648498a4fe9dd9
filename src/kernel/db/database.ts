import type { Database, Statement } from 'bun:sqlite'
import type { BunSQLiteDatabase } from 'drizzle-orm/bun-sqlite'
import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core'

// A connection's statements and transactions: the one way to read a snapshot or write, commit groups,
// and the count of what ended. Opening the file, and closing it, is open.ts.

export type Db = BunSQLiteDatabase & { $client: Database }
/** The database or a transaction on it: what a service function writes through. */
export type Sql = BaseSQLiteDatabase<'sync', unknown>

/**
 * drizzle prepares every statement it runs, and compiling one was a good share of an order's CPU time
 * (bench/README.md). The hot paths hold their statements (perHandle); for the others, built as they
 * run (a page of a list, the panel's reads), the connection keeps the last STATEMENTS_KEPT compiled
 * statements by SQL text, so a text seen before is not compiled again (Bun's own `query` cache keeps
 * only the first 20 texts of a connection, and compiles any later one at every call: docs/caches.md).
 * Sharing a statement is safe because drizzle runs each statement to completion synchronously and never
 * finalizes it; one pushed out of the cache stays valid for whoever holds it. Code that uses `sqlite`
 * directly is left with the uncached `prepare`.
 *
 * `finalizeAll` ends every statement made here that is still alive, before the connection closes: a
 * statement left unfinalized keeps the file open after `close()` (SQLite's "zombie" connection), and
 * Windows then refuses to delete or replace it (a failed first start removing the folder it made).
 */
export function cachingStatements(sqlite: Database): { client: Database; finalizeAll(): void } {
  const kept = new Map<string, Statement>()
  const made = new Set<WeakRef<Statement>>()
  const gone = new FinalizationRegistry<WeakRef<Statement>>((ref) => made.delete(ref))
  const statementFor = (sql: string): Statement => {
    const found = kept.get(sql)
    if (found) {
      // The most recently used last: the first in the map is the one to push out.
      kept.delete(sql)
      kept.set(sql, found)
      return found
    }
    const statement = sqlite.prepare(compiledOnce(sql))
    const ref = new WeakRef(statement)
    made.add(ref)
    gone.register(statement, ref)
    kept.set(sql, statement)
    if (kept.size > STATEMENTS_KEPT) kept.delete(kept.keys().next().value!)
    return statement
  }
  const client = new Proxy(sqlite, {
    get(target, prop) {
      if (prop === CONNECTION) return target
      if (prop === 'prepare') {
        return (sql: string) => {
          // drizzle prepares each statement as it runs it: a write outside a transaction is counted here.
          if (!target.inTransaction && WRITES.test(sql)) ended(target)
          return statementFor(sql)
        }
      }
      const value = Reflect.get(target, prop, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
  const finalizeAll = () => {
    for (const ref of made) ref.deref()?.finalize()
    made.clear()
    kept.clear()
  }
  return { client, finalizeAll }
}

/** Compiled statements a connection keeps by SQL text, the least recently used going first. */
export const STATEMENTS_KEPT = 256

/**
 * The SQL with each parameter written `+?`: the same value to SQLite, but one its query planner does
 * not look into. bun:sqlite clears a statement's bindings before every run that passes values
 * (`sqlite3_clear_bindings`), and SQLite (3.54) takes that as a new value of every parameter its
 * planner looked at when compiling (a LIMIT, an ORDER BY it could skip, a partial index it checked):
 * the statement is compiled again on that run. Seventeen statements of the buying flow, the catalog
 * and the timers were compiled on every run so, each run 8 to 70 µs slower than the statement itself
 * (docs/caches.md). A plan that needs a value (a partial index's `status = 'PENDING'`) has it
 * written in the SQL as a literal. Quoted text and numbered parameters are left as they are.
 */
export const compiledOnce = (sql: string): string => (sql.includes('?') ? sql.replace(PARAMETER_OR_QUOTED, (found) => (found === '?' ? '+?' : found)) : sql)

/** A quoted string or name (kept as it is), or a bare `?` not already written `+?`. */
const PARAMETER_OR_QUOTED = /'[^']*'|"[^"]*"|`[^`]*`|(?<!\+)\?(?![0-9])/g

/** SQL that changes rows (a WITH clause may start one). */
const WRITES = /^\s*(insert|update|delete|replace|with)\b/i

/** What the proxy above answers with the connection it wraps. */
const CONNECTION = Symbol('connection')

/**
 * Per connection: what is kept for a connection is found from the connection itself and from the
 * proxy drizzle holds (`db.$client`) alike.
 */
const perConnection = <T>(build: (sqlite: Database) => T) => {
  const kept = new WeakMap<Database, T>()
  return (sqlite: Database) => {
    const known = kept.get(sqlite)
    if (known !== undefined) return known
    // Asked first with this handle: found by the connection, then kept under the handle too, so the
    // proxy's trap runs once per handle, not on every call.
    const connection = (sqlite as Database & { [CONNECTION]?: Database })[CONNECTION] ?? sqlite
    let value = kept.get(connection)
    if (value === undefined) kept.set(connection, (value = build(sqlite)))
    kept.set(sqlite, value)
    return value
  }
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
  const sqlite = db.$client
  // Another writer or reader does not share a commit group: the group's writes commit first.
  const group = groups(sqlite)
  if (group.open && !group.working) commitGroup(sqlite)
  const control = controls(sqlite)
  const nested = sqlite.inTransaction
  ;(nested ? control.savepoint : kind === 'write' ? control.beginImmediate : control.begin).run()
  try {
    const result = work(db)
    if (result instanceof Promise) throw new Error(`${kind}Transaction callback must be synchronous`)
    ;(nested ? control.release : control.commit).run()
    if (!nested) committed(sqlite)
    return result
  } catch (error) {
    // A failed COMMIT (or SQLite's own rollback after some errors) can leave no transaction to end.
    if (!sqlite.inTransaction) throw error
    if (nested) {
      control.rollbackToSavepoint.run()
      control.release.run()
    } else {
      control.rollback.run()
      ended(sqlite)
    }
    throw error
  }
}

interface Group {
  /** Settles when the group has committed, or could not (then with the reason). */
  done: Promise<void>
  resolve(): void
  reject(reason: unknown): void
}

/** Per connection: the commit group open now, if any, and whether a grouped write's work is running in it. */
const groups = perConnection((_sqlite: Database) => ({ open: null as Group | null, working: false }))

/**
 * A write that commits together with the other grouped writes of the same turn of the event loop
 * (docs/transactions.md): the first one opens a transaction (BEGIN IMMEDIATE), the next ones each run
 * in a savepoint inside it, and it commits once, at the end of the turn (setImmediate). Committing is
 * most of the cost of a small write (bench/README.md), and a group pays it once. Its promise settles
 * only after that COMMIT, so nothing it answers can be undone afterwards; its own failure rolls back
 * its savepoint alone.
 */
export async function groupedWrite<T>(db: Db, work: (tx: Tx) => Sync<T>): Promise<T> {
  const sqlite = db.$client
  const state = groups(sqlite)
  // Inside a transaction of its own caller, it is part of that transaction, as writeTransaction is.
  if (state.working || (sqlite.inTransaction && !state.open)) return writeTransaction(db, work)
  let group = openGroup(sqlite)
  let result: { value: T } | { error: unknown }
  state.working = true
  try {
    if (group) result = { value: inTransaction(db, 'write', work as (tx: Db) => T) }
    else {
      result = { value: firstOfGroup(db, work as (tx: Db) => T) }
      group = state.open!
    }
  } catch (error) {
    // The first write of a group read nothing that is not committed, and nothing of it stays.
    if (!group) throw error
    result = { error }
  } finally {
    state.working = false
  }
  await group.done
  if ('error' in result) throw result.error
  return result.value
}

/**
 * The first grouped write of a turn runs in a transaction of its own, not in a savepoint; when its work
 * succeeds, the transaction stays open as the group's, to commit at the end of the turn.
 */
function firstOfGroup<T>(db: Db, work: (tx: Db) => T): T {
  const sqlite = db.$client
  const control = controls(sqlite)
  control.beginImmediate.run()
  let result: T
  try {
    result = work(db)
    if (result instanceof Promise) throw new Error('groupedWrite callback must be synchronous')
  } catch (error) {
    if (sqlite.inTransaction) control.rollback.run()
    ended(sqlite)
    throw error
  }
  let resolve!: () => void
  let reject!: (reason: unknown) => void
  const done = new Promise<void>((ok, fail) => ((resolve = ok), (reject = fail)))
  // Its writers await it; a group whose writers all failed on their own has no one else to tell.
  done.catch(() => {})
  const group = { done, resolve, reject }
  const state = groups(sqlite)
  state.open = group
  setImmediate(() => {
    if (state.open === group) commitGroup(sqlite)
  })
  return result
}

/**
 * The open group, if its transaction is still there. SQLite rolls a transaction back itself after some
 * errors (a full disk, an I/O error): the group's writes are then gone, and its writers learn it.
 */
function openGroup(sqlite: Database): Group | null {
  const state = groups(sqlite)
  if (state.open && !sqlite.inTransaction) failGroup(sqlite, state.open, new Error('the transaction of the grouped writes was rolled back by SQLite'))
  return state.open
}

function failGroup(sqlite: Database, group: Group, reason: unknown) {
  groups(sqlite).open = null
  if (sqlite.inTransaction) controls(sqlite).rollback.run()
  ended(sqlite)
  group.reject(reason)
}

/**
 * Commits the open commit group now, if there is one: before a transaction of other code, or anything
 * that must not run inside a transaction (closing the database, `VACUUM INTO`).
 */
export function commitGroup(sqlite: Database) {
  const group = openGroup(sqlite)
  if (!group) return
  try {
    controls(sqlite).commit.run()
  } catch (error) {
    return failGroup(sqlite, group, error)
  }
  groups(sqlite).open = null
  committed(sqlite)
  group.resolve()
}

/**
 * Resolves once no commit group is open on the connection: with nothing when the groups it waited for
 * committed, or with the reason the first one that could not did not.
 */
export async function groupsSettled(db: Db): Promise<unknown> {
  let failure: unknown
  for (let group = groups(db.$client).open; group; group = groups(db.$client).open) {
    const reason = await group.done.then(
      () => undefined,
      (e: unknown) => e ?? new Error('the commit group failed'),
    )
    failure ??= reason
  }
  return failure
}

/** Whether a commit group is open on the connection now. */
export const groupOpen = (db: Db) => groups(db.$client).open !== null

/**
 * Per connection, how many transactions have ended (committed or rolled back) and how many writes
 * drizzle ran outside one: what tells a kept read whether the database may have changed since
 * (change-stamp.ts). A rollback changes nothing, but counting it keeps the count a plain fact about
 * the connection, checkable against SQLite's own count of changed rows (ChangeStamp's check, in tests).
 */
const transactions = perConnection((_sqlite: Database) => ({ ended: 0, afterCommit: undefined as (() => void) | undefined }))
const ended = (sqlite: Database) => void transactions(sqlite).ended++

/** What runs after each commit of the connection, or nothing: the checkpoints' thread's part (open.ts). */
export function afterEveryCommit(sqlite: Database, hook: (() => void) | undefined) {
  transactions(sqlite).afterCommit = hook
}

/** A transaction committed: counted, and the hook hears of it. */
function committed(sqlite: Database) {
  const kept = transactions(sqlite)
  kept.ended++
  kept.afterCommit?.()
}

/** The number of transactions ended on the connection so far. */
export const transactionsEnded = (sqlite: Database) => transactions(sqlite).ended

/**
 * Prepared once per connection, instead of drizzle's transaction object and Bun's wrapper made on
 * every call; with `query`, which closing the connection finalizes (an unfinalized statement would
 * keep the file open).
 */
const controls = perConnection((sqlite: Database) => ({
  begin: sqlite.query('BEGIN DEFERRED'),
  beginImmediate: sqlite.query('BEGIN IMMEDIATE'),
  commit: sqlite.query('COMMIT'),
  rollback: sqlite.query('ROLLBACK'),
  savepoint: sqlite.query('SAVEPOINT nested'),
  release: sqlite.query('RELEASE nested'),
  rollbackToSavepoint: sqlite.query('ROLLBACK TO nested'),
}))

/** True when SQLite refused a write because of a UNIQUE constraint (or a unique index). */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | undefined
  return e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || /UNIQUE constraint failed/.test(e?.message ?? '')
}
