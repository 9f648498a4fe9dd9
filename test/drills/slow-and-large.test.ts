import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ADMIN_TOKEN } from '../helpers/app'
import { buildExecutable, emptyDir, overHttp, type Running, startExecutable } from '../helpers/executable'
import { streamUpload } from '../helpers/raw-upload'
import { activeStudent, apiKey, createGroup, createKey, FIXTURES } from '../helpers/world'
import { LONG } from './openapi-ops'
import { limit } from '../helpers/limits'

const bin = await buildExecutable()

/**
 * Slowloris and oversized input: many connections that send their request a byte at a
 * time, and bodies of 2 GiB, must neither exhaust the server's memory nor keep other clients waiting.
 * The real server, on loopback. Quick: 200 slow connections for 3 s; DRILLS=long: 1000 for 20 s.
 */
const SLOW_CONNECTIONS = LONG ? 1000 : 200
const SLOW_SECONDS = LONG ? 20 : 3
const GIB2 = 2 * 1024 ** 3
/** More than the server may grow while holding all of this: it never buffers a body it refuses. */
const MAX_GROWTH_MB = 150

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024

/** A store on the started server, through the same helpers the HTTP tests use; its key's header. */
async function keyOf(server: Running) {
  const call = overHttp(server.base)
  await createGroup(call, 'Slow', [{ rm: 's1001', name: 'S' }])
  return apiKey((await createKey(call, await activeStudent(call, 's1001'))).apiKey)
}

/** A normal client's worst latency over `ms`, calling every 50 ms; throws on any failed call. */
async function probe(base: string, key: Record<string, string>, ms: number) {
  let worst = 0
  let calls = 0
  const end = Date.now() + ms
  while (Date.now() < end) {
    const started = performance.now()
    const res = await fetch(`${base}/v1/products?pageSize=5`, { headers: key, signal: AbortSignal.timeout(5_000) })
    await res.arrayBuffer()
    if (res.status !== 200) throw new Error(`a normal call got ${res.status}`)
    worst = Math.max(worst, performance.now() - started)
    calls++
    await Bun.sleep(50)
  }
  return { worst, calls }
}

/** Sends a huge body over a raw socket as fast as the server takes it (declaring `length` when `declared`); returns the server's answer. */
function hugeBody(port: number, path: string, headers: Record<string, string>, declared: boolean, length = GIB2): Promise<string> {
  const chunk = new Uint8Array(1 << 20).fill(0x20)
  let sent = 0
  let reply = ''
  let pending: Uint8Array | undefined
  const framed = new Uint8Array([...new TextEncoder().encode(`${chunk.length.toString(16)}\r\n`), ...chunk, 13, 10])
  const pump = (socket: { write(d: Uint8Array): number }) => {
    while (!reply && sent < GIB2) {
      const piece = pending ?? (declared ? chunk : framed)
      const n = socket.write(piece)
      sent += n
      pending = n < piece.length ? piece.subarray(n) : undefined
      if (pending) return
    }
  }
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer after ${sent} bytes`)), 20_000)
    Bun.connect({
      hostname: '127.0.0.1',
      port,
      socket: {
        open(socket) {
          const lines = { ...headers, 'content-type': 'application/json', ...(declared ? { 'content-length': String(length) } : { 'transfer-encoding': 'chunked' }) }
          socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(lines).map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n`)
          pump(socket)
        },
        drain: (socket) => pump(socket),
        data(socket, data) {
          reply += new TextDecoder().decode(data)
          if (/\r\n\r\n/.test(reply)) {
            clearTimeout(timer)
            socket.end()
            resolve(reply)
          }
        },
        close() {
          clearTimeout(timer)
          resolve(reply)
        },
        error(_, e) {
          clearTimeout(timer)
          reject(e)
        },
      },
    })
  })
}

