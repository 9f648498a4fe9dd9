import { and, eq, inArray, lte, sql } from 'drizzle-orm'
import { groupedWrite, writeTransaction, type Db, type Sql } from '../../kernel/db/database'
import { perHandle } from '../../kernel/db/per-handle'
import { withParams } from '../../kernel/db/prepared'
import type { Deps } from '../../kernel/deps'
import { AppError, errorBody } from '../../kernel/errors'
import { deleteBatch, type Pruner } from '../../kernel/retention'
import { idempotencyKeys } from './tables'

// The Idempotency-Key of a payment, scoped to the store and the customer: the first request claims the
// key, and its answer is kept for 24 h and replayed to every repeat. The same key with a different
// request is 422 IDEMPOTENCY_KEY_REUSED; a repeat while the first still runs is 409 IDEMPOTENCY_IN_PROGRESS.
// Two customers of a store pick their keys without knowing each other's (`order-1` is a likely key for
// both), so one customer's key never answers, or refuses, another's request.

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000
export const MAX_KEY_LENGTH = 255
/** A payment takes milliseconds; a claim this old without an answer belongs to a process that died. */
export const ABANDONED_AFTER_MS = 60_000

export interface Answer {
  status: number
  body: unknown
}

/** A replayed answer, marked so that a client can tell. */
const replay = (status: number, body: string) =>
  new Response(body, { status, headers: { 'content-type': 'application/json', 'idempotent-replayed': 'true' } })

/** Whose keys these are: a customer's own within the store, or the store's when no customer is calling. */
export interface KeyScope {
  storeId: string
  customerId: string | null
}

/**
 * The key as stored, in the `key` column of the store's rows: the customer's id and the client's key
 * joined by a line feed, which no header value can hold, so no key a client sends is ever stored
 * under another scope's name. A store's own key is stored as sent, as every key was before keys were
 * per customer.
 */
export const storedKey = (scope: KeyScope, key: string) => (scope.customerId === null ? key : `${scope.customerId}\n${key}`)

/** What the key is bound to: the caller and the request. The same key with another one is 422. */
const fingerprintOf = (scope: KeyScope, request: Record<string, unknown>) => JSON.stringify({ customer: scope.customerId, ...request })

const p = sql.placeholder
type Key = { storeId: string; key: string }
type Row = typeof idempotencyKeys.$inferSelect

/** Prepared once per handle: a payment with a key runs them on every request. */
const statements = perHandle((db: Sql) => {
  const byKey = and(eq(idempotencyKeys.storeId, p('storeId')), eq(idempotencyKeys.key, p('key')))
  return {
    /** The caller's row and the row under the key as sent (a store's key, or a customer's from before keys were per customer). */
    find: withParams<Key & { sent: string }>()(
      db
        .select()
        .from(idempotencyKeys)
        .where(and(eq(idempotencyKeys.storeId, p('storeId')), inArray(idempotencyKeys.key, [p('key'), p('sent')])))
        .prepare(),
    ),
    claim: withParams<Key & { fingerprint: string; now: number }>()(
      db.insert(idempotencyKeys).values({ storeId: p('storeId'), key: p('key'), fingerprint: p('fingerprint'), createdAt: p('now') }).prepare(),
    ),
    free: withParams<Key>()(db.delete(idempotencyKeys).where(byKey).prepare()),
    answer: withParams<Key & { status: number; body: string }>()(
      db
        .update(idempotencyKeys)
        .set({ responseStatus: sql`${p('status')}`, responseBody: sql`${p('body')}` })
        .where(byKey)
        .prepare(),
    ),
  }
})

/** The answer kept for the key, to replay: committed before the answer leaves, as the payment is. */
const keep = (db: Db, id: Key, answer: Answer) =>
  groupedWrite(db, (tx) => statements(tx).answer.run({ ...id, status: answer.status, body: JSON.stringify(answer.body) }))

/**
 * The caller's row among those found. A row stored under the key as sent, by a customer's request
 * before keys were per customer, still binds that customer's key for the rest of its 24 h: its
 * fingerprint names the customer, so it is the caller's when that name is the caller's.
 */
function ownRow(rows: Row[], scope: KeyScope, key: string): Row | undefined {
  const own = rows.find((r) => r.key === storedKey(scope, key))
  if (own || scope.customerId === null) return own
  return rows.find((r) => r.key === key && (JSON.parse(r.fingerprint) as { customer?: unknown }).customer === scope.customerId)
}

/**
 * Runs `run` once per key within `scope`: a repeat with the same `request` gets the first answer again.
 * `request` is what the key is bound to besides the caller (for a payment: the order, method, options).
 */
export async function withIdempotency(
  deps: Deps,
  scope: KeyScope,
  key: string | undefined,
  request: Record<string, unknown>,
  run: () => Promise<Answer>,
): Promise<Answer | Response> {
  if (key === undefined) return run()
  if (key.length === 0 || key.length > MAX_KEY_LENGTH) {
    throw new AppError('VALIDATION_ERROR', `The Idempotency-Key header must have 1 to ${MAX_KEY_LENGTH} characters; a UUID is a good key.`, [
      { path: 'headers.idempotency-key', message: `1 to ${MAX_KEY_LENGTH} characters` },
    ])
  }
  const id = { storeId: scope.storeId, key: storedKey(scope, key) }
  const fingerprint = fingerprintOf(scope, request)
  const stored = writeTransaction(deps.db, (tx) => {
    const q = statements(tx)
    const now = deps.clock.now()
    const row = ownRow(q.find.all({ ...id, sent: key }), scope, key)
    if (row && row.createdAt > now - IDEMPOTENCY_TTL_MS) {
      if (row.fingerprint !== fingerprint) {
        throw new AppError(
          'IDEMPOTENCY_KEY_REUSED',
          'You already used this Idempotency-Key in the last 24 h for a different request (another order, method or options). Use a new key for a new payment.',
        )
      }
      // A claim that never got its answer in time was left by a crash: the request may run again.
      if (row.responseStatus === null && row.createdAt > now - ABANDONED_AFTER_MS) {
        throw new AppError('IDEMPOTENCY_IN_PROGRESS', 'A request with this Idempotency-Key is still running. Wait a moment and send it again to get its answer.')
      }
      if (row.responseStatus !== null) return row
    }
    if (row) q.free.run({ storeId: scope.storeId, key: row.key })
    q.claim.run({ ...id, fingerprint, now })
    return null
  })
  if (stored) return replay(stored.responseStatus!, stored.responseBody!)
  let answer: Answer
  try {
    answer = await run()
  } catch (e) {
    // A refusal is the answer to replay; anything else (a crash) frees the key for another try.
    if (e instanceof AppError && e.status < 500) answer = { status: e.status, body: errorBody(e) }
    else {
      await groupedWrite(deps.db, (tx) => statements(tx).free.run(id))
      throw e
    }
    await keep(deps.db, id, answer)
    throw e
  }
  await keep(deps.db, id, answer)
  return answer
}

/** Records past their 24 h are never replayed again; the retention days (at least one) are never shorter. */
export const idempotencyPruner = (db: Db): Pruner => ({
  what: 'idempotency records past their 24 h',
  prune: (_cutoff, now, batch) => deleteBatch(db, idempotencyKeys, lte(idempotencyKeys.createdAt, now - IDEMPOTENCY_TTL_MS), batch),
})
