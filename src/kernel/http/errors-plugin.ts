import type { Server } from 'bun'
import { Elysia, ValidationError } from 'elysia'
import { AppError, clip, errorBody } from '../errors'
import type { Log } from '../log'
import type { RouteTable } from './route-table'
import { carriesBody, closeAfter } from './unread-body'
import { toValidationError } from './validation'

/**
 * The one place where failures become responses: every error, whatever threw it, leaves as the
 * one error envelope. Unknown errors are logged with the request id and never shown.
 */
export const errorsPlugin = (routes: RouteTable, log: Log, onFailure: (request: Request, status: number, server: Server<unknown> | null) => void) =>
  new Elysia().onError({ as: 'global' }, ({ code, error, set, request, path, server }) => {
    const requestId = String(set.headers['x-request-id'] ?? '')
    const appError = toAppError(code, error, request.method, path, routes)
    onFailure(request, appError.status, server)
    if (appError.status >= 500) {
      log.error('request failed', {
        requestId,
        method: request.method,
        path,
        error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      })
    }
    set.status = appError.status
    Object.assign(set.headers, appError.headers)
    // A refusal may come before or while the body arrives (unread-body.ts).
    if (carriesBody(request)) closeAfter(set.headers)
    return errorBody(appError, requestId)
  })

/**
 * The answer that replaces one made while a commit group was open, when that group could not commit
 * (database.ts, groupedWrite): what the first answer said may never have happened.
 */
export function uncommittedAnswer(failure: unknown, answered: Response, log: Log): Response {
  const requestId = answered.headers.get('x-request-id') ?? ''
  const appError = isDiskFull(failure) ? diskFull() : internal()
  log.error('the writes this answer rested on did not commit; the answer was replaced', { requestId, error: failure instanceof Error ? failure.message : String(failure) })
  void answered.body?.cancel()
  const headers = new Headers(answered.headers)
  headers.set('content-type', 'application/json')
  return new Response(JSON.stringify(errorBody(appError, requestId)), { status: appError.status, headers })
}

function toAppError(code: unknown, error: unknown, method: string, path: string, routes: RouteTable): AppError {
  if (error instanceof AppError) return error
  // A throw inside a body parser arrives wrapped in Elysia's ParseError.
  if (code === 'PARSE') {
    const cause = (error as Error).cause
    if (cause instanceof AppError) return cause
    return new AppError('VALIDATION_ERROR', 'The request body could not be read. Send JSON with Content-Type: application/json.')
  }
  if (error instanceof ValidationError) {
    if (error.type === 'response') return internal()
    return toValidationError(error)
  }
  if (code === 'NOT_FOUND') return routeNotFound(method, path, routes)
  if (isDiskFull(error)) return diskFull()
  return internal()
}

/** SQLite's SQLITE_FULL and the file system's ENOSPC: the server's disk has no room left. */
function isDiskFull(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | undefined
  return e?.code === 'SQLITE_FULL' || e?.code === 'ENOSPC' || /database or disk is full/.test(String(e?.message ?? ''))
}

const diskFull = () =>
  new AppError(
    'INSUFFICIENT_STORAGE',
    "The server's disk is full, so nothing was saved by this request. Tell the teacher; once there is room again, send it again.",
  )

const internal = () =>
  new AppError(
    'INTERNAL_ERROR',
    'Something went wrong inside the server. Try the request again; if it keeps failing, give the teacher the requestId.',
  )

function routeNotFound(method: string, path: string, routes: RouteTable): AppError {
  const shown = clip(path, 200)
  const allowed = routes.methodsFor(path)
  if (allowed.length > 0) {
    return new AppError(
      'METHOD_NOT_ALLOWED',
      `${shown} does not accept ${method}. It accepts ${allowed.join(', ')}.`,
      undefined,
      { allow: allowed.join(', ') },
    )
  }
  const suggestion = routes.suggest(method, path)
  const hint = suggestion ? ` Did you mean ${suggestion}?` : ''
  const prefix = !path.startsWith('/v1/') && !suggestion ? ' API routes start with /v1.' : ''
  return new AppError('NOT_FOUND', `There is no route ${clip(method, 20)} ${shown}.${hint}${prefix} Every route is listed at /docs.`)
}
