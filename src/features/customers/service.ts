import { and, eq, inArray, sql } from 'drizzle-orm'
import { CUSTOMER_TOKEN_TTL_MS, hashToken, newCustomerToken } from '../../kernel/auth/credentials'
import { customerOf, type StoreCtx } from '../../kernel/auth/kinds'
import { customers, customerSessions } from '../../kernel/auth/tables'
import { isoTime } from '../../kernel/clock'
import { isUniqueViolation, writeTransaction, type Sql } from '../../kernel/db/database'
import type { Deps } from '../../kernel/deps'
import { AppError } from '../../kernel/errors'
import type { LoginThrottle } from '../store-auth'
import type { Customer } from './model'

// Customers belong to one store: the same e-mail may exist in two stores.

function openSession(db: Sql, customer: Customer, storeId: string, now: number) {
  const token = newCustomerToken()
  const expiresAt = now + CUSTOMER_TOKEN_TTL_MS
  db.insert(customerSessions).values({ tokenHash: hashToken(token), customerId: customer.id, storeId, createdAt: now, expiresAt }).run()
  return { token, customer, expiresAt: isoTime(expiresAt) }
}

/** Which of `emails` (as stored: lower case) already name a customer of the store. */
export const takenEmails = (db: Sql, storeId: string, emails: string[]): string[] =>
  db
    .select({ email: customers.email })
    .from(customers)
    .where(and(eq(customers.storeId, storeId), inArray(customers.email, emails)))
    .all()
    .map((c) => c.email)

export async function register(deps: Deps, ctx: StoreCtx, input: { email: string; password: string; name: string }) {
  const passwordHash = await deps.passwords.hash(ctx.storeId, input.password)
  const customer = { id: deps.ids.next('cus'), email: input.email, name: input.name }
  const now = deps.clock.now()
  try {
    return writeTransaction(deps.db, (tx) => {
      tx.insert(customers).values({ ...customer, storeId: ctx.storeId, passwordHash, createdAt: now }).run()
      return openSession(tx, customer, ctx.storeId, now)
    })
  } catch (e) {
    if (isUniqueViolation(e)) {
      throw new AppError('CONFLICT', `A customer with e-mail ${input.email} already exists in this store. Log in instead: POST /v1/customers/login.`)
    }
    throw e
  }
}

export async function login(deps: Deps, ctx: StoreCtx, throttle: LoginThrottle, input: { email: string; password: string }, address: string) {
  const attempt = throttle.begin(`${ctx.storeId}/${input.email}`, input.email, address)
  const row = deps.db
    .select()
    .from(customers)
    .where(and(eq(customers.storeId, ctx.storeId), sql`lower(${customers.email}) = ${input.email}`))
    .get()
  // An unknown e-mail is verified against a decoy: it takes as long as a wrong password, so the time
  // does not tell which e-mails have an account here.
  const ok = await attempt.checked(deps.passwords.verify(ctx.storeId, input.password, row?.passwordHash ?? (await deps.passwords.decoyHash())))
  const wrong = () => new AppError('UNAUTHENTICATED', 'E-mail or password is wrong for this store. A customer registers once per store: POST /v1/customers/register.')
  if (!row || !ok) throw wrong()
  // The check awaited argon2: a customer the store's reset removed meanwhile has no account to open a session on.
  const session = writeTransaction(deps.db, (tx) => {
    const still = tx.select({ passwordHash: customers.passwordHash }).from(customers).where(and(eq(customers.id, row.id), eq(customers.storeId, ctx.storeId))).get()
    return still?.passwordHash === row.passwordHash ? openSession(tx, { id: row.id, email: row.email, name: row.name }, ctx.storeId, deps.clock.now()) : undefined
  })
  if (!session) throw wrong()
  attempt.succeeded()
  return session
}

export function me(deps: Deps, ctx: StoreCtx): Customer {
  return deps.db
    .select({ id: customers.id, email: customers.email, name: customers.name })
    .from(customers)
    .where(and(eq(customers.id, customerOf(ctx)), eq(customers.storeId, ctx.storeId)))
    .get()!
}
