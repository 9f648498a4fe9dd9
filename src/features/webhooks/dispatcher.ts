import type { Deps } from '../../kernel/deps'
import { dueAttemptsQuery, endpointsWithDueAttempts, fanOut, nextDueAfter, recordAttempt, type DueAttempt } from './deliveries'
import { PRUNE_BATCH } from '../../kernel/retention'
import type { ListenHub } from './listen'
import { trimDeliveryLog } from './retention'
import { attempt } from './send'
import { eventBody, signedHeaders } from './signature'
import { checkTarget, systemResolve, type Resolve } from './targets'

/**
 * How many attempts may run at once. Per endpoint, so that one slow receiver holds up only its own
 * events; per store, so that a store whose receivers hang (each attempt holds its slot for the 10 s
 * time-out) holds up only itself; and in all, which bounds the connections and memory they take.
 * Eight stores must hang at once before the total is reached; then each freed slot goes to the
 * store with the fewest attempts running.
 */
export const DELIVERY_LIMITS = { perEndpoint: 4, perStore: 16, total: 128 }
/**
 * A failed attempt keeps its endpoint's slot at least this long. A receiver that refuses the connection
 * fails an attempt in a millisecond, so a store's backlog (10 endpoints, thousands of attempts) ran
 * through in a burst that took every core's time for seconds, and came back together at each retry
 * step: held slots pace an endpoint's failures at perEndpoint / 250 ms (16 a second, 160 for a store's
 * ten), while a receiver that answers is never slowed (its store's slots are not held: a live endpoint
 * beside dead ones keeps its pace), and a failed event waits at least 10 s for its retry anyway.
 */
export const FAILED_ATTEMPT_HOLD_MS = 250
/** A store's log is trimmed back to DELIVERY_LOG_KEEP after this many of its attempts are recorded. */
export const TRIM_EVERY = 100
/** Events taken from the outbox per transaction. */
const FAN_OUT_BATCH = 500
/** Even with nothing scheduled the loop looks again this often (a missed wake-up costs at most this). */
const HEARTBEAT_MS = 30_000

/**
 * Delivers webhooks from the outbox. All state lives in SQLite (deliveries.ts): the
 * times here come from the injected clock, and real timers only wake the loop, so tests move a
 * ManualClock and call `tick()`. In memory there is only what is in flight right now.
 *
 * `tick()` fans new events out into attempts and starts due attempts while the limits leave room;
 * each finished attempt frees a slot for the next. The server calls `start()`, which also wakes the
 * loop on every emitted event and at the next due time.
 */
export class WebhookDispatcher {
  /** Host name resolution; tests swap it to point a name at a chosen address. */
  resolve: Resolve = systemResolve
  /** Tests lower them to fill every slot with a few receivers. */
  limits = { ...DELIVERY_LIMITS }
  /** How long a failed attempt keeps its slot (FAILED_ATTEMPT_HOLD_MS). */
  failedHoldMs = FAILED_ATTEMPT_HOLD_MS
  private running = false
  private stopped = false
  private timer: ReturnType<typeof setTimeout> | undefined
  private timerAt = Infinity
  /** Attempts running, by endpoint, and how many per store and in all. */
  private inFlight = new Map<string, Set<string>>()
  private perStore = new Map<string, number>()
  private total = 0
  /** Endpoints that may have due attempts not started yet, with their store; in turn order. */
  private ready = new Map<string, string>()
  /** Finished attempts added per store since its log was last trimmed. */
  private recorded = new Map<string, number>()
  private sends = new Set<Promise<void>>()
  private stopping = new AbortController()
  private dueAttempts: ReturnType<typeof dueAttemptsQuery>

  constructor(private deps: Deps) {
    this.dueAttempts = dueAttemptsQuery(deps.db)
    deps.outbox.onEmit(() => this.wake())
  }

  /** Starts the loop; attempts left pending by a previous run (even one killed) are sent now. */
  start() {
    if (this.running || this.stopped) return
    this.running = true
    this.tick()
  }

