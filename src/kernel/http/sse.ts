import type { Server } from 'bun'

// Server-Sent Events as the live streams write them (the request inspector's, storefront listen's):
// their framing, and the answer that carries them.

const encoder = new TextEncoder()

/** One event: its type, its id when it has one (what a client sends back as Last-Event-ID), and its data as JSON. */
export const sseEvent = (event: string, data: unknown, id?: string) => encoder.encode(`event: ${event}\n${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`)

/** A comment line: a client ignores it, and it keeps proxies and the client's own timeouts from closing a quiet stream. */
export const sseComment = (text: string) => encoder.encode(`: ${text}\n\n`)

/**
 * The answer carrying `body`: kept open past the server's idle timeout (a stream may wait longer than it
 * for its next event), ended by `end` when the client goes.
 */
export function sseResponse(body: ReadableStream<Uint8Array>, request: Request, server: Server<unknown> | null | undefined, end: () => void): Response {
  request.signal.addEventListener('abort', end)
  server?.timeout(request, 0)
  return new Response(body, { headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' } })
}
