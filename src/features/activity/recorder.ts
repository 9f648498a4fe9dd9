import { eq, sql } from 'drizzle-orm'
import type { CallRecorder } from '../../kernel/auth/gate'
import { apiKeys } from '../../kernel/auth/tables'
import type { Clock } from '../../kernel/clock'
import { isShopFront, type StoreCtx } from '../../kernel/auth/kinds'
import { writeTransaction, type Db } from '../../kernel/db/database'
import type { Lifecycle } from '../../kernel/lifecycle'
import type { Log } from '../../kernel/log'
import { activityCounts, SHOP_FRONT_RM } from './tables'

const HOUR = 60 * 60 * 1000
/** Buffered counts reach the database at least this often, and at shutdown. */
export const FLUSH_INTERVAL_MS = 1000

interface Pending {
  groupId: string
  rm: string
  hourStart: number
  calls: number
  errors: number
  lastCallAt: number
}

/**
 * Counts calls in memory and writes them in one transaction per flush, so counting costs a request
 * no database write. Also remembers when each API key was last used.
 */
export class ActivityRecorder implements CallRecorder {
  /** Every entry not yet written, in the order they were opened. */
  private pending: Pending[] = []
  /** Per group and RM, the entry of the current hour: found with no key string built per call. */
  private latest = new Map<string, Map<string, Pending>>()
  private keysUsed = new Map<string, number>()
  private timer: ReturnType<typeof setInterval> | undefined

  constructor(
    private db: Db,
    private clock: Clock,
    private log: Log,
  ) {}

  private entry(caller: StoreCtx, now: number): Pending {
    const hourStart = now - (now % HOUR)
    // A publishable key's call is the shop front's whatever X-Student-RM says (the gate drops it too).
    const rm = isShopFront(caller.actor) ? SHOP_FRONT_RM : (caller.actor.rm ?? '')
    let byRm = this.latest.get(caller.groupId)
    if (!byRm) this.latest.set(caller.groupId, (byRm = new Map()))
    let entry = byRm.get(rm)
    if (entry?.hourStart !== hourStart) {
      // A new hour (or the first call since the last flush): the previous entry stays pending as it is.
      byRm.set(rm, (entry = { groupId: caller.groupId, rm, hourStart, calls: 0, errors: 0, lastCallAt: now }))
      this.pending.push(entry)
    }
    return entry
  }

  count(caller: StoreCtx) {
    const now = this.clock.now()
    const entry = this.entry(caller, now)
    entry.calls += 1
    entry.lastCallAt = now
    if (caller.actor.type !== 'student') this.keysUsed.set(caller.actor.keyId, now)
  }

  countError(caller: StoreCtx) {
    this.entry(caller, this.clock.now()).errors += 1
  }

  flush() {
    if (this.pending.length === 0 && this.keysUsed.size === 0) return
    // Synchronous from here to the clear: no call can be recorded in between, and on failure
    // nothing is cleared, so the counts wait for the next flush.
    writeTransaction(this.db, (tx) => {
      for (const c of this.pending) {
        tx.insert(activityCounts)
          .values(c)
          .onConflictDoUpdate({
            target: [activityCounts.groupId, activityCounts.rm, activityCounts.hourStart],
            set: {
              calls: sql`${activityCounts.calls} + excluded.calls`,
              errors: sql`${activityCounts.errors} + excluded.errors`,
              lastCallAt: sql`max(${activityCounts.lastCallAt}, excluded.last_call_at)`,
            },
          })
          .run()
      }
      for (const [keyId, at] of this.keysUsed) tx.update(apiKeys).set({ lastUsedAt: at }).where(eq(apiKeys.id, keyId)).run()
    })
    this.pending = []
    this.latest.clear()
    this.keysUsed.clear()
  }

  /** Flushes every second until the server stops, then once more. */
  start(lifecycle: Lifecycle) {
    this.timer = setInterval(() => {
      try {
        this.flush()
      } catch (e) {
        this.log.error('activity flush failed; counts kept for the next try', { error: (e as Error).message })
      }
    }, FLUSH_INTERVAL_MS)
    this.timer.unref()
    lifecycle.onStop(() => this.stop())
  }

  /** Ends the timed flushes and writes what is pending. Calls are still counted, and written by the next flush(). */
  stop() {
    clearInterval(this.timer)
    this.timer = undefined
    this.flush()
  }
}
