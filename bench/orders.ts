/**
 * `bun run bench:orders`: checkout + pay throughput over HTTP. A server started from source (its own
 * process, a fresh data dir, no rate limit) serves 32 customers, each in a loop: add 1 unit to the
 * cart, check out, pay with PIX. Prints orders/s and latency percentiles, beside the ceiling of a
 * trivial write transaction (BEGIN IMMEDIATE, one INSERT, COMMIT) on a SQLite file with the server's
 * settings, measured in the same run on the same disk.
 *
 *   bun bench/orders.ts [--before <checkout>] [--rounds 1] [--seconds 10] [--customers 32] [--pin] [--profile <dir>]
 *
 * `--before` also starts a server from another checkout's source, and the two take turns, `rounds`
 * times each (the order flips every round), so the machine's other load falls on both. `--pin` runs
 * the servers on the first core and the clients (this process) on the second. `--profile` writes the
 * CPU profile of this checkout's server there, as JSON and Markdown.
 */
import { Database } from 'bun:sqlite'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'

const { values: args } = parseArgs({
  options: {
    before: { type: 'string' },
    rounds: { type: 'string', default: '1' },
    seconds: { type: 'string', default: process.env.SECONDS ?? '10' },
    customers: { type: 'string', default: process.env.CUSTOMERS ?? '32' },
    pin: { type: 'boolean', default: false },
    profile: { type: 'string' },
  },
})
const CUSTOMERS = Number(args.customers)
const SECONDS = Number(args.seconds)
const ROUNDS = Number(args.rounds)
const root = join(import.meta.dir, '..')
const dir = mkdtempSync(join(tmpdir(), 'storefront-bench-orders-'))
if (args.pin) Bun.spawnSync(['taskset', '-p', '-c', '1', String(process.pid)])

function writeCeiling(ms: number) {
  const db = new Database(join(dir, 'ceiling.db'), { create: true })
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000')
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)')
  const insert = db.prepare('INSERT INTO t (v) VALUES (?)')
  const begin = db.prepare('BEGIN IMMEDIATE')
  const commit = db.prepare('COMMIT')
  let n = 0
  const end = performance.now() + ms
  while (performance.now() < end) {
    begin.run()
    insert.run('x')
    commit.run()
    n++
  }
  db.close()
  return (n * 1000) / ms
}

async function call(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const res = await fetch(base + path, { method, headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined })
  // biome-ignore lint/suspicious/noExplicitAny: the set-up reads the answers' fields as the API documents them, unchecked
  const json = (await res.json()) as any
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`)
  return json
}

/** A server from `checkout`'s source on a fresh data dir, with a store, its stock and the customers. */
async function start(checkout: string, name: string, bunFlags: string[]) {
  const data = join(dir, name)
  const command = [process.execPath, ...bunFlags, join(checkout, 'src', 'main.ts'), '--port', '0', '--host', '127.0.0.1', '--data', data, '--rate-limit-rps', '0']
  const server = Bun.spawn(args.pin ? ['taskset', '-c', '0', ...command] : command, { cwd: checkout, stdout: 'pipe', stderr: 'inherit' })
  let banner = ''
  const reader = server.stdout.getReader()
  while (!/stop with Ctrl-C/.test(banner)) {
    const { value, done } = await reader.read()
    if (done) throw new Error(`server did not start: ${banner}`)
    banner += new TextDecoder().decode(value)
  }
  const base = `http://127.0.0.1:${/listening\s+http:\/\/[^:]+:(\d+)/.exec(banner)![1]}/v1`
  const adminToken = readFileSync(join(data, 'admin-token'), 'utf8').trim()
  await call(base, 'POST', '/admin/groups', { 'x-admin-token': adminToken }, { name: 'Bench', members: [{ rm: 'b1001', name: 'Bench' }] })
  const first = await call(base, 'POST', '/store/auth/login', {}, { rm: 'b1001', password: 'b1001' })
  const student = await call(base, 'POST', '/store/auth/change-password', { authorization: `Bearer ${first.token}` }, { currentPassword: 'b1001', newPassword: 'bench-password-1' })
  const { apiKey } = await call(base, 'POST', '/store/api-keys', { authorization: `Bearer ${student.token}` }, { name: 'bench' })
  const product = await call(base, 'POST', '/products', { 'x-api-key': apiKey }, { name: 'Bench', sku: 'BENCH-1', price: 19.99, stock: 1_000_000, state: 'PUBLISHED' })
  const customers = await Promise.all(
    Array.from({ length: CUSTOMERS }, async (_, i) => {
      const session = await call(base, 'POST', '/customers/register', { 'x-api-key': apiKey }, { email: `c${i}@bench.local`, password: 'bench-password', name: `C${i}` })
      return { 'x-api-key': apiKey, authorization: `Bearer ${session.token}` }
    }),
  )
  return { name, server, base, apiKey, variantId: product.variants[0].id as string, customers, orders: 0 }
}
type Server = Awaited<ReturnType<typeof start>>

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!
const ms = (x: number) => `${x.toFixed(1)} ms`

