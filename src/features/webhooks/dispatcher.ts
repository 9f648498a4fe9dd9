import type { Deps } from '../../kernel/deps'
import { dueAttemptsQuery, endpointsWithDueAttempts, fanOut, nextDueAfter, recordAttempt, type DueAttempt } from './deliveries'
import { attempt } from './send'
import { eventBody, signedHeaders } from './signature'
import { checkTarget, systemResolve, type Resolve } from './targets'

/** At most this many attempts run at once per endpoint, so one slow receiver holds up only itself. */
export const MAX_IN_FLIGHT_PER_ENDPOINT = 4
/** Events taken from the outbox per transaction. */
const FAN_OUT_BATCH = 500
/** Even with nothing scheduled the loop looks again this often (a missed wake-up costs at most this). */
const HEARTBEAT_MS = 30_000

type DispatcherDeps = Pick<Deps, 'db' | 'clock' | 'ids' | 'log' | 'outbox' | 'config' | 'version' | 'listenPort' | 'publicUrl'>

/**
 * Delivers webhooks from the outbox (decisions §12). All state lives in SQLite (deliveries.ts): the
 * times here come from the injected clock, and real timers only wake the loop, so tests move a
 * ManualClock and call `tick()`. In memory there is only what is in flight right now.
 *
 * `tick()` fans new events out into attempts and starts every due attempt its endpoint has room for;
 * each finished attempt starts the next one of its endpoint. The server calls `start()`, which also
 * wakes the loop on every emitted event and at the next due time.
 */
export class WebhookDispatcher {
  /** Host name resolution; tests swap it to point a name at a chosen address. */
  resolve: Resolve = systemResolve
  private running = false
  private stopped = false
  private timer: ReturnType<typeof setTimeout> | undefined
  private timerAt = Infinity
  private inFlight = new Map<string, Set<string>>()
  private sends = new Set<Promise<void>>()
  private stopping = new AbortController()
  private dueAttempts: ReturnType<typeof dueAttemptsQuery>

  constructor(private deps: DispatcherDeps) {
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
      let taken: number
      do taken = fanOut(this.deps.db, this.deps.ids, now, FAN_OUT_BATCH)
      while (taken === FAN_OUT_BATCH)
      for (const webhookId of endpointsWithDueAttempts(this.deps.db, now)) this.startDue(webhookId)
      this.wakeAt(nextDueAfter(this.deps.db, now) ?? Infinity, true)
    } catch (e) {
      this.deps.log.error('webhook dispatch failed; trying again shortly', { error: (e as Error).message })
      this.wakeAt(now + 1000, true)
    }
  }

  /** Resolves when no attempt is in flight (attempts started meanwhile are waited for too). */
  async settled() {
    while (this.sends.size > 0) await Promise.allSettled([...this.sends])
  }

  /** Checks a URL against the target rules as they are now (targets.ts); throws BadTarget. */
  checkTarget(url: string) {
    const { config, listenPort, publicUrl } = this.deps
    const rules = { allowInsecure: config.allowInsecureWebhooks, allowLoopback: config.allowLoopbackWebhooks, listenPort, publicUrl }
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

  private startDue(webhookId: string) {
    const busy = this.inFlight.get(webhookId) ?? new Set<string>()
    const room = MAX_IN_FLIGHT_PER_ENDPOINT - busy.size
    if (room <= 0) return
    // In-flight rows are due rows too: of the first MAX due rows, at least `room` are not in flight (if that many exist).
    const due = this.dueAttempts(webhookId, this.deps.clock.now(), MAX_IN_FLIGHT_PER_ENDPOINT)
      .filter((d) => !busy.has(d.id))
      .slice(0, room)
    if (due.length === 0) return
    this.inFlight.set(webhookId, busy)
    for (const d of due) {
      busy.add(d.id)
      const send: Promise<void> = this.deliver(d)
        .catch((e) => {
          if (!this.stopped) this.deps.log.error('webhook attempt could not be recorded', { deliveryId: d.id, error: (e as Error).message })
        })
        .finally(() => {
          busy.delete(d.id)
          if (busy.size === 0) this.inFlight.delete(webhookId)
          this.sends.delete(send)
          if (!this.stopped) this.startDue(webhookId)
        })
      this.sends.add(send)
    }
  }

  /** One attempt, signed afresh with its own timestamp, then its record (and maybe its retry). */
  private async deliver(d: DueAttempt) {
    const { clock, ids, db, version } = this.deps
    const sentAt = clock.now()
    const body = eventBody(d.event)
    const { headers, payload } = signedHeaders(d.secret, d.event, body, sentAt, `Storefront-Webhooks/${version}`)
    const result = await attempt({ headers, body, target: () => this.checkTarget(d.url), stop: this.stopping.signal })
    const retryAt = recordAttempt(db, ids, d, { sentAt, headers, payload, result, now: clock.now() })
    if (retryAt !== null) this.wakeAt(retryAt, false)
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
