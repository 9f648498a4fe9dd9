import { AppError } from '../errors'

/**
 * The kinds of credential a route can take, declared once on the route (`{ auth: 'secret' }`), which
 * the gate enforces and the OpenAPI document shows as the operation's security.
 */
export const AUTH_KINDS = {
  /** What a shop front in a browser needs without a customer: catalog reads, customer register and login. */
  shop: {
    security: [{ publishableKey: [] }, { secretKey: [] }, { studentToken: [] }],
    expects: "your store's API key in X-API-Key, publishable (pk_...) or secret (sk_...); a student token in Authorization: Bearer also works",
  },
  /** Managing the store from the app's server: the secret key, never the publishable one. */
  secret: {
    security: [{ secretKey: [] }, { studentToken: [] }],
    expects: "your store's secret API key (sk_...) in X-API-Key (a student token in Authorization: Bearer also works)",
  },
  student: {
    security: [{ studentToken: [] }],
    expects: 'a student token in Authorization: Bearer (log in with POST /v1/store/auth/login)',
  },
  /** The two routes a student who must change the password may still call (me, change-password). */
  studentSelf: {
    security: [{ studentToken: [] }],
    expects: 'a student token in Authorization: Bearer (log in with POST /v1/store/auth/login)',
  },
  /** A logged-in buyer: either kind of store key plus the customer's token. */
  customer: {
    security: [
      { publishableKey: [], customerToken: [] },
      { secretKey: [], customerToken: [] },
    ],
    expects: "the store's API key in X-API-Key (publishable or secret) plus the customer's token in Authorization: Bearer (from POST /v1/customers/login)",
  },
  admin: {
    security: [{ adminToken: [] }],
    expects: "the teacher's token in X-Admin-Token",
  },
} as const

export type AuthKind = keyof typeof AUTH_KINDS

/**
 * A secret key (`sk_`) opens every store route and belongs on the app's server; a publishable key
 * (`pk_`) opens only the shop-front routes and may sit in a browser page.
 */
export type ApiKeyKind = 'secret' | 'publishable'
export const API_KEY_KINDS = ['secret', 'publishable'] as const satisfies readonly ApiKeyKind[]
export type StoreAuthKind = Exclude<AuthKind, 'admin'>

/** Who is calling, within one store. Every service function takes it first. */
export interface StoreCtx {
  storeId: string
  groupId: string
  actor: Actor
}

export type Actor =
  /** rm: the member named by X-Student-RM (else by their student token beside the key), or null when neither names a member of this group. */
  | { type: 'secretKey'; keyId: string; rm: string | null }
  /**
   * Never a student's call: any classmate can copy a publishable key from the shop page and send any
   * X-Student-RM with it, so its calls count for the group's shop front only.
   */
  | { type: 'publishableKey'; keyId: string; rm: null }
  | { type: 'student'; rm: string; mustChangePassword: boolean }
  /** keyKind: the kind of the X-API-Key sent with the customer's token; rm is null with a publishable one. */
  | { type: 'customer'; customerId: string; keyId: string; keyKind: ApiKeyKind; rm: string | null }

/**
 * A call of the store's shop front: made with its publishable key, alone or with a customer's token.
 * That key sits in a shop page, where anyone can copy it, so such calls read what the shop shows the
 * public (PUBLISHED products only), have rate-limit buckets of their own (per client address) and count
 * for the group's shop front, never for a student: whoever copies the key can neither see drafts, nor
 * shut the group out, nor inflate a member's count.
 */
export const isShopFront = (actor: Actor) => actor.type === 'publishableKey' || (actor.type === 'customer' && actor.keyKind === 'publishable')

export type StudentCtx = StoreCtx & { actor: Extract<Actor, { type: 'student' }> }

/** A route reached with a credential its declaration should have refused: the server's fault, never the caller's. */
const misdeclared = (needed: string) =>
  new AppError('INTERNAL_ERROR', `This route was reached without ${needed}, which the server should have refused. Tell the teacher, with the requestId.`)

/** For routes declared `student`/`studentSelf`: the gate let only a student token through. */
export function asStudent(ctx: StoreCtx): StudentCtx {
  if (ctx.actor.type !== 'student') throw misdeclared('a student token')
  return ctx as StudentCtx
}

/** For routes declared `customer`: the gate let only a customer's token through. */
export function customerOf(ctx: StoreCtx): string {
  if (ctx.actor.type !== 'customer') throw misdeclared("a customer's token")
  return ctx.actor.customerId
}
