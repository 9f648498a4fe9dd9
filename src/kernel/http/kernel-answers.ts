import type { ErrorCode } from '../errors'
import type { RouteEntry } from './route-table'

/**
 * The errors a route may answer that no feature code of its own throws: those the kernel gives before
 * or around the handler (the credential, the rate limit, the body, the query), those of any request
 * (a fault, a full disk) and the 404 of an id in the path. The OpenAPI document lists them on every
 * operation, so that routes declare only what their own feature may answer and a client generated
 * from the document still knows every answer.
 */
export function kernelErrors(route: RouteEntry): ErrorCode[] {
  // Any answer may be a fault, and any answer made while a commit group was open is replaced by that
  // group's failure when it could not commit (kernel.ts, answered): a full disk, whatever the method.
  const codes: ErrorCode[] = ['INTERNAL_ERROR', 'INSUFFICIENT_STORAGE']
  const { auth } = route
  if (auth) codes.push('UNAUTHENTICATED', 'WRONG_CREDENTIAL')
  // The gate limits every store credential, not the teacher's (gate.ts, admit).
  if (auth && auth !== 'admin') codes.push('RATE_LIMITED')
  // A known caller the gate still refuses (gate.ts, refuse): a publishable key on a secret route, and a
  // student token, which the shop, secret and panel routes take, whose first password was not changed.
  if (auth === 'secret') codes.push('SECRET_KEY_REQUIRED')
  if (auth === 'secret' || auth === 'shop' || auth === 'student') codes.push('PASSWORD_CHANGE_REQUIRED')
  if (route.body || route.textBody || route.upload) codes.push('VALIDATION_ERROR', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE')
  // A route that takes no body refuses one that says something, read within the JSON limit (json-body.ts, assertNoBody).
  else if (route.method !== 'GET' && route.method !== 'HEAD') codes.push('VALIDATION_ERROR', 'PAYLOAD_TOO_LARGE')
  if (route.checksQuery) codes.push('VALIDATION_ERROR')
  // A parameter in the path names something of the store, which may not exist (or be another store's).
  if (route.path.includes('/:')) codes.push('NOT_FOUND')
  return [...new Set(codes)]
}
