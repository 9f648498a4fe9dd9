import { AppError } from '../errors'

// What a request presents to the gate (gate.ts): its credentials, as the headers carry them.

/**
 * The credentials a request presents. The teacher's token and X-Student-RM are read when a check asks
 * for them: most calls present a key and never do. A class, so that its getters are shared, not made
 * for every request.
 */
export class Presented {
  readonly apiKey: string | null
  readonly bearer: string | null
  /** The Bearer token's prefix up to its first `_` (`ctk_`, `stu_`, `sk_`), '' for none; null without a Bearer token. */
  readonly bearerKind: string | null

  constructor(
    private readonly headers: Headers,
    isAdminToken: (value: string) => boolean,
  ) {
    const authorization = headers.get('authorization')
    this.bearer = authorization === null ? null : (authorization.match(/^Bearer\s+(\S+)\s*$/i)?.[1] ?? withoutBearer(authorization, isAdminToken))
    this.bearerKind = this.bearer?.slice(0, this.bearer.indexOf('_') + 1) ?? null
    this.apiKey = headers.get('x-api-key')?.trim() || null
  }

  get admin() {
    return this.headers.get('x-admin-token')?.trim() || null
  }

  get studentRm() {
    return this.headers.get('x-student-rm')?.trim() || null
  }
}

/**
 * The credential in an Authorization header that lacks the word Bearer. A key there (or the teacher's
 * token) is answered as if Bearer had been written: the route's check then names the header it goes in,
 * where "write Bearer" would lead to a second mistake. A token is told the exact form.
 */
function withoutBearer(authorization: string, isAdminToken: (value: string) => boolean): string {
  const value = authorization.trim().split(/\s+/).pop() ?? ''
  if (/^[sp]k_/.test(value) || isAdminToken(value)) return value
  const token = /^(stu|ctk)_/.exec(value)
  throw new AppError(
    'UNAUTHENTICATED',
    token
      ? `The Authorization header must look like "Bearer <token>": the word Bearer, a space, then the token (Authorization: Bearer ${token[0]}...).`
      : 'The Authorization header must look like "Bearer <token>", with a student token (stu_...) or a customer token (ctk_...); API keys go in X-API-Key.',
  )
}
