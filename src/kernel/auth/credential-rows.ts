import { and, eq, sql } from 'drizzle-orm'
import type { ChangeStamp } from '../db/change-stamp'
import type { Db } from '../db/database'
import { withParams } from '../db/prepared'
import { withTableNames } from '../db/table-names'
import { hashToken } from './credentials'
import { keptCredentials } from './kept-credentials'
import { apiKeys, customerSessions, stores, studentSessions, students } from './tables'

// Where the gate (gate.ts) finds the rows behind the credentials a call presents: the statements, held
// once, and the rows kept until a credential changes. The gate decides what they allow.

/** Longer than any key or token this server makes: a value past it is looked up, not kept. */
const MAX_KEPT_CREDENTIAL = 100

export type CredentialRows = ReturnType<typeof credentialRows>
export type KeyRow = NonNullable<ReturnType<CredentialRows['keyRow']>>

export function credentialRows(db: Db, changes: ChangeStamp) {
  // The store's group through a subquery, not a join: the same rows, and a lookup by primary key in a
  // subquery costs SQLite a fraction of a join, which every request with an API key pays (bench/README.md).
  const keyColumns = {
    id: apiKeys.id,
    storeId: apiKeys.storeId,
    kind: apiKeys.kind,
    revokedAt: apiKeys.revokedAt,
    groupId: withTableNames<string>(sql`(select ${stores.groupId} from ${stores} where ${stores.id} = ${apiKeys.storeId})`),
  }
  const keyByHash = db
    .select(keyColumns)
    .from(apiKeys)
    .where(eq(apiKeys.secretHash, sql.placeholder('hash')))
    .prepare()
  const studentByToken = db
    .select({
      rm: students.rm,
      groupId: students.groupId,
      storeId: stores.id,
      mustChangePassword: students.mustChangePassword,
      expiresAt: studentSessions.expiresAt,
    })
    .from(studentSessions)
    .innerJoin(students, eq(students.rm, studentSessions.rm))
    .innerJoin(stores, eq(stores.groupId, students.groupId))
    .where(eq(studentSessions.tokenHash, sql.placeholder('hash')))
    .prepare()
  // A buyer route's key and customer session in one statement, not two, kept like the key alone while
  // no credential changes. Expiry is still checked against the clock on every request (the gate's
  // customer()); a revoked key or a removed session is a change, so the next request reads again.
  const keyAndSession = withParams<{ hash: string; tokenHash: string }>()(
    db
      .select({
        ...keyColumns,
        session: sql<string | null>`(select json_array(${customerSessions.customerId}, ${customerSessions.storeId}, ${customerSessions.expiresAt})
          from ${customerSessions} where ${customerSessions.tokenHash} = ${sql.placeholder('tokenHash')})`,
      })
      .from(apiKeys)
      .where(eq(apiKeys.secretHash, sql.placeholder('hash')))
      .prepare(),
  )
  const memberOf = db
    .select({ rm: students.rm })
    .from(students)
    .where(and(eq(students.rm, sql.placeholder('rm')), eq(students.groupId, sql.placeholder('groupId'))))
    .prepare()
  // RMs are ASCII, so SQLite's lower() folds them as the members feature's rmKey does; a group holds few.
  const memberOfAnyCase = db
    .select({ rm: students.rm })
    .from(students)
    .where(and(eq(students.groupId, sql.placeholder('groupId')), sql`lower(${students.rm}) = lower(${sql.placeholder('rm')})`))
    .limit(2)
    .prepare()

  // Every request of a shop front presents the same key: its row is kept until a credential changes
  // (kept-credentials.ts), by the credential as sent (hashed only to be looked up), so a repeated key is
  // not hashed again. A value longer than any credential is not kept: a flood of long made-up keys takes
  // no memory.
  const kept = (value: string) => value.length <= MAX_KEPT_CREDENTIAL
  const keptUntilChange = keptCredentials(db, changes)
  const keyRows = keptUntilChange((value: string) => keyByHash.get({ hash: hashToken(value) }))
  const readKeyAndSession = (apiKey: string, token: string) => {
    const row = keyAndSession.get({ hash: hashToken(apiKey), tokenHash: hashToken(token) })
    if (!row) return undefined
    const { session, ...key } = row
    const [customerId, storeId, expiresAt] = session ? (JSON.parse(session) as [string, string, number]) : []
    return { key, session: customerId ? { customerId, storeId: storeId!, expiresAt: expiresAt! } : undefined }
  }
  // Kept by both values with a line break between them, which no header value holds.
  const keyAndSessionRows = keptUntilChange((both: string) => {
    const cut = both.indexOf('\n')
    return readKeyAndSession(both.slice(0, cut), both.slice(cut + 1))
  })

  return {
    /** The API key `value` names (whatever its kind or state), or undefined. */
    keyRow: (value: string) => (kept(value) ? keyRows(value) : keyByHash.get({ hash: hashToken(value) })),
    /** A buyer route's key and, when the token names one, its customer session. */
    keyAndSessionRow: (apiKey: string, token: string) =>
      kept(apiKey) && kept(token) ? keyAndSessionRows(`${apiKey}\n${token}`) : readKeyAndSession(apiKey, token),
    /** The student session `token` names, with its student and store, or undefined. */
    studentRow: (token: string) => studentByToken.get({ hash: hashToken(token) }),
    /**
     * The member of the group that `rm` names, as the RM is kept: as written first, else in any case
     * (X-Student-RM: ra2025x is RA2025X's call); undefined for none, and for a third spelling of two
     * members kept in two cases (as the members feature's keptRm).
     */
    memberRm: (rm: string, groupId: string) => {
      const exact = memberOf.get({ rm, groupId })
      if (exact) return exact.rm
      const found = memberOfAnyCase.all({ rm, groupId })
      return found.length === 1 ? found[0]!.rm : undefined
    },
  }
}
