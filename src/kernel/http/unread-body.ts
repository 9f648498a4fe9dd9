// A body the server does not read to its end must end the connection with the answer. Kept open,
// HTTP/1.1 has the server read the rest of the body before the next request, and the sender decides how
// long the rest is: a chunked body that never ends kept a core busy reading and discarding gigabytes,
// from anyone, on any route. So an answer sent before the body was read, or instead of reading it (a
// refusal, or a GET), says `Connection: close`, and Bun then closes. A route of another method that
// takes no body reads one sent to it within the JSON limit, to refuse it (json-body.ts, assertNoBody).

export function carriesBody(request: Request): boolean {
  // A GET's body is null to the handler even when the wire carries one: the headers tell.
  return request.body !== null || declaresBody(request)
}

/** Methods whose body no route reads. */
const UNREAD_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

export const bodyIsNeverRead = (request: Request) => UNREAD_METHODS.has(request.method) && declaresBody(request)

/** The headers say a body follows (a GET's body is null to the handler whatever the wire carries). */
const declaresBody = (request: Request) => request.headers.has('transfer-encoding') || Number(request.headers.get('content-length') ?? 0) > 0

/** Marks the answer to end the connection. */
export function closeAfter(headers: Record<string, unknown>) {
  headers.connection = 'close'
}
