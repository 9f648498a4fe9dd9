/**
 * A GET over a raw socket, with exactly the Host header given (none for null), on a connection that
 * closes after it: what a client that writes its own headers sends, which fetch would not.
 */
export async function rawGet(port: number, path: string, host: string | null, headers: Record<string, string> = {}) {
  const lines = [`GET ${path} HTTP/1.1`, ...(host === null ? [] : [`Host: ${host}`]), ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), 'Connection: close', '', '']
  const chunks: Uint8Array[] = []
  await new Promise<void>((resolve, reject) => {
    Bun.connect({
      hostname: '127.0.0.1',
      port,
      socket: {
        open: (socket) => void socket.write(lines.join('\r\n')),
        data: (_socket, data) => void chunks.push(data),
        close: () => resolve(),
        error: (_socket, e) => reject(e),
      },
    }).catch(reject)
  })
  const reply = Buffer.concat(chunks)
  const split = reply.indexOf('\r\n\r\n')
  const head = reply.subarray(0, split).toString()
  const body = reply.subarray(split + 4)
  return { status: Number(head.split(' ')[1]), body: (/transfer-encoding: chunked/i.test(head) ? dechunk(body) : body).toString() }
}

function dechunk(body: Buffer): Buffer {
  const parts: Buffer[] = []
  for (let at = 0; ; ) {
    const end = body.indexOf('\r\n', at)
    const size = parseInt(body.subarray(at, end).toString(), 16)
    if (!size) return Buffer.concat(parts)
    parts.push(body.subarray(end + 2, end + 2 + size))
    at = end + 2 + size + 2
  }
}
