export interface ChunkedResult {
  /** Everything the server answered, as text. */
  reply: string
  /** Bytes of the body the socket took before the answer came. */
  sent: number
  /** Bytes the socket still took after the answer (with `afterAnswer`). */
  takenAfterAnswer: number
  /** The server closed the connection. */
  closed: boolean
}

const frame = (data: Uint8Array) => {
  const size = new TextEncoder().encode(`${data.length.toString(16)}\r\n`)
  const out = new Uint8Array(size.length + data.length + 2)
  out.set(size)
  out.set(data, size.length)
  out.set([13, 10], size.length + data.length)
  return out
}

/**
 * Sends a request over a raw socket with a chunked body (no Content-Length, so the server cannot
 * refuse it by its declared size and must read it): `first`, then chunks of zeros, as fast as the
 * server takes them, until `totalBytes` were sent, `ms` passed, or an answer came. With `afterAnswer`
 * it goes on sending after the answer, until the server closes or `ms` passes, to see whether the
 * server keeps reading. The sender yields to the event loop every few chunks, so it notices the answer
 * even when the server reads as fast as it writes.
 */
export function sendChunked(
  port: number,
  head: string,
  options: { first?: Uint8Array; chunkBytes?: number; totalBytes?: number; ms?: number; afterAnswer?: boolean } = {},
): Promise<ChunkedResult> {
  const filler = frame(new Uint8Array(options.chunkBytes ?? 1 << 20))
  const limit = options.totalBytes ?? Infinity
  let pending = options.first ? frame(options.first) : filler
  const result: ChunkedResult = { reply: '', sent: 0, takenAfterAnswer: 0, closed: false }
  let done = false
  return new Promise((resolve) => {
    let socket: { write(d: Uint8Array | string): number; end(): void } | undefined
    const finish = () => {
      if (done) return
      done = true
      clearTimeout(timer)
      socket?.end()
      resolve(result)
    }
    const timer = setTimeout(finish, options.ms ?? 20_000)
    const answered = () => /\r\n\r\n/.test(result.reply)
    const pump = () => {
      for (let writes = 0; !done && result.sent < limit; writes++) {
        if (writes === 16) return void setImmediate(pump)
        const written = socket!.write(pending)
        if (written < 0) return
        if (answered()) result.takenAfterAnswer += written
        else result.sent += written
        if (written < pending.length) {
          pending = pending.subarray(written)
          return // the drain event pumps again
        }
        pending = filler
      }
    }
    Bun.connect({
      hostname: '127.0.0.1',
      port,
      socket: {
        open(s) {
          socket = s
          s.write(head)
          pump()
        },
        drain: () => pump(),
        data(_, data) {
          result.reply += new TextDecoder().decode(data)
          if (!options.afterAnswer && /\r\n\r\n[\s\S]*\}/.test(result.reply)) finish()
        },
        // Only a close by the server counts, not the one that follows finish().
        close() {
          if (!done) result.closed = true
          finish()
        },
        error() {
          if (!done) result.closed = true
          finish()
        },
      },
    })
  })
}

/** The request head of a chunked body: request line, Host and the given headers. */
export const chunkedHead = (requestLine: string, headers: Record<string, string>) =>
  `${requestLine} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries({ ...headers, 'transfer-encoding': 'chunked' })
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n')}\r\n\r\n`

/**
 * Sends a multipart upload of `totalBytes` (a real file's start, then zeros) with chunked encoding,
 * so the server must stream it. Stops sending as soon as a response comes.
 */
export async function streamUpload(port: number, headers: Record<string, string>, head: Uint8Array, totalBytes: number) {
  const boundary = 'storefront-test-boundary'
  const preamble = new TextEncoder().encode(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="huge.mp4"\r\nContent-Type: video/mp4\r\n\r\n`,
  )
  const { reply, sent } = await sendChunked(
    port,
    chunkedHead('POST /v1/uploads', { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}` }),
    { first: new Uint8Array([...preamble, ...head]), totalBytes },
  )
  const status = Number(reply.split(' ')[1])
  const body = JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4).replace(/^[0-9a-f]+\r\n/, '').replace(/\r\n0\r\n\r\n$/, '').trim().replace(/\r\n[0-9a-f]+\r\n/g, ''))
  return { status, body, sent }
}
