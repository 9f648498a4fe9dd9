import type { Server } from 'bun'
import type { StillAdmits } from '../../kernel/auth/macro'
import { sseComment, sseEvent, sseResponse } from '../../kernel/http/sse'
import type { RequestLog, StreamSlots } from './log'

/** A comment line every so often keeps proxies and the client's own timeouts from closing a quiet stream. */
const HEARTBEAT_MS = 15_000
/** A reader this far behind is let go rather than letting its queue grow in the server's memory. */
const MAX_BEHIND = 256 * 1024

/**
 * The store's new calls as Server-Sent Events until the client goes, taking a place among the store's
 * streams or the teacher's. Subscribing first makes one too many a 409 before anything is sent. Before
 * each message the credential that opened it is asked again (`stillAdmits`): a key revoked, a member
 * removed or a password changed ends the stream, as it ends every other call of that credential.
 */
export function liveStream(log: RequestLog, storeId: string, slots: StreamSlots, request: Request, server: Server<unknown> | null, stillAdmits: StillAdmits): Response {
  let controller!: ReadableStreamDefaultController<Uint8Array>
  let heartbeat: ReturnType<typeof setInterval> | undefined
  let open = true
  const send = (chunk: Uint8Array) => {
    if (!open) return
    if ((controller.desiredSize ?? 0) <= 0 || !stillAdmits(request)) return end(true)
    try {
      controller.enqueue(chunk)
    } catch {
      end(false)
    }
  }
  const unsubscribe = log.subscribe(
    storeId,
    slots,
    (entry) => send(sseEvent('request', entry, entry.id)),
    () => end(true),
  )
  const end = (closeStream: boolean) => {
    if (!open) return
    open = false
    unsubscribe()
    clearInterval(heartbeat)
    if (closeStream) controller.close()
  }
  const body = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c
        c.enqueue(sseComment('connected'))
        heartbeat = setInterval(() => send(sseComment('heartbeat')), HEARTBEAT_MS)
        heartbeat.unref?.()
      },
      cancel: () => end(false),
    },
    { highWaterMark: MAX_BEHIND, size: (chunk) => chunk?.byteLength ?? 0 },
  )
  return sseResponse(body, request, server, () => end(false))
}
