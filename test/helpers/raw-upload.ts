/**
 * Sends a multipart upload over a raw socket with chunked encoding (no Content-Length), so the server
 * cannot refuse it by its declared size and must stream it. Stops sending as soon as a response comes.
 */
export async function streamUpload(port: number, headers: Record<string, string>, head: Uint8Array, totalBytes: number) {
  const boundary = 'storefront-test-boundary'
  const preamble = new TextEncoder().encode(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="huge.mp4"\r\nContent-Type: video/mp4\r\n\r\n`,
  )
  const filler = new Uint8Array(1 << 20)
  let sent = 0
  let reply = ''
  const chunk = (data: Uint8Array) => {
    const size = new TextEncoder().encode(`${data.length.toString(16)}\r\n`)
    const out = new Uint8Array(size.length + data.length + 2)
    out.set(size)
    out.set(data, size.length)
    out.set([13, 10], size.length + data.length)
    return out
  }
  await new Promise<void>((resolve, reject) => {
    let pending: Uint8Array | undefined
    let done = false
    Bun.connect({
      hostname: '127.0.0.1',
      port,
      socket: {
        open(socket) {
          const lines = Object.entries({ ...headers, 'content-type': `multipart/form-data; boundary=${boundary}`, 'transfer-encoding': 'chunked' })
          socket.write(`POST /v1/uploads HTTP/1.1\r\nHost: 127.0.0.1\r\n${lines.map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n`)
          pending = chunk(new Uint8Array([...preamble, ...head]))
          pump(socket)
        },
        drain(socket) {
          pump(socket)
        },
        data(socket, data) {
          reply += new TextDecoder().decode(data)
          if (/\r\n\r\n[\s\S]*\}/.test(reply)) {
            done = true
            socket.end()
            resolve()
          }
        },
        close() {
          resolve()
        },
        error(_, e) {
          reject(e)
        },
      },
    })
    function pump(socket: { write(d: Uint8Array): number }) {
      while (!done && sent < totalBytes) {
        const data = pending ?? chunk(filler)
        const written = socket.write(data)
        if (written < data.length) {
          pending = data.subarray(written)
          return
        }
        pending = undefined
        sent += data.length
      }
    }
  })
  const status = Number(reply.split(' ')[1])
  const body = JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4).replace(/^[0-9a-f]+\r\n/, '').replace(/\r\n0\r\n\r\n$/, '').trim().replace(/\r\n[0-9a-f]+\r\n/g, ''))
  return { status, body, sent }
}
