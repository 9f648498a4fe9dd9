import { apiKeyPrefix } from '../auth/credentials'
import { isShopFront, type AuthKind, type StoreCtx } from '../auth/kinds'
import type { Call } from './call'

// The seam between the HTTP kernel and the request inspector (features/inspector): the kernel hands
// over each answered call of a store's credential; the feature keeps, redacts and serves them. What the
// kernel does per call that succeeds is a few field reads: the costly parts (headers, bodies, the
// answer's text) are taken only for an answer >= 400. Design: docs/inspector.md.

/** The credential kinds a student reads in the inspector. */
export type InspectedCredential = 'secret' | 'publishable' | 'student' | 'customer'

/** Whose store a call was made for: from the admitted caller, or from a credential the gate refused. */
export interface NamedStore {
  storeId: string
  credential: InspectedCredential
  rm: string | null
  /**
   * A call of the store's shop front: its publishable key, alone or with a customer's token (a customer
   * call with the secret key is not). Such calls are kept apart, so that whoever copies the key from the
   * shop page cannot push out the calls of the store's server and students.
   */
  shopFront: boolean
}

/** One answered call, as the kernel saw it. */
export interface InspectedCall {
  store: NamedStore
  request: Request
  requestId: string
  status: number
  durationMs: number
  /** For an answer >= 400: the body text the kernel read from the request (JSON or text routes), if any. */
  sentBody: string | undefined
  /** For an answer >= 400: the answer's body text. */
  answerBody: string | undefined
  /**
   * For a refusal that a flood repeats (refusalSource below): who sent it. The inspector keeps these
   * as one counted entry per source and minute. Undefined for every other call.
   */
  source: string | undefined
  /** For an answer >= 400: the credential kind the route declares (undefined for a path no route has), so a refusal can name what was missing. */
  routeAuth?: AuthKind
}

export interface RequestInspector {
  record(call: InspectedCall): void
}

/** A recorder that keeps nothing (the bench's "bookkeeping off" variant, or a deps object built by hand). */
export const inspectNothing: RequestInspector = { record() {} }

/** Marks a route whose calls are not inspected: reading the inspector must not fill it. */
export const NOT_INSPECTED_EXTENSION = 'x-storefront-not-inspected'

const CREDENTIAL: Record<StoreCtx['actor']['type'], InspectedCredential> = {
  secretKey: 'secret',
  publishableKey: 'publishable',
  student: 'student',
  customer: 'customer',
}

export const namedStoreOf = (ctx: StoreCtx): NamedStore => ({ storeId: ctx.storeId, credential: CREDENTIAL[ctx.actor.type], rm: ctx.actor.rm, shopFront: isShopFront(ctx.actor) })

/** Whose store a call was for: as the gate named it on the way to a refusal, else the admitted caller's; undefined for a call of no store. */
export const storeOfCall = (call: Call): NamedStore | undefined => call.refused ?? (call.ctx && namedStoreOf(call.ctx))

/**
 * The source of a refusal a flood is made of, or undefined for any other failure: a 429 of the rate
 * limit, and a 401 of the gate for a credential that named the store (a publishable key on a buyer
 * route without a valid customer token, a key on the store panel, a revoked key, an expired student
 * session). The source is the credential's kind, which credential (an API key's public prefix, a
 * student's RM; never a secret) and the client's address. Called on the failed path only.
 */
export function refusalSource(call: Call, status: number, address: () => string): string | undefined {
  const { ctx: caller, request } = call
  const store = status === 429 && caller ? storeOfCall(call) : status === 401 ? call.refused : undefined
  if (!store) return undefined
  const which = store.credential === 'student' ? `rm ${store.rm ?? '?'}` : (apiKeyPrefix(request.headers.get('x-api-key')?.trim() ?? '') ?? 'key ?')
  return `${store.credential} ${which} from ${address()}`
}
