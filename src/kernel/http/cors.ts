// CORS for browser apps on other LAN hosts. No cookies are used (credentials travel in
// headers), so `*` is exact and safe. Written here rather than with @elysiajs/cors, which sends
// `Vary: *` on every response and `Access-Control-Allow-Headers: undefined` on a bare preflight.

export const EXPOSED_HEADERS = [
  'X-Request-Id',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'Retry-After',
  'Location',
  'Allow',
  'Idempotent-Replayed',
  // A file's: a page's own player or cache reads a range's place and the version it has.
  'Content-Range',
  'Accept-Ranges',
  'ETag',
].join(', ')

const ALLOWED_HEADERS = 'Content-Type, X-API-Key, Authorization, X-Student-RM, X-Admin-Token, Idempotency-Key, X-Request-Id, X-Storefront-Client'
const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE'

export const corsHeaders = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': EXPOSED_HEADERS,
}

export const isPreflight = (request: Request) =>
  request.method === 'OPTIONS' && request.headers.has('access-control-request-method')

/** `close`: the preflight carried a body, which is not read (unread-body.ts). */
export function preflightResponse(request: Request, requestId: string, close: boolean): Response {
  return new Response(null, {
    status: 204,
    headers: {
      ...corsHeaders,
      'access-control-allow-methods': ALLOWED_METHODS,
      'access-control-allow-headers': request.headers.get('access-control-request-headers') || ALLOWED_HEADERS,
      'access-control-max-age': '600',
      'x-request-id': requestId,
      ...(close ? { connection: 'close' } : {}),
    },
  })
}
