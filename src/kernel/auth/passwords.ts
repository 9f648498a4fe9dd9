import { randomToken } from '../ids'

/** argon2id parameters; the server uses PASSWORD_COST, tests may pass cheaper ones. */
export interface PasswordCost {
  memoryCost: number
  timeCost: number
}

/** The OWASP minimum for argon2id: 19 MiB of memory, 2 passes (tens of milliseconds a hash; bench/README.md). */
export const PASSWORD_COST: PasswordCost = { memoryCost: 19456, timeCost: 2 }

/** Hashing and checking passwords, in deps so that tests can count verifications and hash cheaply. */
export interface Passwords {
  hash(password: string): Promise<string>
  verify(password: string, hash: string): Promise<boolean>
  /**
   * A hash of no one's password, made at the same cost: a login with no hash to check against (an
   * unknown account, an initial password) verifies against it, so that it takes as long as any other.
   */
  decoyHash(): Promise<string>
}

export function argon2Passwords(cost: PasswordCost = PASSWORD_COST): Passwords {
  const hash = (password: string) => Bun.password.hash(password, { algorithm: 'argon2id', ...cost })
  // Made now, not at the first failed login, which would otherwise take a hash longer than the rest.
  const decoy = hash(randomToken(32))
  return {
    hash,
    verify: (password, stored) => Bun.password.verify(password, stored),
    decoyHash: () => decoy,
  }
}
