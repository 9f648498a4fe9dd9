import type { Database } from 'bun:sqlite'

/**
 * Tells whether anything in the database may have changed since it was last asked: what lets a hot
 * read (the API key behind a request, a store's catalog version) be kept in memory with exact
 * invalidation, at the cost of one statement that reads no table instead of the rows themselves.
 *
 * The stamp is SQLite's `total_changes()`: the rows this connection inserted, updated or deleted
 * (triggers and cascades included, rolled-back ones too). It sees every change because this connection
 * is the only writer: the file is opened in exclusive locking mode (openDatabase), so no other process
 * can commit while it is open. Inside an open transaction nothing may be kept: what is read there could
 * still be rolled back.
 */
export class ChangeStamp {
  private readonly ownChanges

  constructor(private readonly sqlite: Database) {
    this.ownChanges = sqlite.query<{ n: number }, []>('select total_changes() as n')
  }

  /** The current stamp, or null inside a transaction (then nothing may be kept). */
  now(): number | null {
    if (this.sqlite.inTransaction) return null
    return this.ownChanges.get()!.n
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
