import { eq } from 'drizzle-orm'
import { CHECK_STAMPS_ENV, type ChangeStamp } from '../db/change-stamp'
import { groupOpen, type Db } from '../db/database'
import { credentialChanges } from './tables'

/** Rows kept at most; past it they are dropped and read again (a flood of made-up keys takes no memory). */
const MAX_KEPT = 10_000

/**
 * Memos of the gate's credential rows, each `load` (a row by the value sent) kept until a credential
 * changes: the answer is always the one `load` would give now, while a cart add that writes on every
 * request keeps the buyer's key and session (docs/caches.md, "Credentials"). The memos share one
 * reading of the version below, so a write has it read once, whichever memo asks first.
 *
 * `credential_changes.n` is raised by triggers on every write to what such a row holds (migration
 * 0016). Rows are kept with the `n` they were read at, and are good for as long as `n` is the same.
 * Reading `n` is one statement, so it is read only when the database may have changed since it was
 * last read (ChangeStamp), and not inside a commit group opened since then: a group runs only the
 * grouped writes of the buying flow (every other writer commits it first, kernel/db/database.ts), and
 * none of them writes a credential, which the test suite checks on every such use. A row read inside
 * a transaction while `n` differs from the kept one is not kept: the transaction could still be
 * undone, and `n` return to an earlier value with other rows behind it.
 *
 * In the test suite (CHECK_STAMPS_ENV) every kept row is read again and compared, so a write that no
 * trigger counts fails a test.
 */
export function keptCredentials(db: Db, changes: ChangeStamp) {
  const version = db.select({ n: credentialChanges.n }).from(credentialChanges).where(eq(credentialChanges.id, 1)).prepare()
  const checked = process.env[CHECK_STAMPS_ENV] === '1'
  let keptAt: number | undefined
  /** The change stamp at which `keptAt` was last read, outside a transaction. */
  let confirmedAt: number | null = null
  /** Moves whenever `keptAt` does: a memo holding rows of another generation drops them. */
  let generation = 0
  /** Whether rows read at `keptAt` are those of now: the version is read again only when it may have moved. */
  const current = (stamp: number | null): boolean => {
    if (stamp !== null && stamp === confirmedAt) return true
    if (stamp === null && changes.committed() === confirmedAt && groupOpen(db)) {
      if (checked && version.get()?.n !== keptAt) throw new Error('a grouped write changed a credential: the gate would keep a stale row inside the commit group')
      return true
    }
    const now = version.get()?.n
    if (now === undefined) return false
    if (now !== keptAt) {
      if (stamp === null) return false
      keptAt = now
      generation++
    }
    if (stamp !== null) confirmedAt = stamp
    return true
  }
  return <V>(load: (key: string) => V): ((key: string) => V) => {
    let kept = new Map<string, V>()
    let keptGeneration = generation
    return (key) => {
      if (!current(changes.now())) return load(key)
      if (keptGeneration !== generation || kept.size >= MAX_KEPT) {
        kept = new Map()
        keptGeneration = generation
      }
      if (kept.has(key)) {
        const value = kept.get(key)!
        if (checked) compare(key, value, load(key))
        return value
      }
      const value = load(key)
      kept.set(key, value)
      return value
    }
  }
}

function compare(key: string, keptValue: unknown, now: unknown) {
  if (JSON.stringify(keptValue) !== JSON.stringify(now)) {
    throw new Error(`a kept credential row is stale (${key.slice(0, 8)}…): a write changed it without raising credential_changes`)
  }
}