  /** New work may be waiting (an event, a ping, a redelivery). Only a started dispatcher acts on it. */
  wake() {
    if (this.running) this.tick()
  }

  /** Fans out waiting events and starts every attempt that is due and has room. */
  tick() {
    if (this.stopped) return
    const now = this.deps.clock.now()
    try {
      for (;;) {
        const { taken, refused } = fanOut(this.deps.db, this.deps.ids, now, FAN_OUT_BATCH)
        for (const [storeId, n] of refused) this.logged(storeId, n)
        if (taken < FAN_OUT_BATCH) break
      }
      for (const { webhookId, storeId } of endpointsWithDueAttempts(this.deps.db, now)) {
        if (!this.ready.has(webhookId)) this.ready.set(webhookId, storeId)
      }
      this.fill()
      this.wakeAt(nextDueAfter(this.deps.db, now) ?? Infinity, true)
    } catch (e) {
      this.deps.log.error('webhook dispatch failed; trying again shortly', { error: (e as Error).message })
      this.wakeAt(now + 1000, true)
    }
  }

  /** How many of `storeId`'s attempts are running now. An attempt is counted from the moment it is started, before its request is sent. */
  runningFor(storeId: string): number {
    return this.perStore.get(storeId) ?? 0
  }

  /** Resolves when no attempt is in flight (attempts started meanwhile are waited for too). */
  async settled() {
    while (this.sends.size > 0) await Promise.allSettled([...this.sends])
  }

  /** Checks a URL against the target rules as they are now (targets.ts); throws BadTarget. */
  checkTarget(url: string) {
    const { config, listenPort, publicUrl } = this.deps
    const rules = { allowInsecure: config.allowInsecureWebhooks, allowLoopback: config.allowLoopbackWebhooks, listenPort, publicUrl: publicUrl.for() }
    return checkTarget(url, rules, this.resolve)
  }

  /**
   * Stops timers and abandons attempts in flight: they stay PENDING in the database and are sent
   * again at the next start (a receiver may then see an event twice, which at-least-once allows).
   */
  async stop() {
    this.running = false
    this.stopped = true
    clearTimeout(this.timer)
    this.stopping.abort(new Error('the server is stopping'))
    await this.settled()
  }

  /**
   * Starts due attempts while the total has room, one at a time, each for the ready endpoint whose
   * store has the fewest attempts running (among equals, the one whose turn came longest ago), so a
   * store that keeps every slot it gets busy cannot crowd out a store that asks for one.
   */
  private fill() {
    while (this.total < this.limits.total) {
      const next = this.nextInTurn()
      if (!next) return
      this.ready.delete(next.webhookId)
      // Back at the end of the turn order if it had one to start; otherwise it has nothing due left.
      if (this.startOne(next.webhookId, next.storeId)) this.ready.set(next.webhookId, next.storeId)
    }
  }

  private nextInTurn(): { webhookId: string; storeId: string } | undefined {
    let best: { webhookId: string; storeId: string } | undefined
    let fewest = Infinity
    for (const [webhookId, storeId] of this.ready) {
      const running = this.perStore.get(storeId) ?? 0
      if (running >= this.limits.perStore || (this.inFlight.get(webhookId)?.size ?? 0) >= this.limits.perEndpoint) continue
      if (running < fewest) [best, fewest] = [{ webhookId, storeId }, running]
    }
    return best
  }