/** One turn of the loop against `s`: SECONDS of 32 customers buying, after one second of warm-up. */
async function turn(s: Server) {
  const cycles: number[] = []
  const checkoutPay: number[] = []
  const warmEnd = performance.now() + 1000
  const stopAt = warmEnd + SECONDS * 1000
  await Promise.all(
    s.customers.map(async (headers) => {
      while (performance.now() < stopAt) {
        const t0 = performance.now()
        await call(s.base, 'POST', '/cart/items', headers, { variantId: s.variantId, quantity: 1 })
        const t1 = performance.now()
        const order = await call(s.base, 'POST', '/orders/checkout', headers)
        await call(s.base, 'POST', `/orders/${order.id}/pay`, headers, { method: 'PIX' })
        const t2 = performance.now()
        s.orders++
        if (t0 < warmEnd) continue
        cycles.push(t2 - t0)
        checkoutPay.push(t2 - t1)
      }
    }),
  )
  return { rate: cycles.length / SECONDS, cycles, checkoutPay }
}

const servers: Server[] = []
servers.push(await start(root, 'after', args.profile ? ['--cpu-prof', '--cpu-prof-md', `--cpu-prof-dir=${args.profile}`] : []))
if (args.before) servers.unshift(await start(args.before, 'before', []))
const ceiling = writeCeiling(2000)

const results = new Map<string, Awaited<ReturnType<typeof turn>>[]>(servers.map((s) => [s.name, []]))
for (let round = 1; round <= ROUNDS; round++) {
  const line: string[] = []
  for (const s of round % 2 === 1 ? servers : [...servers].reverse()) {
    const r = await turn(s)
    results.get(s.name)!.push(r)
    line.push(`${s.name} ${r.rate.toFixed(0)} orders/s, add + checkout + pay p50 ${ms(pct(r.cycles, 50))} p99 ${ms(pct(r.cycles, 99))}`)
  }
  console.log(`round ${round}: ${line.join('; ')}`)
}

for (const s of servers) {
  const check = await call(s.base, 'GET', `/variants/${s.variantId}`, { 'x-api-key': s.apiKey })
  s.server.kill('SIGTERM')
  await s.server.exited
  const turns = results.get(s.name)!
  const cycles = turns.flatMap((t) => t.cycles)
  const checkoutPay = turns.flatMap((t) => t.checkoutPay)
  const rates = turns.map((t) => t.rate)
  const median = [...rates].sort((a, b) => a - b)[Math.floor(rates.length / 2)]!
  console.log(`\n${s.name} (${s.customers.length} customers, ${SECONDS} s a turn${args.pin ? ', server on core 0, clients on core 1' : ''})`)
  const rows = [
    ['orders paid, measured', `${cycles.length} in ${turns.length} x ${SECONDS} s`],
    ['throughput, median of turns', `${median.toFixed(0)} orders/s (${rates.map((r) => r.toFixed(0)).join(', ')})`],
    ['checkout + pay, p50 / p95 / max', `${ms(pct(checkoutPay, 50))} / ${ms(pct(checkoutPay, 95))} / ${ms(pct(checkoutPay, 99.999))}`],
    ['add + checkout + pay, p50 / p95 / p99', `${ms(pct(cycles, 50))} / ${ms(pct(cycles, 95))} / ${ms(pct(cycles, 99))}`],
    ['stock sold (stock left vs orders)', `${1_000_000 - check.stock} units sold, ${check.reserved} reserved, ${s.orders} orders`],
  ]
  for (const [k, v] of rows) console.log(`${k!.padEnd(40)} ${v}`)
}
console.log(`\n${'ceiling: trivial write transactions'.padEnd(40)} ${ceiling.toFixed(0)} tx/s`)
rmSync(dir, { recursive: true, force: true })
