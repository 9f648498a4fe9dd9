import type { Clock } from '../clock'
import type { ChangeStamp } from '../db/change-stamp'
import type { Db } from '../db/database'
import { AppError } from '../errors'
import type { Call } from '../http/call'
import { namedStoreOf, type NamedStore } from '../http/inspection'
import { credentialRows, type KeyRow } from './credential-rows'
import { API_KEY_FORMAT, API_KEY_LENGTH, isSecret } from './credentials'
import { AUTH_KINDS, type Actor, type AuthKind, type StoreCtx } from './kinds'
import { Presented } from './presented'
import type { RateLimiter } from './rate-limiter'
import { storeLimits } from './store-limits'

/**
 * What the gate reports about each authenticated store call, for activity and `lastUsedAt`. It is given
 * the caller's context itself (group, RM, key): nothing is made per call for it.
 */
export interface CallRecorder {
  /** A call was admitted (counted as it arrives, so a report right after it includes it). */
  count(caller: StoreCtx): void
  /** The call was answered with an error (status >= 400). */
  countError(caller: StoreCtx): void
}

interface GateDeps {
  db: Db
  changes: ChangeStamp
  clock: Clock
  adminToken: string
  limiter: RateLimiter
  activity: CallRecorder
}

/** The prefixes of the store's keys and tokens: never the teacher's token, even in its header. */
const STORE_CREDENTIAL = /^(sk|pk|stu|ctk)_/

/** A student token where a key belongs, on any route: said where it goes. */
const STUDENT_TOKEN_AS_KEY = 'X-API-Key holds a student token. Send student tokens as Authorization: Bearer <token>.'

const unauthenticated = (message: string) => new AppError('UNAUTHENTICATED', message)
const wrongKind = (kind: AuthKind, what: string) =>
  new AppError('WRONG_CREDENTIAL', `${what} This route takes ${AUTH_KINDS[kind].expects}.`)

/**
 * Checks the credential a route declared (kinds.ts) and returns who is calling. The order of the
 * checks decides which message a student sees, so it is spelled out case by case.
 */
