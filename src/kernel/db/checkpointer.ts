import type { Database } from 'bun:sqlite'

/**
 * A WAL checkpoint copies the pages the log holds back into the database file and `fsync`s both: about
 * 10 ms for the 500 random pages of a busy second, most of it waiting on the disk. Run by the connection
 * that commits (SQLite's automatic checkpoint), that wait held the event loop, and every request in
 * flight with it (bench/README.md). Here a thread of its own, with its own connection, does it:
 *
 * - every `everyMs` a PASSIVE checkpoint, which copies what the log holds without stopping readers or
 *   the writer;
 * - once the log is `restartAtFrames` long, the main connection checkpoints what the thread has not
 *   copied yet, right after one of its commits (`afterCommit`), so that its next write starts the log
 *   over. Under a steady load the thread's checkpoint never finds the log still (a commit lands while
 *   it copies), so the log would grow without end; and the thread cannot stop the writer itself
 *   without the main thread sleeping in SQLite's busy handler (tried: 150 ms a time). Before it asks,
 *   the thread checkpoints again at once until one of its checkpoints is short (`SHORT_MS`), so that
 *   what is left for the connection is a few milliseconds' commits, not a whole turn's.
 *
 * The main connection's automatic checkpoints are turned off while the thread runs, and back on when
 * it fails (`trouble` hears why) so the log never grows unchecked. `stop` ends the thread
 * and waits until its connection is closed. docs/transactions.md says why and what it costs.
 */
export interface CheckpointOptions {
  everyMs: number
  restartAtFrames: number
  /** Told, on the main thread, when checkpoints fail: a sentence for the server's log. */
  trouble(message: string): void
}

/**
 * Every 100 ms: each checkpoint copies a page once however often it changed since the last one, and
 * syncs both files; every 20 ms, the thread took about twice the CPU an order (bench/README.md, "The
 * page cache, drizzle's work per run, and the checkpoints' pace"). The log is synced at each
 * checkpoint, so a power cut can lose the commits of the last turn (docs/transactions.md).
 *
 * 16,384 pages (a log of about 64 MiB, under a load that never pauses): each time the connection
 * helps, it holds the event loop 8 to 18 ms, most of it two fsyncs; at 4,096 pages that was 3.5 to 5.5
 * times a second under whole orders, at 16,384 about once (bench/README.md, "The connection's share of
 * the checkpoints").
 */
export const CHECKPOINT_DEFAULTS = { everyMs: 100, restartAtFrames: 16_384 }

/**
 * Once the log is long, the thread checkpoints again until a checkpoint takes less than this (ms), at
 * most `AGAIN_AT_MOST` times, before it asks the connection to help.
 */
const SHORT_MS = 2
const AGAIN_AT_MOST = 8

/** SQLite's own automatic checkpoint, in pages of log: what the main connection goes back to. */
const AUTOMATIC_CHECKPOINT_PAGES = 1000

export interface Checkpointer {
  /** For the main connection after each commit: checkpoints what is left once the log is long. */
  afterCommit(): void
  /** Ends the thread, waiting (up to STOP_WAIT_MS) until its connection is closed. */
  stop(): void
}

// Slots of the shared state: the main thread sets STOP; the thread sets CLOSED as its last act, and
// LONG when its checkpoint found the log `restartAtFrames` long.
const STOP = 0
const CLOSED = 1
const LONG = 2

/** How long `stop` waits for the thread's connection to close (a checkpoint under way ends first). */
const STOP_WAIT_MS = 10_000

/**
 * The thread's code, as text: a worker made from a Blob needs no file beside the compiled executable.
 * It blocks in Atomics.wait between checkpoints, so `stop` wakes it at once. Its connection opens
 * `name` with the same flags as the main one (the VFS in the URI lets both in).
 */
const THREAD = `
const { Database } = require('bun:sqlite')
self.onmessage = ({ data }) => {
  const state = new Int32Array(data.state)
  let db
  try {
    db = new Database(data.name, data.flags)
    db.exec('PRAGMA busy_timeout = 5000')
    const passive = db.query('PRAGMA wal_checkpoint(PASSIVE)')
    let reported = false
    while (Atomics.wait(state, ${STOP}, 0, data.everyMs) === 'timed-out') {
      try {
        if (passive.get().log >= data.restartAtFrames) {
          for (let again = 0; again < ${AGAIN_AT_MOST} && Atomics.load(state, ${STOP}) === 0; again++) {
            const started = performance.now()
            passive.get()
            if (performance.now() - started < ${SHORT_MS}) break
          }
          Atomics.store(state, ${LONG}, 1)
        }
      } catch (e) {
        // A full disk or a long reader: the next turn tries again; the main thread hears of it once.
        if (!reported) postMessage({ warning: String(e && e.message || e) })
        reported = true
      }
    }
  } catch (e) {
    postMessage({ error: String(e && e.message || e) })
  } finally {
    try { db && db.close() } catch {}
    Atomics.store(state, ${CLOSED}, 1)
    Atomics.notify(state, ${CLOSED})
  }
}
`

export function startCheckpointer(sqlite: Database, name: string, flags: number, options: CheckpointOptions): Checkpointer {
  const state = new Int32Array(new SharedArrayBuffer(12))
  const url = URL.createObjectURL(new Blob([THREAD], { type: 'application/javascript' }))
  const worker = new Worker(url)
  let ended = false
  /** The connection checkpoints itself again; true the first time only. */
  const handBack = () => {
    if (ended) return false
    ended = true
    // Not before: the worker reads its code from the URL after it is made.
    URL.revokeObjectURL(url)
    sqlite.exec(`PRAGMA wal_autocheckpoint = ${AUTOMATIC_CHECKPOINT_PAGES}`)
    return true
  }
  const fail = (error: string) => {
    if (handBack()) options.trouble(`the checkpoints' thread stopped (${error}); the server checkpoints the database on its own thread from now on`)
  }
  worker.onmessage = ({ data }: MessageEvent<{ error?: string; warning?: string }>) => {
    if (data.error) fail(data.error)
    else if (data.warning) options.trouble(`a checkpoint of the database failed (${data.warning}); it is tried again every ${options.everyMs} ms`)
  }
  worker.onerror = (e) => fail(e.message)
  // The thread never keeps the process alive: a server stops through `stop`, a crash needs no cleanup.
  worker.unref()
  sqlite.exec('PRAGMA wal_autocheckpoint = 0')
  const leftOver = sqlite.prepare('PRAGMA wal_checkpoint(PASSIVE)')
  worker.postMessage({ state: state.buffer, name, flags, everyMs: options.everyMs, restartAtFrames: options.restartAtFrames })
  return {
    afterCommit() {
      if (state[LONG] === 0) return
      Atomics.store(state, LONG, 0)
      try {
        leftOver.get()
      } catch {
        // The commit stands; the thread's next turn says whether the log is still long (and, with the
        // disk full, reports it).
      }
    },
    stop() {
      Atomics.store(state, STOP, 1)
      Atomics.notify(state, STOP)
      Atomics.wait(state, CLOSED, 0, STOP_WAIT_MS)
      worker.terminate()
      leftOver.finalize()
      handBack()
    },
  }
}
