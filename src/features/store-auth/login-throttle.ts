import type { Clock } from '../../kernel/clock'
import { AppError } from '../../kernel/errors'

const WINDOW_MS = 60_000
/** Failures a minute for one account from one client address: what locks a classmate's guessing. */
export const MAX_FAILURES_PER_ACCOUNT_AND_ADDRESS = 10
/** Failures a minute for one account from every address together: guessing from many machines. */
export const MAX_FAILURES_PER_ACCOUNT = 50
/** Failures a minute from one client address, whatever the account: guessing many accounts. */
export const MAX_FAILURES_PER_ADDRESS = 60
/** Keys (account and address pairs, accounts, addresses) remembered at most; past it the least recently tried are forgotten first. */
export const MAX_KEYS = 10_000

/** An attempt that passed the throttle: counted as a failure unless it says it succeeded. */
export interface LoginAttempt {
  succeeded(): void
  /**
   * The password's check, awaited: when it throws, the password was never checked (it had no turn,
   * PasswordTurns) and the attempt counts for nothing.
   */
  checked<T>(check: Promise<T>): Promise<T>
}

/** What a student can do about a locked login. */
const STUDENT_HELP = { forgotten: 'the teacher can reset a forgotten password.', notYours: 'if they were not yours, tell the teacher.' }
/** What a store's customer can do: the API has no password reset for customers. */
export const CUSTOMER_HELP = {
  forgotten: "customers have no password reset in this API: check the password, or register with another e-mail.",
  notYours: 'if they were not yours, tell the store.',
}

/**
 * Failed logins in the last minute, counted three ways: per account (an RM, a store's customer e-mail)
 * from one client address, per account from everywhere, and per client address.
 *
 * The tight limit is the first: a classmate at the next desk who types wrong passwords for someone
 * else's RM locks that RM from their own address only, and its owner still logs in from theirs. The
 * per-account limit is higher, so that guessing from many machines at once still stops; the address
 * limit is the highest, since a lab may share few addresses behind NAT.
 *
 * An attempt counts as failed from the moment it is let in, before its password is checked: the check
 * is slow on purpose (argon2), and a burst sent in parallel would otherwise all pass before the first
 * failure is written down. So no more than the limit are ever answered 401, however they are sent.
 */
export class LoginThrottle {
  /** Attempt times per key, in order of the key's last attempt: the stalest keys come first. */
  private attempts = new Map<string, number[]>()

  constructor(
    private clock: Clock,
    /** How the account is named in the 429 message ('RM', 'e-mail'). */
    private accountWord: string,
    /** Who can help, in the 429 message: the teacher resets a student's password; a store's customer has no reset. */
    private readonly help: { forgotten: string; notYours: string } = STUDENT_HELP,
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
    const who = `${this.accountWord} ${shown}`
    // An address holds no '|', so a pair's key cannot be mistaken for another pair's.
    const pairKey = `pair:${address}|${account}`
    const accountKey = `account:${account}`
    const addressKey = `address:${address}`
    for (const [key, max, what, next] of [
      [pairKey, MAX_FAILURES_PER_ACCOUNT_AND_ADDRESS, `for ${who} from this network address`, this.help.forgotten],
      [accountKey, MAX_FAILURES_PER_ACCOUNT, `for ${who} from several network addresses`, this.help.notYours],
      [addressKey, MAX_FAILURES_PER_ADDRESS, 'from your network address', this.help.forgotten],
    ] as const) {
      const recent = this.recent(key, now)
      if (recent.length >= max) {
        const retryAfter = Math.max(1, Math.ceil((recent[0]! + WINDOW_MS - now) / 1000))
        throw new AppError(
          'RATE_LIMITED',
          `Too many failed logins ${what} in the last minute (${max} at most). Wait ${retryAfter} s and try again; ${next}`,
          undefined,
          { 'retry-after': String(retryAfter) },
        )
      }
    }
    for (const key of [pairKey, accountKey, addressKey]) this.record(key, [...this.recent(key, now), now])
    const takeBack = (keys: string[]) => {
      for (const key of keys) {
        const times = this.attempts.get(key) ?? []
        const mine = times.indexOf(now)
        if (mine >= 0) times.splice(mine, 1)
        if (times.length === 0) this.attempts.delete(key)
      }
    }
    return {
      // A success wipes the account's failures from this address, and takes back its own count from the
      // account's and the address's: failures from elsewhere still count.
      succeeded: () => {
        this.attempts.delete(pairKey)
        takeBack([accountKey, addressKey])
      },
      checked: (check) =>
        check.catch((e: unknown) => {
          takeBack([pairKey, accountKey, addressKey])
          throw e
        }),
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
   * accounts or addresses still fills the map, the least recently tried go too, leaving room for the
   * three keys an attempt records.
   */
  private forgetStale(now: number) {
    for (const [key, times] of this.attempts) {
      if (this.attempts.size > MAX_KEYS - 3 || (times.at(-1) ?? 0) <= now - WINDOW_MS) this.attempts.delete(key)
      else break
    }
  }
}