export function createGate(deps: GateDeps) {
  const { clock } = deps
  const isAdminToken = isSecret(deps.adminToken)
  const rows = credentialRows(deps.db, deps.changes)
  const limits = storeLimits(deps.limiter)

  // The store a credential named, once its row is found: a call refused after that (a revoked key, an
  // expired session) is still shown in that store's request inspector. Reset by each admit(); kept as
  // plain fields, so that a call that passes makes no object for it.
  let namedStore: string | undefined
  let namedCredential: NamedStore['credential'] = 'secret'
  let namedRm: string | null = null
  let namedShopFront = false
  const name = (storeId: string, credential: NamedStore['credential'], rm: string | null, shopFront: boolean) => {
    namedStore = storeId
    namedCredential = credential
    namedRm = rm
    namedShopFront = shopFront
  }

  const attributedRm = (groupId: string, rm: string | null) => (rm ? (rows.memberRm(rm, groupId) ?? null) : null)

  /**
   * Whom a secret key's call counts for: the member X-Student-RM names, else the student whose token
   * is beside the key (Authorization: Bearer stu_..., a session of the key's group), else no one.
   */
  function keyCallRm(groupId: string, p: { studentRm: string | null; bearer: string | null }) {
    if (p.studentRm || !p.bearer?.startsWith('stu_')) return attributedRm(groupId, p.studentRm)
    const row = rows.studentRow(p.bearer)
    return row && row.groupId === groupId && row.expiresAt > clock.now() ? row.rm : null
  }

  function apiKey(value: string, kind: AuthKind, row?: KeyRow) {
    // A token where the key belongs is a credential of the wrong kind (401 WRONG_CREDENTIAL), whichever it is.
    if (value.startsWith('stu_')) {
      throw wrongKind(kind, STUDENT_TOKEN_AS_KEY)
    }
    // A customer token is the other credential a shop front holds, and the easiest to put in the wrong header.
    if (value.startsWith('ctk_')) {
      throw wrongKind(
        kind,
        "X-API-Key holds a customer token (ctk_...). A customer token goes in Authorization: Bearer <token>; X-API-Key takes the store's API key: " +
          "the publishable key (pk_...) in a shop front in the browser, the secret key (sk_...) on your app's server.",
      )
    }
    // The word Bearer belongs only before a token in Authorization, never in X-API-Key.
    const afterBearer = /^bearer\b[\s:]*(\S*)/i.exec(value)?.[1]
    if (afterBearer !== undefined) {
      throw unauthenticated(
        /^(stu|ctk)_/.test(afterBearer)
          ? `X-API-Key holds "Bearer" and a token: a token goes in the Authorization header (Authorization: Bearer ${afterBearer.slice(0, 4)}...), and X-API-Key takes the store's API key (sk_... or pk_...).`
          : 'X-API-Key holds "Bearer" before the key: send the key alone (X-API-Key: sk_... or pk_...). The word Bearer goes only before a token in Authorization.',
      )
    }
    row ??= rows.keyRow(value)
    if (row) name(row.storeId, row.kind === 'publishable' ? 'publishable' : 'secret', null, row.kind === 'publishable')
    if (!row) {
      throw unauthenticated(
        API_KEY_FORMAT.test(value)
          ? 'This API key is not known. Check that you copied all of it, or create a new one in the store panel.'
          : /^[sp]k_/.test(value)
            ? `X-API-Key starts like an API key but is not a whole one (${value.length} characters; a key has ${API_KEY_LENGTH}). Check that you copied all of it, without spaces or quotes; a key is shown only when it is made, so if it is lost, create a new one in the store panel: POST /v1/store/api-keys.`
            : 'X-API-Key does not look like an API key (sk_xxxxxxxx_... or pk_xxxxxxxx_...). Create one in the store panel: POST /v1/store/api-keys.',
      )
    }
    if (row.revokedAt !== null) {
      throw unauthenticated('This API key was revoked. Create a new one in the store panel: POST /v1/store/api-keys.')
    }
    return row
  }

  function student(token: string) {
    const row = rows.studentRow(token)
    if (row) name(row.storeId, 'student', row.rm, false)
    if (!row) throw unauthenticated('This student token is not valid (it ended with a password change or removal). Log in again: POST /v1/store/auth/login.')
    if (row.expiresAt <= clock.now()) {
      throw unauthenticated('Your student session expired (sessions last 24 hours). Log in again: POST /v1/store/auth/login.')
    }
    return row
  }

  function customer(row: { customerId: string; storeId: string; expiresAt: number } | undefined, storeId: string) {
    if (!row || row.storeId !== storeId) {
      throw unauthenticated("This customer token is not valid for this store. Log the customer in with this store's key: POST /v1/customers/login.")
    }
    if (row.expiresAt <= clock.now()) {
      throw unauthenticated('The customer session expired (sessions last 30 days). Log in again: POST /v1/customers/login.')
    }
    return row
  }

  const studentCtx = (token: string): StoreCtx => {
    const s = student(token)
    return { storeId: s.storeId, groupId: s.groupId, actor: { type: 'student', rm: s.rm, mustChangePassword: s.mustChangePassword } }
  }

  /** Returns the store context, or null for an admin route; throws the 401 a student should see (the 403s come from refuse). */
  function authenticate(kind: AuthKind, request: Request): StoreCtx | null {
    const p = new Presented(request.headers, isAdminToken)
    const { bearerKind } = p

    if (kind === 'admin') {
      if (p.admin) {
        if (isAdminToken(p.admin)) return null
        if (STORE_CREDENTIAL.test(p.admin)) throw wrongKind(kind, 'X-Admin-Token holds a store key or token, not the teacher\'s token.')
        throw unauthenticated(
          "X-Admin-Token is not the teacher's token: the one given with --admin-token (ADMIN_TOKEN), or else the one printed when the server first started, kept in the file admin-token of its data folder.",
        )
      }
      // The teacher's own token in another header: said so, rather than called a store's credential.
      const misplaced = [p.apiKey, p.bearer].some((value) => value !== null && isAdminToken(value))
      if (misplaced) throw wrongKind(kind, "That is the teacher's token, in the wrong header: send it as X-Admin-Token, not in Authorization or X-API-Key.")
      if (p.apiKey || p.bearer) throw wrongKind(kind, 'This is a teacher route; store keys and tokens do not open it.')
      throw unauthenticated(`This route needs ${AUTH_KINDS.admin.expects}.`)
    }

    if (bearerKind === 'sk_' || bearerKind === 'pk_') {
      throw wrongKind(
        kind,
        p.apiKey
          ? 'An API key was sent in Authorization as well as in X-API-Key: remove the Authorization header, or put a token there (Bearer stu_... or ctk_...); API keys go only in X-API-Key.'
          : 'An API key was sent in Authorization; API keys go in the X-API-Key header.',
      )
    }
    // The teacher's token without Bearer reads as one (withoutBearer): called by its name, not "the Bearer
    // token". Compared only on the way to a refusal: a buyer's every call carries a Bearer token.
    const teacherInAuthorization = () => p.bearer !== null && isAdminToken(p.bearer)

    if (kind === 'customer') {
      if (!p.apiKey) {
        if (p.bearer || p.admin) throw wrongKind(kind, 'Buyer routes need the API key itself; a token alone does not open them.')
        throw unauthenticated(`This route needs ${AUTH_KINDS.customer.expects}.`)
      }
      // Read together only when both are there; otherwise the key's own errors come first, as always.
      const both = p.bearer && bearerKind === 'ctk_' && !/^(stu|ctk)_/.test(p.apiKey) ? rows.keyAndSessionRow(p.apiKey, p.bearer) : null
      const key = apiKey(p.apiKey, kind, both?.key)
      // Until a customer token is there, the refusal is recorded as the key alone (apiKey named it): what was sent.
      if (!p.bearer) throw unauthenticated("This route also needs the customer's token in Authorization: Bearer (from POST /v1/customers/login).")
      if (bearerKind === 'stu_') throw wrongKind(kind, 'Authorization holds a student token, which opens the store panel, not a customer\'s cart or orders.')
      // A token that is a live customer session is not the teacher's: that one comparison is left out.
      if ((bearerKind !== 'ctk_' || !both?.session) && teacherInAuthorization()) {
        throw wrongKind(kind, "Authorization holds the teacher's token, which opens the teacher's routes only.")
      }
      // Any other value is no credential at all: unknown, as a made-up key is.
      if (bearerKind !== 'ctk_') {
        throw unauthenticated(
          "The Bearer token is not a customer token (ctk_...). Log the customer in with this store's key (POST /v1/customers/login) and send the token it returns: Authorization: Bearer ctk_...",
        )
      }
      name(key.storeId, 'customer', null, key.kind === 'publishable')
      const c = customer(both?.session, key.storeId)
      // X-Student-RM names a student only beside the secret key: a publishable one any classmate can copy.
      const publishable = key.kind === 'publishable'
      const actor: Actor = {
        type: 'customer',
        customerId: c.customerId,
        keyId: key.id,
        keyKind: key.kind,
        rm: publishable ? null : attributedRm(key.groupId, p.studentRm),
      }
      return { storeId: key.storeId, groupId: key.groupId, actor }
    }

    if (kind === 'shop' || kind === 'secret') {
      if (p.apiKey) {
        const key = apiKey(p.apiKey, kind)
        const actor: Actor =
          key.kind === 'publishable'
            ? { type: 'publishableKey', keyId: key.id, rm: null }
            : { type: 'secretKey', keyId: key.id, rm: keyCallRm(key.groupId, p) }
        return { storeId: key.storeId, groupId: key.groupId, actor }
      }
      if (bearerKind === 'stu_') return studentCtx(p.bearer!)
      if (bearerKind === 'ctk_') throw wrongKind(kind, 'A customer token alone does not open store routes.')
      if (p.admin || teacherInAuthorization()) throw wrongKind(kind, "The teacher's token does not open store routes.")
      if (p.bearer) throw unauthenticated('The Bearer token is neither a student token (stu_...) nor a customer token (ctk_...).')
      throw unauthenticated(`This route needs ${AUTH_KINDS[kind].expects}.`)
    }

    // student and studentSelf: the store panel
    if (bearerKind === 'stu_') return studentCtx(p.bearer!)
    if (p.apiKey?.startsWith('stu_')) throw wrongKind(kind, STUDENT_TOKEN_AS_KEY)
    if (p.apiKey) throw wrongKind(kind, 'API keys do not open the store panel.')
    if (bearerKind === 'ctk_') throw wrongKind(kind, 'A customer token does not open the store panel.')
    if (p.admin || teacherInAuthorization()) throw wrongKind(kind, "The teacher's token does not open the store panel.")
    if (p.bearer) throw unauthenticated('The Bearer token is not a student token (stu_...). Log in: POST /v1/store/auth/login.')
    throw unauthenticated(`This route needs ${AUTH_KINDS[kind].expects}.`)
  }

  /** A known caller the route still refuses: a student who must change the password, a publishable key on a secret route. */
  function refuse(kind: AuthKind, ctx: StoreCtx) {
    if (ctx.actor.type === 'student' && ctx.actor.mustChangePassword && kind !== 'studentSelf') {
      throw new AppError(
        'PASSWORD_CHANGE_REQUIRED',
        'Change your initial password first: POST /v1/store/auth/change-password with {currentPassword, newPassword}.',
      )
    }
    if (ctx.actor.type === 'publishableKey' && kind === 'secret') {
      throw new AppError(
        'SECRET_KEY_REQUIRED',
        "This route needs the store's secret key (sk_...), which belongs on your app's server and never in a browser page. " +
          "A publishable key (pk_...) opens only the shop-front routes: catalog reads, customer register and login, and with a customer token the cart, checkout, payment and the customer's own orders and reviews.",
      )
    }
  }

  /** The store the last authentication named on its way to a refusal, if it named one. */
  const named = (): NamedStore | undefined =>
    namedStore === undefined ? undefined : { storeId: namedStore, credential: namedCredential, rm: namedRm, shopFront: namedShopFront }

  /**
   * A call made with a live key or student token of a store, whatever its route answers: counted for
   * that store and under its rate limit (429 once it is spent). For a call a buyer or panel route
   * refuses (a key without its customer token, a key on the panel), and for a call to no route
   * (kernel.ts). A credential that opens no store route (unknown, revoked, an ended session) counts for
   * none; one that named its store still files the call in that store's inspector.
   */
  function admitKnown(call: Call) {
    namedStore = undefined
    let ctx: StoreCtx | null
    try {
      ctx = authenticate('shop', call.request)
    } catch {
      call.refused ??= named()
      return
    }
    if (!ctx) return
    call.ctx = ctx
    deps.activity.count(ctx)
    limits.take(ctx, call)
  }

  return {
    /**
     * Authenticates, remembers the caller on the call for the route's handler, counts the call and applies the
     * rate limit (setting the RateLimit-* headers), all before any refusal, so that a refused call of a
     * known caller counts and is limited too. `server` tells a shop-front call's client address.
     * Returns null for teacher routes.
     */
    admit(kind: AuthKind, call: Call): StoreCtx | null {
      namedStore = undefined
      let ctx: StoreCtx | null
      try {
        ctx = authenticate(kind, call.request)
      } catch (e) {
        call.refused = named()
        if (kind === 'customer' || kind === 'student' || kind === 'studentSelf') {
          admitKnown(call)
          // Refused at the door all the same: the inspector counts a flood of them as one entry per source.
          if (call.ctx) call.refused ??= namedStoreOf(call.ctx)
        }
        throw e
      }
      if (!ctx) return null
      call.ctx = ctx
      deps.activity.count(ctx)
      limits.take(ctx, call)
      refuse(kind, ctx)
      return ctx
    },

    admitKnown,

    chargeAnswer: limits.chargeAnswer,

    /** Whether `request`'s credential would pass `kind` now (macro.ts, StillAdmits); nothing is counted. */
    stillAdmits(kind: AuthKind, request: Request): boolean {
      try {
        const ctx = authenticate(kind, request)
        if (ctx) refuse(kind, ctx)
        return true
      } catch {
        return false
      }
    },
  }
}
