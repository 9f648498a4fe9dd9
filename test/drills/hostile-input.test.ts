import { describe, expect, test } from 'bun:test'
import { readFileSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { ADMIN_TOKEN } from '../helpers/app'
import { buildExecutable, emptyDir, overHttp, type Running, startExecutable } from '../helpers/executable'
import { chunkedHead, sendChunked } from '../helpers/raw-upload'
import { activeStudent, admin, apiKey, createGroup, createKey } from '../helpers/world'
import { LONG } from './openapi-ops'
import { expectHeldInOneOf, expectWithinBaseline, limit } from '../helpers/limits'

const bin = await buildExecutable()

/**
 * What anyone on the class network can send, with or without a credential: a JSON body of any shape
 * up to the 1 MiB limit, and a path as long as the server reads. The real server, on loopback. Each
 * answer must be quick and small, memory must not grow, and /health must stay quick while twenty such
 * requests arrive at once. A body that never ends is read no further than the answer. Quick: one
 * burst of 20 parallel requests; DRILLS=long: 10 bursts. (A hundred at once, with the sender on the
 * same 2 cores, measured 60 to 115 ms for /health: docs/hostile-input.md.)
 */
const PARALLEL = 20
const BURSTS = LONG ? 10 : 1
const MiB = 1 << 20
const FAST_MS = 50
/**
 * A hostile answer may take at most this many times the same route's answer to ordinary input of the
 * same size, measured in the same run, plus SLACK_MS (scaled) for times of a few milliseconds. A string
 * of escapes rightly costs JSON.parse more than a plain one; what this drill keeps out costs orders of
 * magnitude more (docs/hostile-input.md).
 */
const HOSTILE_FACTOR = 20
const SLACK_MS = 10
/**
 * While PARALLEL costly requests arrive at once, /health waits for at most about one of them, never for
 * all: its bound is HEALTH_TURNS times one such request measured alone in the same run, so a slow or busy
 * machine scales it, and never tighter than FAST_MS. Large bodies add what receiving them costs anyway,
 * before any is parsed (`receivingMs`, measured with ordinary bodies of the same size in the same run):
 * the runtime copies them into new memory, which on a virtual machine held /health 16 to 78 ms for twenty
 * ordinary 1 MiB bodies in one hour, as long as for twenty hostile ones.
 */
const HEALTH_TURNS = 4
const healthBound = (oneMs: number, receivingMs: number) => Math.max(limit(FAST_MS), receivingMs + HEALTH_TURNS * oneMs)
/**
 * A shared machine can stall any one burst for tens of milliseconds (a CI run once saw 68 ms against a
 * bound of 51, where this machine reads 7 to 13; another, in a noisy hour, 61 and then 65 against 50,
 * where alone that hour it read 15 to 73, about one burst in four over the bound): a missed bound is
 * measured again with a new burst, up to three bursts, and fails only if all three miss. A third missed
 * all three (60 to 65 ms against 52): the bodies' receiving, which the bound now adds. A server that
 * makes /health wait for every request (twenty of about 11 ms each) misses every one: 225 to 281 ms
 * against a bound of 154, tried with the turns taken away.
 */
const HEALTH_ATTEMPTS = 3
const MAX_GROWTH_MB = 20

/** The process's resident memory now (VmRSS) or at its highest since the last reset (VmHWM), in MiB. */
const memoryMb = (pid: number, field: 'VmRSS' | 'VmHWM') =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024

/** How far one call lifts the process's memory at its peak: Linux resets VmHWM on a write of 5 to clear_refs. */
async function peakGrowthMb(pid: number, call: () => Promise<unknown>) {
  writeFileSync(`/proc/${pid}/clear_refs`, '5')
  const before = memoryMb(pid, 'VmRSS')
  await call()
  return memoryMb(pid, 'VmHWM') - before
}

/** Bodies of about 1 MiB, each a shape that once cost the server far more than its size. */
const wide = (open: string, unit: string, close: string) => open + unit.repeat(Math.floor((MiB - open.length - close.length) / unit.length)) + close
const SHAPES: Record<string, string> = {
  'arrays nested 500,000 deep': '['.repeat(MiB / 2) + ']'.repeat(MiB / 2),
  'objects nested 170,000 deep': '{"a":'.repeat(MiB / 6) + '1' + '}'.repeat(MiB / 6),
  'one array of 500,000 numbers': wide('[', '1,', '1]'),
  'an object with 90,000 keys': '{' + Array.from({ length: 90_000 }, (_, i) => `"k${i}":1`).join(',') + '}',
  '999 arrays of 520 numbers': '[' + Array.from({ length: 999 }, () => '[' + '1,'.repeat(520) + '1]').join(',') + ']',
  '9,000 numbers of 110 digits': '[' + Array.from({ length: 9000 }, () => '1'.repeat(110)).join(',') + ']',
  'a 1 MiB string of escaped quotes': JSON.stringify({ rm: '"'.repeat(MiB / 2 - 20), password: 'x' }),
  '999 objects of 90 unknown fields': JSON.stringify({ members: Array.from({ length: 999 }, (_, i) => Object.fromEntries(Array.from({ length: 90 }, (_, j) => [`f${j}`, i]))) }),
  'a 1 MiB field name': JSON.stringify({ ['k'.repeat(MiB - 20)]: 1 }),
  'a 1 MiB string of escapes': JSON.stringify({ rm: '\u0001'.repeat(MiB / 7), password: 'x' }),
}
/** An ordinary body of the same size: one long plain string, in a field no route takes. */
const ORDINARY = JSON.stringify({ note: 'x'.repeat(MiB - 20) })
/** A path as long as the server takes (its request line ends near 16 KiB), and an ordinary unknown one. */
const LONG_PATH = `/v1/${'products/'.repeat(1800)}x`
const ORDINARY_PATH = '/v1/prodcts/x'

/** A store on the started server, through the same helpers the HTTP tests use; its key's header. */
async function keyOf(server: Running) {
  const call = overHttp(server.base)
  await createGroup(call, 'Hostile', [{ rm: 'h1001', name: 'H' }])
  return apiKey((await createKey(call, await activeStudent(call, 'h1001'))).apiKey)
}

/** One request; its status, answer size and time. */
async function send(base: string, method: string, path: string, headers: Record<string, string>, body?: string) {
  const started = performance.now()
  const res = await fetch(`${base}${path}`, { method, headers: { ...headers, 'content-type': 'application/json' }, body })
  const text = await res.text()
  return { status: res.status, text, ms: performance.now() - started }
}

/** The best of three tries: scheduling on a shared machine only ever adds time, so the best is the request's own cost. */
async function bestOf3(send: () => Promise<{ status: number; text: string; ms: number }>) {
  const tries = [await send(), await send(), await send()]
  return tries.reduce((a, b) => (b.ms < a.ms ? b : a))
}

/** The slowest /health answer while `load` runs, polling back to back. */
async function worstHealthDuring(base: string, load: Promise<unknown>) {
  let done = false
  let worst = 0
  let polls = 0
  const finished = load.finally(() => (done = true))
  while (!done) {
    const started = performance.now()
    await (await fetch(`${base}/health`)).arrayBuffer()
    worst = Math.max(worst, performance.now() - started)
    polls++
  }
  await finished
  return { worst, polls }
}

/**
 * Sends `burst()` (PARALLEL costly requests at once, each answered `status`) and polls /health while
 * they run: its slowest answer must stay under healthBound(oneMs, receivingMs), in one of HEALTH_ATTEMPTS bursts.
 */
async function expectHealthHeldDuring(base: string, burst: () => Promise<{ status: number }[]>, status: number, oneMs: number, seen: object, receivingMs = 0) {
  const measure = async () => {
    const health = await healthDuringBurst(base, burst, status)
    if (process.env.DRILLS_VERBOSE) console.log({ ...seen, receivingMs, health })
    expect(health.polls).toBeGreaterThan(0)
    return health.worst < healthBound(oneMs, receivingMs) ? undefined : `the slowest /health during ${PARALLEL} requests at once took ${health.worst.toFixed(1)} ms`
  }
  const receiving = receivingMs > 0 ? ` plus what receiving as many ordinary bodies held it (${receivingMs.toFixed(1)} ms)` : ''
  const bound = `the bound is ${HEALTH_TURNS} × one such request alone (${oneMs.toFixed(3)} ms)${receiving}, never less than ${limit(FAST_MS)} ms`
  await expectHeldInOneOf(HEALTH_ATTEMPTS, 'bursts', measure, bound)
}

/** One `burst()`, each of its answers `status`, and /health polled while it runs (worstHealthDuring). */
async function healthDuringBurst(base: string, burst: () => Promise<{ status: number }[]>, status: number) {
  const parallel = burst()
  const health = await worstHealthDuring(base, parallel)
  expect((await parallel).map((a) => a.status)).toEqual(Array(PARALLEL).fill(status))
  return health
}

/** The slowest /health while `burst()` runs, the most of HEALTH_ATTEMPTS bursts: what such a burst costs it at worst on this machine now. */
async function worstHealthOf(base: string, burst: () => Promise<{ status: number }[]>, status: number) {
  let worst = 0
  for (let i = 0; i < HEALTH_ATTEMPTS; i++) worst = Math.max(worst, (await healthDuringBurst(base, burst, status)).worst)
  return worst
}

/** What the server answers to `raw` sent as is on a new connection, and whether it then closed it. */
function sendRaw(port: number, raw: string): Promise<{ reply: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    let reply = ''
    const socket = connect(port, '127.0.0.1', () => socket.write(raw))
    const timer = setTimeout(() => (socket.destroy(), resolve({ reply, closed: false })), 5000)
    socket.on('data', (data) => (reply += data.toString('latin1')))
    socket.on('error', reject)
    socket.on('close', () => (clearTimeout(timer), resolve({ reply, closed: true })))
  })
}

