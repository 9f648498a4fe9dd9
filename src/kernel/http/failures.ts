import { AppError, clip, errorBody } from '../errors'
import type { Log } from '../log'
import type { RouteTable } from './route-table'

// The one place where failures become answers: every error, whatever threw it, leaves as the one error
// envelope (errorAnswer). Unknown errors are never shown; the kernel logs them with the request id.

/** The error envelope as an answer, with `headers` (the kernel's own), the error's own and the JSON type. */
export function errorAnswer(error: AppError, requestId: string, headers: Headers): Response {
  if (error.headers) for (const name in error.headers) headers.set(name, error.headers[name]!)
  headers.set('content-type', 'application/json')
  return new Response(JSON.stringify(errorBody(error, requestId)), { status: error.status, headers })
}

/**
 * The answer that replaces one made while a commit group was open, when that group could not commit
 * (database.ts, groupedWrite): what the first answer said may never have happened. `headers` are the
 * kernel's own for the call, as for any error: nothing of the replaced answer's is kept.
 */
export function uncommittedAnswer(failure: unknown, answered: Response, requestId: string, headers: Headers, log: Log): Response {
  log.error('the writes this answer rested on did not commit; the answer was replaced', { requestId, error: failure instanceof Error ? failure.message : String(failure) })
  void answered.body?.cancel()
  return errorAnswer(isDiskFull(failure) ? diskFull() : internal(), requestId, headers)
}

/** What a thrown value answers: an AppError as it is, a full disk as 507, anything else as a 500 that shows nothing of it. */
export function toAppError(error: unknown, request?: Request): AppError {
  if (error instanceof AppError) return error
  if (isDiskFull(error)) return diskFull()
  if (request && bodyCut(error, request)) return cutShort()
  return internal()
}

/**
 * The client closed the connection before its whole body arrived (a Content-Length that promised more,
 * an upload given up): the client's doing, not the server's fault. Bun fails the body's read with an
 * AbortError and marks the request's signal.
 */
const bodyCut = (error: unknown, request: Request) => request.signal.aborted && (error as { name?: unknown } | undefined)?.name === 'AbortError'

const cutShort = () =>
  new AppError(
    'VALIDATION_ERROR',
    'The connection closed before the whole request body arrived: send all of it (Content-Length must be its size in bytes), and keep the connection open until the answer comes.',
  )

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

/** 405 with `Allow` when the path has routes for other methods, else 404 with the closest route when one is near. */
export function routeNotFound(method: string, path: string, routes: RouteTable): AppError {
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
