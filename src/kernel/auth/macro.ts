import { Elysia, type DocumentDecoration } from 'elysia'
import { AppError } from '../errors'
import { AUTH_KINDS, type AuthKind, type StoreAuthKind, type StoreCtx } from './kinds'

/** The OpenAPI extension that carries a route's auth kind to the route table and to readers. */
export const AUTH_EXTENSION = 'x-storefront-auth'
/** Marks a route that reads a multipart upload from the request stream itself. */
export const UPLOAD_EXTENSION = 'x-storefront-upload'

/**
 * `{ auth: 'secret' }` on a route: declares the credential it takes (security in the OpenAPI document)
 * and hands the handler `ctx`, the authenticated store context. `{ admin: true }` for teacher routes.
 */
const detailFor = (kind: AuthKind) =>
  ({
    security: AUTH_KINDS[kind].security.map((requirement) => Object.fromEntries(Object.keys(requirement).map((scheme) => [scheme, []]))),
    [AUTH_EXTENSION]: kind,
  }) as DocumentDecoration

/**
 * Whether the credential a request came with would be admitted now, by the route's own rule: a stream
 * asks before each message, since its key may be revoked, or its session ended (a password change, a
 * member removed, 24 hours gone), while it stays open.
 */
export type StillAdmits = (request: Request) => boolean

// The kernel runs every route itself and hands the handler the admitted caller as `ctx`, and
// `stillAdmits` (kernel/http/kernel.ts); these declare their types. Elysia never runs the route, so never this.
const runByTheKernel = () => {
  throw new AppError('INTERNAL_ERROR', 'The route was run outside the kernel, which authenticates it.')
}

export const authMacro = new Elysia({ name: 'storefront/auth' }).macro({
  auth: (kind: StoreAuthKind) => ({
    detail: detailFor(kind),
    resolve: (): { ctx: StoreCtx; stillAdmits: StillAdmits } => runByTheKernel(),
  }),
  admin: (enabled: boolean) => ({ detail: enabled ? detailFor('admin') : {}, resolve: (): { stillAdmits: StillAdmits } => runByTheKernel() }),
})
