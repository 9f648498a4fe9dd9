import type { Database } from 'bun:sqlite'
import { transactionsEnded } from './database'

/**
 * The switch that has every stamp checked against SQLite's own count of changed rows; the test suite
 * sets it (test/setup.ts), so a write that bypassed the transactions of database.ts fails a test.
 */
export const CHECK_STAMPS_ENV = 'STOREFRONT_CHECK_STAMPS'

/**
 * Tells whether anything in the database may have changed since it was last asked: what lets a hot
 * read (the API key behind a request, a store's catalog version) be kept in memory with exact
 * invalidation, at the cost of reading a number.
 *
 * The stamp is the number of transactions ended on this connection (database.ts counts them where it
 * commits or rolls back). It sees every change because every write is in such a transaction and this connection
 * is the only writer: its process holds the file alone (openDatabase), so no other process can commit
 * while it is open, and the checkpoints' thread changes no row. Inside an open transaction nothing may
 * be kept: what is read there could still be rolled back.
 */
export class ChangeStamp {
  private readonly check: (() => void) | undefined

  constructor(private readonly sqlite: Database) {
    this.check = process.env[CHECK_STAMPS_ENV] === '1' ? rowChangesCheck(sqlite) : undefined
  }

  /** The current stamp, or null inside a transaction (then nothing may be kept). */
  now(): number | null {
    if (this.sqlite.inTransaction) return null
    this.check?.()
    return transactionsEnded(this.sqlite)
  }

  /** The stamp of what is committed, inside a transaction too: it moves when the transaction ends. */
  committed(): number {
    return transactionsEnded(this.sqlite)
  }
}

/**
 * SQLite's `total_changes()` (rows inserted, updated or deleted on the connection, triggers included)
 * must not move while no transaction ends: if it does, a write committed outside the
 * transactions of database.ts, and a kept read could be served stale.
 */
function rowChangesCheck(sqlite: Database) {
  const rows = sqlite.query<{ n: number }, []>('select total_changes() as n')
  let last = { rows: rows.get()!.n, ended: transactionsEnded(sqlite) }
  return () => {
    const now = { rows: rows.get()!.n, ended: transactionsEnded(sqlite) }
    const bypassed = now.rows !== last.rows && now.ended === last.ended
    last = now

    if (bypassed) throw new Error('rows changed outside a transaction of database.ts (writeTransaction, groupedWrite): a kept read could be stale')
  }
}

/**
 * `load` memoized per key until the database changes (ChangeStamp): the answer is always the one
 * `load` would give now. The cache is emptied whole on any change, so it never holds more than the
 * keys asked since the last write.
 */
export function untilChanged<K, V>(stamp: ChangeStamp, load: (key: K) => V): (key: K) => V {
  let kept = new Map<K, V>()
  let keptAt: number | null = null
  return (key) => {
    const now = stamp.now()
    if (now === null) return load(key)
    // A flood of unknown keys between two writes must not grow the map without end.
    if (now !== keptAt || kept.size >= 10_000) {
      kept = new Map()
      keptAt = now
    }
    if (kept.has(key)) return kept.get(key)!
    const value = load(key)
    kept.set(key, value)
    return value
  }
}