  /** Starts the oldest due attempt of the endpoint that is not running yet; false when there is none. */
  private startOne(webhookId: string, storeId: string): boolean {
    const busy = this.inFlight.get(webhookId) ?? new Set<string>()
    // In-flight rows are due rows too: of the first perEndpoint due rows, one at least is not in flight (if there is one).
    const d = this.dueAttempts(webhookId, this.deps.clock.now(), this.limits.perEndpoint).find((a) => !busy.has(a.id))
    if (!d) return false
    this.inFlight.set(webhookId, busy.add(d.id))
    this.perStore.set(storeId, (this.perStore.get(storeId) ?? 0) + 1)
    this.total++
    const started = performance.now()
    let storeSlotHeld = true
    const freeStoreSlot = () => {
      if (!storeSlotHeld) return
      storeSlotHeld = false
      const left = this.perStore.get(storeId)! - 1
      if (left === 0) this.perStore.delete(storeId)
      else this.perStore.set(storeId, left)
      this.total--
    }
    const send: Promise<void> = this.deliver(d)
      .then((ok) => {
        if (ok) return
        // A failed attempt holds its endpoint's slot a while, not its store's: the store's other endpoints go on.
        freeStoreSlot()
        if (!this.stopped) this.fill()
        return this.hold(started)
      })
      .catch((e) => {
        if (!this.stopped) this.deps.log.error('webhook attempt could not be recorded', { deliveryId: d.id, error: (e as Error).message })
      })
      .finally(() => {
        busy.delete(d.id)
        if (busy.size === 0) this.inFlight.delete(webhookId)
        freeStoreSlot()
        this.sends.delete(send)
        if (this.stopped) return
        if (!this.ready.has(webhookId)) this.ready.set(webhookId, storeId)
        this.fill()
      })
    this.sends.add(send)
    return true
  }

  /** Waits out the rest of a failed attempt's hold (FAILED_ATTEMPT_HOLD_MS), unless the dispatcher stops. */
  private hold(started: number): Promise<void> | undefined {
    const left = this.failedHoldMs - (performance.now() - started)
    if (left <= 0 || this.stopped) return undefined
    const stopping = this.stopping.signal
    return new Promise((resolve) => {
      // Whichever comes first ends the wait and removes the other: a listener left on the dispatcher's
      // signal by each failed attempt would stay for as long as the server runs.
      const done = () => {
        clearTimeout(timer)
        stopping.removeEventListener('abort', done)
        resolve()
      }
      const timer = setTimeout(done, left)
      stopping.addEventListener('abort', done, { once: true })
    })
  }

  /** One attempt, signed afresh with its own timestamp, then its record (and maybe its retry); true when it succeeded. */
  private async deliver(d: DueAttempt): Promise<boolean> {
    const { clock, ids, db, version } = this.deps
    const sentAt = clock.now()
    const body = eventBody(d.event)
    const { headers, payload } = signedHeaders(d.secret, d.event, body, sentAt, `Storefront-Webhooks/${version}`)
    const result = await attempt({ headers, body, target: () => this.checkTarget(d.url), stop: this.stopping.signal })
    const retryAt = recordAttempt(db, ids, d, { sentAt, headers, payload, result, now: clock.now() })
    if (retryAt !== null) this.wakeAt(retryAt, false)
    this.logged(d.storeId)
    return result.ok
  }

  /**
   * Counts finished attempts added to a store's log (sent, or refused for a backlog), and keeps the
   * log near its bound between retention passes: a trim every TRIM_EVERY of them.
   */
  logged(storeId: string, added = 1) {
    const n = (this.recorded.get(storeId) ?? 0) + added
    if (n < TRIM_EVERY) return void this.recorded.set(storeId, n)
    this.recorded.delete(storeId)
    try {
      trimDeliveryLog(this.deps.db, storeId, PRUNE_BATCH)
    } catch (e) {
      this.deps.log.error('trimming a deliveries log failed; the next retention pass trims it', { storeId, error: (e as Error).message })
    }
  }

  /** Sets the timer for `at` (capped by the heartbeat); unless `replace`, only if that is sooner than the one set. */
  private wakeAt(at: number, replace: boolean) {
    if (!this.running) return
    const now = this.deps.clock.now()
    const when = Math.min(at, now + HEARTBEAT_MS)
    if (!replace && this.timer && this.timerAt <= when) return
    clearTimeout(this.timer)
    this.timerAt = when
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.tick()
    }, Math.max(0, when - now))
    this.timer.unref?.()
  }
}

/**
 * What the webhook services need beyond the kernel: the dispatcher, which checks targets and sends what
 * they queue, and the open listen streams (listen.ts).
 */
export type WebhooksDeps = Deps & { webhooks: WebhookDispatcher; listeners: ListenHub }
