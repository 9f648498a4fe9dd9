/**
 * A JSON body as the final response, with the headers the kernel set for this request (CORS, request
 * id, rate limit). Elysia copies a returned Response through a stream when `set` still holds headers,
 * a good part of a cached read's time (bench/README.md); with them moved onto the Response it sends it
 * as it is.
 * Elysia does not check a returned Response against the route's `response` schema: the caller answers
 * for the body (the schema still writes the OpenAPI document).
 */
export function jsonResponse(body: string, set: { headers: Record<string, unknown> }) {
  const headers = set.headers as Record<string, string>
  headers['content-type'] = 'application/json'
  set.headers = {}
  return new Response(body, { headers })
}
