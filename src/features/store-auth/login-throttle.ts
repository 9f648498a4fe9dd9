import type { Clock } from '../../kernel/clock'
import { AppError } from '../../kernel/errors'

const WINDOW_MS = 60_000
export const MAX_FAILURES_PER_RM = 10
export const MAX_FAILURES_PER_ADDRESS = 60

/**
 * Failed logins in the last minute, per RM and per client address (decisions §4). A lab shares few
 * addresses behind NAT, so the address limit is the higher one.
 */
export class LoginThrottle {
  private failures = new Map<string, number[]>()

  constructor(private clock: Clock) {}

  private recent(key: string): number[] {
    const cutoff = this.clock.now() - WINDOW_MS
    const kept = (this.failures.get(key) ?? []).filter((t) => t > cutoff)
    if (kept.length) this.failures.set(key, kept)
    else this.failures.delete(key)
    return kept
  }

  assertAllowed(rm: string, address: string) {
    for (const [key, max, what] of [
      [`rm:${rm}`, MAX_FAILURES_PER_RM, `for RM ${rm}`],
      [`ip:${address}`, MAX_FAILURES_PER_ADDRESS, 'from your network address'],
    ] as const) {
      const recent = this.recent(key)
      if (recent.length >= max) {
        const retryAfter = Math.max(1, Math.ceil((recent[0]! + WINDOW_MS - this.clock.now()) / 1000))
        throw new AppError(
          'RATE_LIMITED',
          `Too many failed logins ${what} in the last minute. Wait ${retryAfter} s and try again; the teacher can reset a forgotten password.`,
          undefined,
          { 'retry-after': String(retryAfter) },
        )
      }
    }
  }

  fail(rm: string, address: string) {
    const now = this.clock.now()
    for (const key of [`rm:${rm}`, `ip:${address}`]) this.failures.set(key, [...this.recent(key), now])
  }

  succeed(rm: string) {
    this.failures.delete(`rm:${rm}`)
  }
}
