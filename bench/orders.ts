/**
 * `bun run bench:orders`: checkout + pay throughput over HTTP. A server started from source (its own
 * process, a fresh data dir, no rate limit) serves 32 customers, each in a loop: add 1 unit to the
 * cart, check out, pay with PIX. Prints orders/s and latency percentiles, beside the ceiling of a
 * trivial write transaction (BEGIN IMMEDIATE, one INSERT, COMMIT) on a SQLite file with the server's
 * settings, measured in the same run on the same disk.
 */
import { Database } from 'bun:sqlite'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const CUSTOMERS = Number(process.env.CUSTOMERS ?? 32)
const SECONDS = Number(process.env.SECONDS ?? 10)
const root = join(import.meta.dir, '..')
const dir = mkdtempSync(join(tmpdir(), 'storefront-bench-orders-'))

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

const server = Bun.spawn([process.execPath, join(root, 'src', 'main.ts'), '--port', '0', '--host', '127.0.0.1', '--data', join(dir, 'data'), '--rate-limit-rps', '0'], {
  stdout: 'pipe',
  stderr: 'inherit',
})
let banner = ''
const reader = server.stdout.getReader()
while (!/stop with Ctrl-C/.test(banner)) {
  const { value, done } = await reader.read()
  if (done) throw new Error(`server did not start: ${banner}`)
  banner += new TextDecoder().decode(value)
}
const base = `http://127.0.0.1:${/listening\s+http:\/\/[^:]+:(\d+)/.exec(banner)![1]}/v1`
const adminToken = readFileSync(join(dir, 'data', 'admin-token'), 'utf8').trim()

async function call(method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const res = await fetch(base + path, { method, headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined })
  const json = (await res.json()) as any
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`)
  return json
}

await call('POST', '/admin/groups', { 'x-admin-token': adminToken }, { name: 'Bench', members: [{ rm: 'b1001', name: 'Bench' }] })
const first = await call('POST', '/store/auth/login', {}, { rm: 'b1001', password: 'b1001' })
const student = await call('POST', '/store/auth/change-password', { authorization: `Bearer ${first.token}` }, { currentPassword: 'b1001', newPassword: 'bench-password-1' })
const { apiKey } = await call('POST', '/store/api-keys', { authorization: `Bearer ${student.token}` }, { name: 'bench' })
const product = await call('POST', '/products', { 'x-api-key': apiKey }, { name: 'Bench', sku: 'BENCH-1', price: 19.99, stock: 1_000_000, state: 'PUBLISHED' })
const variantId = product.variants[0].id
const customers = await Promise.all(
  Array.from({ length: CUSTOMERS }, async (_, i) => {
    const session = await call('POST', '/customers/register', { 'x-api-key': apiKey }, { email: `c${i}@bench.local`, password: 'bench-password', name: `C${i}` })
    return { 'x-api-key': apiKey, authorization: `Bearer ${session.token}` }
  }),
)

const ceiling = writeCeiling(2000)

const cycles: number[] = []
const checkoutPay: number[] = []
const stopAt = performance.now() + SECONDS * 1000
const started = performance.now()
await Promise.all(
  customers.map(async (headers) => {
    while (performance.now() < stopAt) {
      const t0 = performance.now()
      await call('POST', '/cart/items', headers, { variantId, quantity: 1 })
      const t1 = performance.now()
      const order = await call('POST', '/orders/checkout', headers)
      await call('POST', `/orders/${order.id}/pay`, headers, { method: 'PIX' })
      const t2 = performance.now()
      cycles.push(t2 - t0)
      checkoutPay.push(t2 - t1)
    }
  }),
)
const elapsed = (performance.now() - started) / 1000
const check = await call('GET', `/variants/${variantId}`, { 'x-api-key': apiKey })
server.kill('SIGTERM')
await server.exited
rmSync(dir, { recursive: true, force: true })

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!
const ms = (x: number) => `${x.toFixed(1)} ms`
const orders = cycles.length
const rows = [
  ['customers', String(CUSTOMERS)],
  ['orders paid', `${orders} in ${elapsed.toFixed(1)} s`],
  ['throughput', `${(orders / elapsed).toFixed(0)} orders/s (${((orders * 3) / elapsed).toFixed(0)} requests/s)`],
  ['checkout + pay, p50 / p95 / max', `${ms(pct(checkoutPay, 50))} / ${ms(pct(checkoutPay, 95))} / ${ms(pct(checkoutPay, 99.999))}`],
  ['add + checkout + pay, p50 / p95', `${ms(pct(cycles, 50))} / ${ms(pct(cycles, 95))}`],
  ['ceiling: trivial write transactions', `${ceiling.toFixed(0)} tx/s`],
  ['stock sold (stock left vs orders)', `${1_000_000 - check.stock} units sold, ${check.reserved} reserved, ${orders} orders`],
]
for (const [k, v] of rows) console.log(`${k!.padEnd(40)} ${v}`)
