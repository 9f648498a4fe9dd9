import { constants, Database } from 'bun:sqlite'
import { basename, resolve } from 'node:path'
import { drizzle } from 'drizzle-orm/bun-sqlite'
import { platform } from '../platform'
import { CHECKPOINT_DEFAULTS, startCheckpointer, type CheckpointOptions, type Checkpointer } from './checkpointer'
import { afterEveryCommit, cachingStatements, commitGroup, type Db } from './database'

export interface OpenDatabase {
  sqlite: Database
  db: Db
  /**
   * Hands the WAL checkpoints to a thread of their own (checkpointer.ts), started at the first commit
   * that changes a row, where the file's VFS lets a second connection in; false where it does not
   * (Windows), and the connection keeps checkpointing.
   */
  checkpointInBackground(options: Partial<CheckpointOptions> & Pick<CheckpointOptions, 'trouble'>): boolean
  /**
   * Commits the open group, stops the checkpoints' thread, folds the WAL into the file and closes.
   * Closes even when the folding fails (a full disk): then says why, for the log; the WAL stays
   * beside the file, and the next open reads it.
   */
  close(): string | undefined
}

/** Another process holds the database file: a second server, or a command run beside the server. */
export class DatabaseInUse extends Error {}

/**
 * Opens (or creates) the SQLite file with the settings every connection needs: WAL, foreign keys on,
 * and the file held by this process alone for as long as it is open.
 *
 * On Linux and macOS the `unix-excl` VFS (platform.ts) holds the file's lock for the process and keeps
 * the WAL index in its memory; on Windows `locking_mode = EXCLUSIVE`, set before WAL is entered, does
 * the same for the one connection. Either way the file locks are taken once instead of on every
 * transaction, which makes a statement outside a transaction, and a transaction's BEGIN and
 * COMMIT, markedly cheaper (bench/README.md), and no other process can open the file while this one
 * has it: the teacher's commands reach a running server through its control socket (src/cli/jobs.ts),
 * and a second server on the same folder is told which one holds it. The VFS lets the checkpoints'
 * thread of the same process in (`checkpointInBackground`).
 */
export function openDatabase(file: string, vfs = platform.processLockingVfs): OpenDatabase {
  let name = connectionName(file, vfs)
  let sqlite: Database
  try {
    sqlite = new Database(name, OPEN_FLAGS)
  } catch (e) {
    // A SQLite built without the VFS (a system library of another build): the Windows way then.
    if (name === file || !/no such vfs/i.test((e as Error).message)) throw e
    sqlite = new Database((name = file), OPEN_FLAGS)
  }
  try {
    // A command finishing its work on the folder is waited for; a running server is not let go.
    sqlite.exec('PRAGMA busy_timeout = 5000')
    if (name === file) sqlite.exec('PRAGMA locking_mode = EXCLUSIVE')
    sqlite.exec('PRAGMA journal_mode = WAL')
  } catch (e) {
    sqlite.close()
    if ((e as { code?: string }).code === 'SQLITE_BUSY') throw new DatabaseInUse(`${file} is in use by another process`)
    throw e
  }
  sqlite.exec('PRAGMA synchronous = NORMAL')
  // A grouped write's savepoint journals the pages it changes; past 64 KiB SQLite moved that journal to
  // a temporary file, written a page per system call: 7 of every 8 writes under a load of orders. In
  // memory it is emptied as each savepoint ends (docs/transactions.md, which says what else it keeps).
  sqlite.exec('PRAGMA temp_store = MEMORY')
  sqlite.exec('PRAGMA foreign_keys = ON')
  // SQLite's page cache (KiB when negative), 2 MiB by default, held too few of the pages that orders of
  // random products touch: each read about five pages back from the files, a system call each
  // (bench/README.md, "The page cache, drizzle's work per run, and the checkpoints' pace"). 32 MiB is a
  // most: it fills only with pages that are read.
  sqlite.exec('PRAGMA cache_size = -32768')
  const statements = cachingStatements(sqlite)
  const db = drizzle({ client: statements.client })
  let checkpointer: Checkpointer | undefined
  let asked = false
  return {
    sqlite,
    db,
    checkpointInBackground(options) {
      if (name === file) return false
      if (asked) return true
      asked = true
      // The thread starts with the first commit that changed a row (the webhooks' empty turns change
      // none): a thread is about 4.6 MiB, which a server nobody writes to keeps (bench/README.md).
      const changes = sqlite.query<{ n: number }, []>('SELECT total_changes() AS n')
      const before = changes.get()!.n
      afterEveryCommit(sqlite, () => {
        if (changes.get()!.n === before) return
        checkpointer = startCheckpointer(sqlite, name, OPEN_FLAGS, { ...CHECKPOINT_DEFAULTS, ...options })
        afterEveryCommit(sqlite, checkpointer.afterCommit)
      })
      return true
    },
    close() {
      commitGroup(sqlite)
      afterEveryCommit(sqlite, undefined)
      checkpointer?.stop()
      // Fold the WAL back into the main file so a copied data dir is complete on its own.
      let kept: string | undefined
      try {
        sqlite.exec('PRAGMA wal_checkpoint(TRUNCATE)')
      } catch (e) {
        kept = `the database's log could not be folded into ${file} (${(e as Error).message}): ${basename(file)}-wal stays beside it, and is read at the next start; copy the two files together`
      }
      statements.finalizeAll()
      sqlite.close()
      return kept
    },
  }
}

/**
 * Bun's options object cannot ask for a URI name, so the flags are given as SQLite's own, on every
 * system alike. Without the object there is no `strict` either: names still bind without their `$`,
 * and a parameter left out binds NULL instead of throwing.
 */
const OPEN_FLAGS = constants.SQLITE_OPEN_READWRITE | constants.SQLITE_OPEN_CREATE | constants.SQLITE_OPEN_URI

/**
 * The file as a URI naming the process-locking VFS, where the platform has one; the plain name
 * otherwise (and for `:memory:`). In a URI's path `%`, `?` and `#` are escaped; the path is made
 * absolute, so that it starts with one `/` and is never read as a host.
 */
export function connectionName(file: string, vfs = platform.processLockingVfs): string {
  if (!vfs || file === ':memory:') return file
  const path = resolve(file).replace(/[%?#]/g, encodeURIComponent)
  return `file:${path}?vfs=${vfs}`
}
