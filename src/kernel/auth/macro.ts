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

export const authMacro = new Elysia({ name: 'storefront/auth' }).macro({
  auth: (kind: StoreAuthKind) => ({
    detail: detailFor(kind),
    // The kernel runs every route itself and hands the handler the admitted caller as `ctx`
    // (kernel/http/kernel.ts); this declares its type. Elysia never runs the route, so never this.
    resolve: (): { ctx: StoreCtx } => {
      throw new AppError('INTERNAL_ERROR', 'The route was run outside the kernel, which authenticates it.')
    },
  }),
  admin: (enabled: boolean) => ({ detail: enabled ? detailFor('admin') : {} }),
})
