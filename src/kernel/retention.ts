import { inArray, sql, type SQL } from 'drizzle-orm'
import type { SQLiteTable } from 'drizzle-orm/sqlite-core'
import type { Clock } from './clock'
import { writeTransaction, type Db } from './db/database'
import type { Log } from './log'

/** Rows deleted per statement: a pass over a large backlog never holds the write lock for long. */
export const PRUNE_BATCH = 500
/** How often the pass runs; a missed pass costs nothing but rows kept a little longer. */
const EVERY_MS = 10 * 60_000
const DAY_MS = 24 * 60 * 60_000

/**
 * One kind of row that goes once old or over a bound. The feature that owns the rows says which
 * (webhook attempts, events, sessions, idempotency records); the runner below only schedules them.
 */
export interface Pruner {
  /** Names what it deletes, in the log. */
  what: string
  /**
   * Deletes at most `batch` rows that are due to go: older than `cutoff` (now minus the retention
   * days) or past the feature's own bound. Returns how many it deleted; fewer than `batch` means done.
   */
  prune(cutoff: number, now: number, batch: number): number
}

/** Deletes at most `batch` rows of `table` that `where` selects (the body of most pruners); returns how many. */
export function deleteBatch(db: Db, table: SQLiteTable, where: SQL | undefined, batch: number): number {
  const rows = db.select({ rowid: sql`rowid` }).from(table).where(where).limit(batch)
  return writeTransaction(db, (tx) => tx.delete(table).where(inArray(sql`rowid`, rows)).returning({ gone: sql`1` }).all().length)
}

/**
 * Prunes in the background what RETENTION_DAYS says may go, so the database stops growing under a
 * steady load. The cut-off comes from the injected clock and real timers only wake the pass, so
 * tests move a ManualClock and await `tick()`. Between batches the pass lets requests run.
 */
export class Retention {
  private running = false
  private stopped = false
  private timer: ReturnType<typeof setTimeout> | undefined
  private pass: Promise<Record<string, number>> | undefined

  constructor(
    private deps: { clock: Clock; log: Log; config: { retentionDays: number } },
    private pruners: Pruner[],
  ) {}

  start() {
    if (this.running) return
    this.running = true
    void this.tick()
  }

  /** Ends the timer, and a pass under way after its current batch. */
  async stop() {
    this.running = false
    this.stopped = true
    clearTimeout(this.timer)
    await this.pass
  }

  /** One pass over every pruner until each is done; returns how many rows each deleted. A pass already running is joined. */
  tick(): Promise<Record<string, number>> {
    this.pass ??= this.prune().finally(() => {
      this.pass = undefined
      this.schedule()
    })
    return this.pass
  }

  private async prune(): Promise<Record<string, number>> {
    const now = this.deps.clock.now()
    const cutoff = now - this.deps.config.retentionDays * DAY_MS
    const deleted: Record<string, number> = {}
    for (const pruner of this.pruners) {
      if (this.stopped) break
      let total = 0
      try {
        for (;;) {
          const n = pruner.prune(cutoff, now, PRUNE_BATCH)
          total += n
          if (n < PRUNE_BATCH || this.stopped) break
          await new Promise((resolve) => setImmediate(resolve))
        }
      } catch (e) {
        this.deps.log.error('pruning failed; trying again at the next pass', { what: pruner.what, error: (e as Error).message })
      }
      deleted[pruner.what] = total
    }
    return deleted
  }

  private schedule() {
    if (!this.running) return
    clearTimeout(this.timer)
    this.timer = setTimeout(() => void this.tick(), EVERY_MS)
    this.timer.unref?.()
  }
}
