import { availableParallelism } from 'node:os'
import { AppError } from '../errors'
import { randomToken } from '../ids'

/** argon2id parameters; the server uses PASSWORD_COST, tests may pass cheaper ones. */
export interface PasswordCost {
  memoryCost: number
  timeCost: number
}

/** The OWASP minimum for argon2id: 19 MiB of memory, 2 passes (tens of milliseconds a hash; bench/README.md). */
export const PASSWORD_COST: PasswordCost = { memoryCost: 19456, timeCost: 2 }

/**
 * Whose turn a hash or a check takes: the store it is for (a student's group's, a customer's), or
 * NO_ACCOUNT for a login that names no one (checked against the decoy all the same).
 */
export type PasswordOwner = string
export const NO_ACCOUNT: PasswordOwner = ''
/**
 * A store's student logins and password changes take their turns apart from its shop's customers: a
 * shop page's publishable key, which anyone may copy, fills its own queue, never its group's logins
 * (nor makes a known RM's answer differ from an unknown one's, which waits as NO_ACCOUNT).
 */
export const panelOwner = (storeId: string): PasswordOwner => `panel ${storeId}`

/** Hashing and checking passwords, in deps so that tests can count verifications and hash cheaply. */
export interface Passwords {
  hash(owner: PasswordOwner, password: string): Promise<string>
  verify(owner: PasswordOwner, password: string, hash: string): Promise<boolean>
  /**
   * A hash of no one's password, made at the same cost: a login with no hash to check against (an
   * unknown account, an initial password) verifies against it, so that it takes as long as any other.
   */
  decoyHash(): Promise<string>
}

/**
 * How many checks of one store may wait for their turn; past it the store is answered 429. Enough for a
 * student's script registering fifty buyers at once (they wait, in turn with the other stores).
 */
export const WAITING_PER_STORE = 64

/**
 * argon2 at most `slots` at a time (one core fewer than the machine has, so the requests keep one),
 * the waiting ones served a store at a time in turn. A hash costs tens of milliseconds of a core:
 * a shop page's public key registering customers at its rate limit asked for three cores' worth, and
 * every other group's logins waited behind it for seconds. In turn, another store's check waits for
 * about one check per store that is waiting, whatever one store sends.
 */
export class PasswordTurns {
  private running = 0
  /** Per store, its waiting checks' starts; the map's order is whose turn is next. */
  private waiting = new Map<PasswordOwner, (() => void)[]>()

  constructor(
    private readonly slots = Math.max(1, availableParallelism() - 1),
    private readonly waitingPerStore = WAITING_PER_STORE,
  ) {}

  async run<T>(owner: PasswordOwner, work: () => Promise<T>): Promise<T> {
    if (this.running < this.slots && this.waiting.size === 0) this.running++
    else {
      const queue = this.waiting.get(owner) ?? []
      if (queue.length >= this.waitingPerStore) {
        throw new AppError(
          'RATE_LIMITED',
          `Too many password checks for this store at once (${this.waitingPerStore} waiting, each takes tens of milliseconds). Send logins and registrations one after another, not all at once; wait a second and try again.`,
          undefined,
          { 'retry-after': '1' },
        )
      }
      this.waiting.set(owner, queue)
      await new Promise<void>((start) => queue.push(start))
    }
    try {
      return await work()
    } finally {
      this.running--
      this.next()
    }
  }

  /** Starts the first waiting check of the store whose turn it is, and sends that store to the back. */
  private next() {
    const [owner, queue] = this.waiting.entries().next().value ?? []
    if (owner === undefined || !queue) return
    this.waiting.delete(owner)
    const start = queue.shift()!
    if (queue.length > 0) this.waiting.set(owner, queue)
    this.running++
    start()
  }
}

export function argon2Passwords(cost: PasswordCost = PASSWORD_COST, turns = new PasswordTurns()): Passwords {
  const hash = (password: string) => Bun.password.hash(password, { algorithm: 'argon2id', ...cost })
  // Made now, not at the first failed login, which would otherwise take a hash longer than the rest.
  const decoy = hash(randomToken(32))
  return {
    hash: (owner, password) => turns.run(owner, () => hash(password)),
    verify: (owner, password, stored) => turns.run(owner, () => Bun.password.verify(password, stored)),
    decoyHash: () => decoy,
  }
}