describe(`hostile input${LONG ? ' (long)' : ''}`, () => {
  test(`any 1 MiB JSON body answers a short 400 about as quickly as an ordinary one and memory stays flat, and ${PARALLEL} at once delay /health by about one of them, not all`, async () => {
    const dir = emptyDir()
    const server = await startExecutable(bin, dir, ['--data', dir, '--admin-token', ADMIN_TOKEN, '--rate-limit-rps', '0'])
    try {
      const key = await keyOf(server)
      const targets: [string, Record<string, string>][] = [
        ['/v1/store/auth/login', {}],
        ['/v1/products', key],
        ['/v1/admin/groups', admin],
      ]
      const burst = (body: string) =>
        Promise.all(Array.from({ length: PARALLEL }, (_, i) => send(server.base, 'POST', targets[i % 2]![0], targets[i % 2]![1], body)))
      const seen: Record<string, number> = {}
      let worst = { shape: '', ms: 0 }
      let mostGrown = 0
      const ordinary: Record<string, number> = {}
      for (const [path, headers] of targets) {
        await send(server.base, 'POST', path, headers, ORDINARY)
        const res = await bestOf3(() => send(server.base, 'POST', path, headers, ORDINARY))
        expect(res.status).toBe(400)
        ordinary[path] = res.ms
      }
      for (const [shape, body] of Object.entries(SHAPES)) {
        for (const [path, headers] of targets) {
          const grown = await peakGrowthMb(server.proc.pid, () => send(server.base, 'POST', path, headers, body))
          const res = await bestOf3(() => send(server.base, 'POST', path, headers, body))
          seen[`${shape} -> ${path}`] = Math.round(res.ms)
          mostGrown = Math.max(mostGrown, grown)
          if (res.ms > worst.ms) worst = { shape, ms: res.ms }
          expect(res.status).toBe(400)
          expect(JSON.parse(res.text).error.code).toBe('VALIDATION_ERROR')
          // The answer names the problem; it never echoes what was sent.
          expect(res.text.length).toBeLessThan(4096)
          expectWithinBaseline(`${shape} -> ${path} (baseline: an ordinary 1 MiB body)`, res.ms, ordinary[path]!, { factor: HOSTILE_FACTOR, slackMs: SLACK_MS })
        }
      }
      expect(mostGrown).toBeLessThan(MAX_GROWTH_MB)
      // The costliest shape of the round, twenty at once, beside twenty ordinary bodies of the same size.
      const receivingMs = await worstHealthOf(server.base, () => burst(ORDINARY), 400)
      for (let i = 0; i < BURSTS; i++) {
        await expectHealthHeldDuring(server.base, () => burst(SHAPES[worst.shape]!), 400, worst.ms, { ordinary, seen, worst, mostGrown }, receivingMs)
      }
    } finally {
      await server.stop('SIGTERM')
    }
  }, limit(60_000))

  test(`a path near 16 KiB is a quick, short 404, and ${PARALLEL} at once delay /health by about one of them, not all`, async () => {
    const dir = emptyDir()
    const server = await startExecutable(bin, dir, ['--data', dir, '--admin-token', ADMIN_TOKEN, '--rate-limit-rps', '0'])
    try {
      await send(server.base, 'GET', ORDINARY_PATH, {})
      const ordinary = await bestOf3(() => send(server.base, 'GET', ORDINARY_PATH, {}))
      expect(ordinary.status).toBe(404)
      await send(server.base, 'GET', LONG_PATH, {})
      const one = await bestOf3(() => send(server.base, 'GET', LONG_PATH, {}))
      expect(one.status).toBe(404)
      expect(JSON.parse(one.text).error.code).toBe('NOT_FOUND')
      expect(one.text.length).toBeLessThan(1024)
      expectWithinBaseline('a 404 for a path near 16 KiB (baseline: for an ordinary unknown path)', one.ms, ordinary.ms, { factor: HOSTILE_FACTOR, slackMs: SLACK_MS })
      const burst = () => Promise.all(Array.from({ length: PARALLEL }, () => send(server.base, 'GET', LONG_PATH, {})))
      for (let i = 0; i < BURSTS; i++) {
        await expectHealthHeldDuring(server.base, burst, 404, one.ms, { ordinary: ordinary.ms, one: one.ms })
      }
    } finally {
      await server.stop('SIGTERM')
    }
  }, limit(60_000))

  test('a body that never ends is not read past the answer: the connection closes, with or without a credential', async () => {
    const dir = emptyDir()
    const server = await startExecutable(bin, dir, ['--data', dir, '--admin-token', ADMIN_TOKEN, '--rate-limit-rps', '0'])
    try {
      const key = await keyOf(server)
      const product = (await (await fetch(`${server.base}/v1/products`, { method: 'POST', headers: { ...key, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Gone', sku: 'GONE-1', price: 1, stock: 1 }) })).json()) as { id: string }
      const cases: [string, Record<string, string>, string][] = [
        ['GET /health', {}, 'HTTP/1.1 200 OK'],
        ['POST /v1/products', { 'content-type': 'application/json' }, 'HTTP/1.1 401 Unauthorized'],
        ['POST /v1/nowhere', { 'content-type': 'application/json' }, 'HTTP/1.1 404 Not Found'],
        ['OPTIONS /v1/products', { origin: 'http://a', 'access-control-request-method': 'GET' }, 'HTTP/1.1 204 No Content'],
        ['POST /v1/store/auth/login', { 'content-type': 'text/plain' }, 'HTTP/1.1 415 Unsupported Media Type'],
        ['POST /v1/products', { ...key, 'content-type': 'application/json' }, 'HTTP/1.1 413 Payload Too Large'],
        // A multipart body that never reaches its first boundary is cut off at the upload limit.
        ['POST /v1/uploads', { ...key, 'content-type': 'multipart/form-data; boundary=x' }, 'HTTP/1.1 413 Payload Too Large'],
        // A route that takes no body reads what was sent within the JSON limit, to refuse it, and no further.
        [`DELETE /v1/products/${product.id}`, key, 'HTTP/1.1 413 Payload Too Large'],
      ]
      const seen = []
      for (const [line, headers, status] of cases) {
        const sent = await sendChunked(server.port, chunkedHead(line, headers), { chunkBytes: 1 << 16, ms: 2000, afterAnswer: true })
        const res = { status: sent.reply.split('\r\n')[0] ?? '', closed: sent.closed, takenAfterAnswer: sent.takenAfterAnswer }
        seen.push({ line, ...res })
        expect([line, res.status, res.closed]).toEqual([line, status, true])
        // What was already in flight when the answer came (socket buffers), never the endless rest.
        expect(res.takenAfterAnswer).toBeLessThan(64 * MiB)
      }
      if (process.env.DRILLS_VERBOSE) console.log(seen)
      // A body that is read whole keeps the connection for the next request.
      const ok = await fetch(`${server.base}/v1/products`, { method: 'POST', headers: { ...key, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Kept', sku: 'KEPT-1', price: 1, stock: 1 }) })
      expect(ok.status).toBe(201)
      expect(ok.headers.get('connection')).not.toBe('close')
    } finally {
      await server.stop('SIGTERM')
    }
  }, limit(60_000))

  test('a request line and headers past 16 KiB are a 431 and what is not HTTP a 400, each from Bun with no body, and the connection closes', async () => {
    const dir = emptyDir()
    const server = await startExecutable(bin, dir, ['--data', dir, '--admin-token', ADMIN_TOKEN, '--rate-limit-rps', '0'])
    try {
      const request = (path: string, headers: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\n${headers}\r\n`
      const cases: [string, string, string][] = [
        ['16 KiB of one header', request('/health', `X-Filler: ${'a'.repeat(16 * 1024)}\r\n`), 'HTTP/1.1 431 Request Header Fields Too Large'],
        ['a 9 KB path and an 8 KB header', request(`/v1/${'a'.repeat(9000)}`, `X-Filler: ${'a'.repeat(8000)}\r\n`), 'HTTP/1.1 431 Request Header Fields Too Large'],
        ['a header line without a colon', request('/health', 'Not a header\r\n'), 'HTTP/1.1 400 Bad Request'],
        ['a request line that is not one', 'HELLO\r\n\r\n', 'HTTP/1.1 400 Bad Request'],
        ['a Content-Length that is not a number', `POST /v1/products HTTP/1.1\r\nHost: x\r\nContent-Length: ten\r\n\r\n`, 'HTTP/1.1 400 Bad Request'],
      ]
      for (const [what, raw, status] of cases) {
        const { reply, closed } = await sendRaw(server.port, raw)
        const [head = '', body] = reply.split('\r\n\r\n')
        // As the OpenAPI document's introduction says: the status, no body, no request id, closed.
        expect([what, head.split('\r\n')[0], body, /x-request-id/i.test(head), closed]).toEqual([what, status, '', false, true])
      }
      // Just under the limit, the same header is an ordinary request.
      const ok = await fetch(`${server.base}/health`, { headers: { 'x-filler': 'a'.repeat(15 * 1024) } })
      expect([ok.status, ok.headers.get('x-request-id')?.startsWith('req_')]).toEqual([200, true])
    } finally {
      await server.stop('SIGTERM')
    }
  }, limit(60_000))
})
