import { and, eq, lte, sql } from 'drizzle-orm'
import { groupedWrite, writeTransaction, type Db, type Sql } from '../../kernel/db/database'
import { perHandle } from '../../kernel/db/per-handle'
import { withParams } from '../../kernel/db/prepared'
import type { Deps } from '../../kernel/deps'
import { AppError, errorBody } from '../../kernel/errors'
import { deleteBatch, type Pruner } from '../../kernel/retention'
import { idempotencyKeys } from './tables'

// The Idempotency-Key of a payment, scoped to the store: the first request claims the
// key, and its answer is kept for 24 h and replayed to every repeat. The same key with a different
// request is 422 IDEMPOTENCY_KEY_REUSED; a repeat while the first still runs is 409 IDEMPOTENCY_IN_PROGRESS.

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

const p = sql.placeholder
type Key = { storeId: string; key: string }

/** Prepared once per handle: a payment with a key runs them on every request. */
const statements = perHandle((db: Sql) => {
  const byKey = and(eq(idempotencyKeys.storeId, p('storeId')), eq(idempotencyKeys.key, p('key')))
  return {
    find: withParams<Key>()(db.select().from(idempotencyKeys).where(byKey).prepare()),
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

export async function withIdempotency(
  deps: Deps,
  storeId: string,
  key: string | undefined,
  fingerprint: string,
  run: () => Promise<Answer>,
): Promise<Answer | Response> {
  if (key === undefined) return run()
  if (key.length === 0 || key.length > MAX_KEY_LENGTH) {
    throw new AppError('VALIDATION_ERROR', `The Idempotency-Key header must have 1 to ${MAX_KEY_LENGTH} characters; a UUID is a good key.`, [
      { path: 'headers.idempotency-key', message: `1 to ${MAX_KEY_LENGTH} characters` },
    ])
  }
  const id = { storeId, key }
  const stored = writeTransaction(deps.db, (tx) => {
    const q = statements(tx)
    const now = deps.clock.now()
    const row = q.find.get(id)
    if (row && row.createdAt > now - IDEMPOTENCY_TTL_MS) {
      if (row.fingerprint !== fingerprint) {
        throw new AppError(
          'IDEMPOTENCY_KEY_REUSED',
          'This Idempotency-Key was already used for a different request (another order, method or options). Use a new key for a new payment.',
        )
      }
      // A claim that never got its answer in time was left by a crash: the request may run again.
      if (row.responseStatus === null && row.createdAt > now - ABANDONED_AFTER_MS) {
        throw new AppError('IDEMPOTENCY_IN_PROGRESS', 'A request with this Idempotency-Key is still running. Wait a moment and send it again to get its answer.')
      }
      if (row.responseStatus !== null) return row
    }
    if (row) q.free.run(id)
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
