import type { Database } from 'bun:sqlite'

/**
 * Tells whether anything in the database may have changed since it was last asked: what lets a hot
 * read (the API key behind a request, a store's catalog version) be kept in memory with exact
 * invalidation. Every statement outside a transaction pays for opening one (about 8 µs in WAL mode,
 * a third of a cached list page); this costs one such opening instead of several, and none for the
 * rows themselves.
 *
 * The stamp joins SQLite's two change counters: `total_changes()` counts the rows this connection
 * inserted, updated or deleted (triggers and cascades included, rolled-back ones too; it reads no
 * table, so it costs no transaction), and `data_version` moves when another connection (the CLI's
 * `groups import`) commits. Reading `data_version` opens a transaction, so it is read once per turn of
 * the event loop: another process's commit is seen from the next turn on, as if it had landed a moment
 * later; this process's own writes are seen at once. Inside an open transaction nothing may be kept:
 * what is read there could still be rolled back.
 */
export class ChangeStamp {
  private readonly ownChanges
  private readonly otherChanges
  private others: number | null = null

  constructor(private readonly sqlite: Database) {
    this.ownChanges = sqlite.query<{ n: number }, []>('select total_changes() as n')
    this.otherChanges = sqlite.query<{ data_version: number }, []>('pragma data_version')
  }

  /** The current stamp, or null inside a transaction (then nothing may be kept). */
  now(): string | null {
    if (this.sqlite.inTransaction) return null
    if (this.others === null) {
      this.others = this.otherChanges.get()!.data_version
      setImmediate(() => (this.others = null))
    }
    return `${this.ownChanges.get()!.n}.${this.others}`
  }
}

/**
 * `load` memoized per key until the database changes (ChangeStamp): the answer is always the one
 * `load` would give now. The cache is emptied whole on any change, so it never holds more than the
 * keys asked since the last write.
 */
export function untilChanged<K, V>(stamp: ChangeStamp, load: (key: K) => V): (key: K) => V {
  let kept = new Map<K, V>()
  let keptAt: string | null = null
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
