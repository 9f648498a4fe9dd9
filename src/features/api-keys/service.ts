import { and, asc, count, eq, isNull } from 'drizzle-orm'
import { newApiKey } from '../../kernel/auth/credentials'
import type { ApiKeyKind, StudentCtx } from '../../kernel/auth/kinds'
import { apiKeys } from '../../kernel/auth/tables'
import { isoTime } from '../../kernel/clock'
import { writeTransaction } from '../../kernel/db/database'
import type { Deps } from '../../kernel/deps'
import { assertBelowLimit, notFound } from '../../kernel/errors'

export function listKeys(deps: Deps, ctx: Pick<StudentCtx, 'storeId'>) {
  deps.activity.flush() // lastUsedAt is buffered with the activity counts: make it current first
  const rows = deps.db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.storeId, ctx.storeId), isNull(apiKeys.revokedAt)))
    .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id))
    .all()
  return rows.map((k) => ({
    id: k.id,
    name: k.name,
    kind: k.kind,
    prefix: k.prefix,
    createdAt: isoTime(k.createdAt),
    createdBy: k.createdBy,
    lastUsedAt: k.lastUsedAt === null ? null : isoTime(k.lastUsedAt),
  }))
}

/**
 * Active keys a store may have at once: enough for every app and member of a group, and a bound on
 * what the key list answers (a loop creating keys meets it instead of growing the list without end).
 */
export const MAX_ACTIVE_KEYS = 50

/** The whole key is returned here once; only its hash and prefix are stored. */
export function createKey(deps: Deps, ctx: StudentCtx, name: string, kind: ApiKeyKind) {
  const { key, prefix, hash } = newApiKey(kind)
  const id = deps.ids.next('key')
  const now = deps.clock.now()
  // Counted in the transaction of the insert: two creations at once cannot both take the last place.
  writeTransaction(deps.db, (tx) => {
    const { n } = tx.select({ n: count() }).from(apiKeys).where(and(eq(apiKeys.storeId, ctx.storeId), isNull(apiKeys.revokedAt))).get()!
    assertBelowLimit(n, MAX_ACTIVE_KEYS, {
      who: 'This store',
      things: 'active API keys',
      owner: 'a store',
      fix: 'Revoke one you no longer use (DELETE /v1/store/api-keys/:id; GET /v1/store/api-keys lists them) before creating another.',
    })
    tx.insert(apiKeys).values({ id, storeId: ctx.storeId, name, kind, prefix, secretHash: hash, createdBy: ctx.actor.rm, createdAt: now }).run()
  })
  return { id, name, kind, prefix, apiKey: key, createdAt: isoTime(now) }
}

/** Revocation is checked on every request, so it takes effect on the very next one. */
export function revokeKey(deps: Deps, ctx: StudentCtx, id: string) {
  const revoked = writeTransaction(deps.db, (tx) =>
    tx
      .update(apiKeys)
      .set({ revokedAt: deps.clock.now() })
      .where(and(eq(apiKeys.id, id), eq(apiKeys.storeId, ctx.storeId), isNull(apiKeys.revokedAt)))
      .returning({ id: apiKeys.id })
      .all(),
  )
  if (revoked.length === 0) {
    throw notFound('API key', id, 'GET /v1/store/api-keys lists the active ones')
  }
}
