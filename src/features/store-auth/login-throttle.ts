import type { Clock } from '../../kernel/clock'
import { AppError } from '../../kernel/errors'

const WINDOW_MS = 60_000
export const MAX_FAILURES_PER_ACCOUNT = 10
export const MAX_FAILURES_PER_ADDRESS = 60
/** Accounts and addresses remembered at most; past it the least recently tried are forgotten first. */
export const MAX_KEYS = 10_000

/** An attempt that passed the throttle: counted as a failure unless it says it succeeded. */
export interface LoginAttempt {
  succeeded(): void
}

/**
 * Failed logins in the last minute, per account (an RM, a store's customer e-mail) and per client
 * address. A lab shares few addresses behind NAT, so the address limit is the higher one.
 *
 * An attempt counts as failed from the moment it is let in, before its password is checked: the check
 * takes tens of milliseconds, and a burst sent in parallel would otherwise all pass before the first
 * failure is written down. So no more than the limit are ever answered 401, however they are sent.
 */
export class LoginThrottle {
  /** Attempt times per key, in order of the key's last attempt: the stalest keys come first. */
  private attempts = new Map<string, number[]>()

  constructor(
    private clock: Clock,
    /** How the account is named in the 429 message ('RM', 'e-mail'). */
    private accountWord: string,
  ) {}

  get size() {
    return this.attempts.size
  }

  /**
   * Lets the attempt in, or throws 429 RATE_LIMITED with Retry-After. `account` is the key it is counted
   * under; `shown` is how the message names it.
   */
  begin(account: string, shown: string, address: string): LoginAttempt {
    const now = this.clock.now()
    this.forgetStale(now)
    const accountKey = `account:${account}`
    const addressKey = `address:${address}`
    for (const [key, max, what] of [
      [accountKey, MAX_FAILURES_PER_ACCOUNT, `for ${this.accountWord} ${shown}`],
      [addressKey, MAX_FAILURES_PER_ADDRESS, 'from your network address'],
    ] as const) {
      const recent = this.recent(key, now)
      if (recent.length >= max) {
        const retryAfter = Math.max(1, Math.ceil((recent[0]! + WINDOW_MS - now) / 1000))
        throw new AppError(
          'RATE_LIMITED',
          `Too many failed logins ${what} in the last minute. Wait ${retryAfter} s and try again; the teacher can reset a forgotten password.`,
          undefined,
          { 'retry-after': String(retryAfter) },
        )
      }
    }
    for (const key of [accountKey, addressKey]) this.record(key, [...this.recent(key, now), now])
    return {
      // A success wipes the account's failures and takes back its own count from the address.
      succeeded: () => {
        this.attempts.delete(accountKey)
        const times = this.attempts.get(addressKey) ?? []
        const mine = times.indexOf(now)
        if (mine >= 0) times.splice(mine, 1)
        if (times.length === 0) this.attempts.delete(addressKey)
      },
    }
  }

  private recent(key: string, now: number): number[] {
    return (this.attempts.get(key) ?? []).filter((t) => t > now - WINDOW_MS)
  }

  /** Re-inserted, so the map's order stays the order of last attempts. */
  private record(key: string, times: number[]) {
    this.attempts.delete(key)
    this.attempts.set(key, times)
  }

  /**
   * Keys whose last attempt is over a minute old go, from the front (the stalest); then, if a flood of
   * accounts or addresses still fills the map past MAX_KEYS, the least recently tried go too.
   */
  private forgetStale(now: number) {
    for (const [key, times] of this.attempts) {
      if (this.attempts.size > MAX_KEYS - 2 || (times.at(-1) ?? 0) <= now - WINDOW_MS) this.attempts.delete(key)
      else break
    }
  }
}
