import { BLOCK, JSON_BLOCK, answerHeaders } from './answer-headers'
import type { Call } from './call'
import { JsonText, type JsonBody } from './json-response'

// How what a handler gives becomes its Response (the kernel, kernel.ts, calls them for every answer).

/**
 * The one builder of a handler's answer: a Response as it is, with the kernel's headers it does not set
 * itself; kept JSON text (jsonResponse) and any other value but a string as JSON, `charge`d for its size;
 * a string as text; nothing as an empty body.
 */
export function toAnswer(call: Call, value: unknown, charge: (call: Call, body: JsonBody) => void): Response {
  const status = call.set.status
  if (value instanceof JsonText) {
    charge(call, value.body)
    return new Response(value.body, { status, headers: answerHeaders(call, JSON_BLOCK) })
  }
  if (value instanceof Response) return withHeaders(value, call)
  if (value === undefined || value === null) return new Response(null, { status, headers: answerHeaders(call, BLOCK) })
  if (typeof value === 'string') {
    const headers = answerHeaders(call, BLOCK)
    if (!headers.has('content-type')) headers.set('content-type', 'text/plain')
    return new Response(value, { status, headers })
  }
  if (value instanceof Blob) return new Response(value, { status, headers: answerHeaders(call, BLOCK) })
  const json = JSON.stringify(value)
  charge(call, json)
  return new Response(json, { status, headers: answerHeaders(call, JSON_BLOCK) })
}

/** A Response a handler made: the kernel's headers it lacks are added, and `set.status` when it says 200. */
function withHeaders(response: Response, call: Call): Response {
  const { set } = call
  let target = response
  if (response.status === 200 && set.status !== 200) target = new Response(response.body, { status: set.status, headers: response.headers })
  const headers = target.headers
  for (const [name, value] of BLOCK) if (!headers.has(name)) headers.set(name, value)
  if (!headers.has('x-request-id')) headers.set('x-request-id', call.requestId)
  for (const name in set.headers) if (!headers.has(name)) headers.set(name, String(set.headers[name]))
  return target
}

/**
 * The answer to a HEAD: the GET route's status and headers, with the length its body would have had
 * (read for an answer made in memory; a file's answer states its own), and no body.
 */
export function withoutBody(response: Response): Response | Promise<Response> {
  const { status, headers } = response
  if (response.body === null || headers.has('content-length')) {
    void response.body?.cancel()
    return new Response(null, { status, headers })
  }
  return response.arrayBuffer().then((bytes) => {
    const measured = new Headers(headers)
    measured.set('content-length', String(bytes.byteLength))
    return new Response(null, { status, headers: measured })
  })
}
