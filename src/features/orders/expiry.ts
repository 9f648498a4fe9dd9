import { and, asc, lte, min } from 'drizzle-orm'
import { writeTransaction } from '../../kernel/db/database'
import { pendingOnly } from '../../kernel/db/pending'
import type { Deps } from '../../kernel/deps'
import { cancelOrder } from './changes'
import { orders } from './tables'

/** Orders expired per transaction, so a large backlog never holds the write lock for long. */
const BATCH = 200
/** As the partial index of pending orders is written, so that the planner reads it. */
const isPending = pendingOnly(orders.status)
/** Even with nothing due the loop looks again this often. */
const HEARTBEAT_MS = 60_000

/**
 * Cancels PENDING orders unpaid for RESERVATION_TTL_MINUTES, reason EXPIRED. The due
 * times live in the orders table and are compared with the injected clock, so the work survives a
 * restart (what fell due while the server was down is done at start) and tests move a ManualClock
 * and call `tick()` instead of sleeping. Real timers only wake the loop, and only once started.
 */
export class OrderExpiry {
  private running = false
  private timer: ReturnType<typeof setTimeout> | undefined
  private timerAt = Infinity

  constructor(private deps: Deps) {}

  start() {
    if (this.running) return
    this.running = true
    this.tick()
  }

  stop() {
    this.running = false
    clearTimeout(this.timer)
    this.timer = undefined
  }

  /** A new order may be due sooner than the timer set (at `dueAt`, when known): look again. */
  wake(dueAt?: number) {
    if (!this.running) return
    // The common case, an order due after the timer already set, needs no query.
    if (dueAt !== undefined && this.timer && dueAt >= this.timerAt && this.timerAt > this.deps.clock.now()) return
    this.schedule()
  }

  /** Expires every order due by now; returns how many. */
  tick(): number {
    const { db, clock } = this.deps
    let expired = 0
    try {
      for (;;) {
        const now = clock.now()
        const done = writeTransaction(db, (tx) => {
          const due = tx
            .select()
            .from(orders)
            .where(and(isPending, lte(orders.expiresAt, now)))
            .orderBy(asc(orders.expiresAt))
            .limit(BATCH)
            .all()
          for (const order of due) cancelOrder(tx, this.deps, order, 'EXPIRED', 'expire')
          return due.length
        })
        expired += done
        if (done < BATCH) break
      }
    } catch (e) {
      this.deps.log.error('order expiry failed; trying again shortly', { error: (e as Error).message })
    }
    this.schedule()
    return expired
  }

  private schedule() {
    if (!this.running) return
    const now = this.deps.clock.now()
    const [{ next }] = this.deps.db
      .select({ next: min(orders.expiresAt) })
      .from(orders)
      .where(isPending)
      .all() as [{ next: number | null }]
    const when = Math.min(next ?? Infinity, now + HEARTBEAT_MS)
    // A timer already set for sooner stays, unless the clock says it is overdue (a clock that jumps, as in tests).
    if (this.timer && this.timerAt <= when && this.timerAt > now) return
    clearTimeout(this.timer)
    this.timerAt = when
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.timerAt = Infinity
      this.tick()
    }, Math.max(0, when - now))
    this.timer.unref?.()
  }
}

/** What checkout, cancelling and store transitions need beyond the kernel: the expiry loop, to wake or run it. */
export type OrdersDeps = Deps & { orderExpiry: OrderExpiry }
