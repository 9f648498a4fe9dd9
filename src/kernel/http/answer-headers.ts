import type { Call } from './call'
import { corsHeaders } from './cors'

// The headers of every answer come from blocks made once (CORS: a browser app on another host may call
// and read them) copied per answer, which costs less than building them by name; only the request id
// and what the call itself set (RateLimit-*, Location, Connection: close) are added per request.

/** CORS, for every answer. */
export const BLOCK = new Headers(corsHeaders)
/** CORS and the JSON content type. */
export const JSON_BLOCK = new Headers({ ...corsHeaders, 'content-type': 'application/json' })

/** A copy of `block` with the call's request id and the headers its steps and handler set. */
export function answerHeaders(call: Call, block: Headers): Headers {
  const headers = new Headers(block)
  headers.set('x-request-id', call.requestId)
  const own = call.set.headers
  for (const name in own) headers.set(name, String(own[name]))
  return headers
}