describe(`slowloris and oversized input${LONG ? ' (long)' : ''}`, () => {
  test(`${SLOW_CONNECTIONS} connections sending a byte at a time do not block a normal client or grow memory`, async () => {
    const dir = emptyDir()
    const server = await startExecutable(bin, dir, ['--data', dir, '--admin-token', ADMIN_TOKEN, '--rate-limit-rps', '0'])
    const sockets: { end(): void; write(s: string): number }[] = []
    let dripping = true
    try {
      const key = await keyOf(server)
      const baseline = await probe(server.base, key, 500)
      const before = rssMb(server.proc.pid)
      for (let i = 0; i < SLOW_CONNECTIONS; i++) {
        sockets.push(await Bun.connect({ hostname: '127.0.0.1', port: server.port, socket: { data() {}, error() {} } }))
      }
      const request = `POST /v1/products HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${key['x-api-key']}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"name":`
      const drip = (async () => {
        for (let i = 0; dripping && i < request.length; i++) {
          for (const s of sockets) s.write(request[i]!)
          await Bun.sleep((SLOW_SECONDS * 1000) / request.length)
        }
      })()
      const during = await probe(server.base, key, SLOW_SECONDS * 1000)
      const grown = rssMb(server.proc.pid) - before
      dripping = false
      await drip
      if (process.env.DRILLS_VERBOSE) console.log({ baseline, during, grown })
      expect(during.calls).toBeGreaterThan(SLOW_SECONDS * 5)
      expect(during.worst).toBeLessThan(Math.max(1000, baseline.worst * 10))
      expect(grown).toBeLessThan(MAX_GROWTH_MB)
    } finally {
      dripping = false
      for (const s of sockets) s.end()
      await server.stop('SIGTERM')
    }
  }, limit(LONG ? 120_000 : 30_000))

  test('2 GiB bodies (declared, chunked JSON, chunked upload) and a declared 8 PiB are refused early, with the envelope, without buffering, while others are served', async () => {
    const dir = emptyDir()
    const server = await startExecutable(bin, dir, ['--data', dir, '--admin-token', ADMIN_TOKEN, '--rate-limit-rps', '0'])
    try {
      const key = await keyOf(server)
      const before = rssMb(server.proc.pid)
      const normal = probe(server.base, key, 2_000)
      const [declared, chunked, petabytes] = await Promise.all([
        hugeBody(server.port, '/v1/products', key, true),
        hugeBody(server.port, '/v1/products', key, false),
        // Far past the 16 GiB once given to the runtime as its own limit: still the route's answer, with the envelope.
        hugeBody(server.port, '/v1/products', key, true, 2 ** 53),
      ])
      // A real video's start, then zeros: it passes the type check and meets the 100 MiB video limit.
      const upload = await streamUpload(server.port, key, new Uint8Array(readFileSync(join(FIXTURES, 'sample.mp4'))), GIB2)
      const grown = rssMb(server.proc.pid) - before
      const { worst } = await normal
      if (process.env.DRILLS_VERBOSE) console.log({ declared: declared.split('\r\n')[0], chunked: chunked.split('\r\n')[0], upload, grown, worst })
      expect(declared).toStartWith('HTTP/1.1 413')
      expect(declared).toContain('PAYLOAD_TOO_LARGE')
      expect(chunked).toStartWith('HTTP/1.1 413')
      expect(petabytes).toStartWith('HTTP/1.1 413')
      expect(petabytes).toContain('PAYLOAD_TOO_LARGE')
      expect(petabytes.toLowerCase()).toContain('x-request-id: ')
      expect([upload.status, upload.body.error.code]).toEqual([413, 'FILE_TOO_LARGE'])
      expect(upload.sent).toBeLessThan(GIB2 / 4)
      expect(grown).toBeLessThan(MAX_GROWTH_MB)
      // Not blocked, which is what this checks (speed is the benchmarks' business): on a shared 2-core
      // machine a normal call waited up to 1.8 s while three 2 GiB bodies streamed in; a block would be the whole upload.
      expect(worst).toBeLessThan(3000)
      // Nothing of the refused upload stays in the media folder.
      const files = await Array.fromAsync(new Bun.Glob('media/**/*').scan({ cwd: dir, dot: true }))
      expect(files).toEqual([])
    } finally {
      await server.stop('SIGTERM')
    }
  }, limit(60_000))
})
