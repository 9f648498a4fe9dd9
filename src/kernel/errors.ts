import { z } from 'zod'
import { describeId } from './ids'

/**
 * The closed catalogue of error codes and the HTTP status each one answers with.
 * Every failure the service reports goes through AppError with one of these codes.
 */
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  UNAUTHENTICATED: 401,
  WRONG_CREDENTIAL: 401,
  PAYMENT_DECLINED: 402,
  PASSWORD_CHANGE_REQUIRED: 403,
  /** A publishable key (pk_) on a route that the store's secret key opens: the call belongs on the app's server. */
  SECRET_KEY_REQUIRED: 403,
  FORBIDDEN: 403,
  REVIEW_NOT_ALLOWED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  RM_IN_OTHER_GROUP: 409,
  ALREADY_MEMBER: 409,
  CANNOT_REMOVE_SELF: 409,
  GROUP_WOULD_BE_EMPTY: 409,
  ALREADY_REVIEWED: 409,
  MEDIA_IN_USE: 409,
  INSUFFICIENT_STOCK: 409,
  CART_EMPTY: 409,
  INVALID_TRANSITION: 409,
  PRODUCT_UNAVAILABLE: 409,
  IDEMPOTENCY_IN_PROGRESS: 409,
  /** A store or group already has as many of something as it may (webhook endpoints, members, live streams, uploads at once); the message names the limit. */
  LIMIT_REACHED: 409,
  PAYLOAD_TOO_LARGE: 413,
  FILE_TOO_LARGE: 413,
  QUOTA_EXCEEDED: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RANGE_NOT_SATISFIABLE: 416,
  IDEMPOTENCY_KEY_REUSED: 422,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
  INSUFFICIENT_STORAGE: 507,
} as const

export type ErrorCode = keyof typeof ERROR_STATUS

export type ErrorDetail = Record<string, unknown>

export class AppError extends Error {
  readonly status: number
  /** Always given for VALIDATION_ERROR: `[{path, message}]`, with path '' for the body as a whole when none is named. */
  readonly details?: ErrorDetail[]

  constructor(
    readonly code: ErrorCode,
    message: string,
    details?: ErrorDetail[],
    /** Extra response headers, e.g. `Allow` on a 405 or `Retry-After` on a 429. */
    readonly headers?: Record<string, string>,
  ) {
    super(message)
    this.name = 'AppError'
    this.status = ERROR_STATUS[code]
    this.details = details ?? (code === 'VALIDATION_ERROR' ? [{ path: '', message }] : undefined)
  }
}

/**
 * 409 LIMIT_REACHED once `current` has reached `limit`, said the same way everywhere: "<who> already has
 * <current> <things>, and <limit> is the most <owner> may have. <fix>", with `[{limit, current}]` in details.
 */
export function assertBelowLimit(current: number, limit: number, said: { who: string; things: string; owner: string; fix: string }) {
  if (current < limit) return
  throw new AppError('LIMIT_REACHED', `${said.who} already has ${current} ${said.things}, and ${limit} is the most ${said.owner} may have. ${said.fix}`, [{ limit, current }])
}

/**
 * The 404 of a store resource. When the id's prefix names another kind of thing, the message says so
 * ("'var_…' is a variant id"): the commonest mix-up is a product id where a variant id belongs.
 * `where` says where to find the right ids, e.g. 'GET /v1/products lists them'.
 */
export function notFound(what: string, id: string, where: string) {
  const mixUp = idMixUp(id, what)
  return new AppError('NOT_FOUND', `No ${what} with id '${clip(id)}' in this store.${mixUp ? ` ${mixUp}.` : ''} Check the id; ${where}.`)
}

/** "'brd_…' is a brand id, not a category id" when the id's prefix names another kind than `what`. */
export function idMixUp(id: string, what: string): string | undefined {
  const named = describeId(id)
  return named && named !== what ? `'${clip(id)}' is ${article(named)} ${named} id, not ${article(what)} ${what} id` : undefined
}

/**
 * What a message quotes of the caller's own input (an id, a path), cut short: an error never echoes
 * kilobytes back, whatever was sent.
 */
export const clip = (text: string, max = 80) => (text.length > max ? `${text.slice(0, max)}…` : text)

const article = (noun: string) => (/^[aeiouAEIOU]/.test(noun) ? 'an' : 'a')

/** The one error body of the whole API, also published in the OpenAPI document. */
export const ErrorEnvelope = z
  .object({
    error: z.object({
      code: z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]),
      message: z.string().describe('A sentence saying what went wrong and what to do next.'),
      details: z
        // path and message typed where a VALIDATION_ERROR has them, so a generated client reads d.path as a string, without a cast.
        .array(
          z.looseObject({
            path: z.string().optional().describe('VALIDATION_ERROR: where the problem is (`""` the body as a whole, `tags.1` the second tag)'),
            message: z.string().optional().describe('VALIDATION_ERROR: what is wrong there and how to fix it'),
          }),
        )
        .optional()
        .describe('Always present on VALIDATION_ERROR: `[{path, message}]`, one per problem (path `""` is the body as a whole, `tags.1` the second tag). Other codes may list what they are about, e.g. the variants of INSUFFICIENT_STOCK.'),
      requestId: z.string().optional().describe('Quote it when asking the teacher about an internal error.'),
    }),
  })
  .meta({ id: 'Error' })

export type ErrorBody = z.infer<typeof ErrorEnvelope>

export const errorBody = (error: AppError, requestId?: string): ErrorBody => ({
  error: {
    code: error.code,
    message: error.message,
    ...(error.details ? { details: error.details } : {}),
    ...(requestId && error.status >= 500 ? { requestId } : {}),
  },
})
