/**
 * `bun run bench:catalog`: the catalog at scale. One store with 100,000 products; list page 1 and
 * page 500, a search, a price range and a product detail, measured in-process (through app.handle, no
 * socket) and over HTTP, against a route that serves a precomputed JSON body of the same size.
 *
 *   bun bench/catalog.ts [--products 100000] [--seconds 5] [--concurrency 32] [--data DIR] [--fresh]
 *
 * The seeded data dir is kept (default: <tmp>/storefront-bench-<products>) and reused by later runs;
 * --fresh seeds it again.
 */
import { count, eq, sql } from 'drizzle-orm'
import { Elysia } from 'elysia'
import { existsSync, mkdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { createApp } from '../src/app'
import { loadConfig } from '../src/config'
import { createDeps } from '../src/wiring'
import { createKey } from '../src/features/api-keys/service'
import { catalogVersions, products } from '../src/features/catalog/tables'
import { authMacro } from '../src/kernel/auth/macro'
import { groups, stores } from '../src/kernel/auth/tables'
import type { StoreCtx, StudentCtx } from '../src/kernel/auth/kinds'
import { systemClock } from '../src/kernel/clock'
import { openDatabase } from '../src/kernel/db/open'
import { migrate } from '../src/kernel/db/migrate'
import { systemIds } from '../src/kernel/ids'
import { memoryLog } from '../src/kernel/log'
import { seedStore } from './seed'

const { values: args } = parseArgs({
  options: {
    products: { type: 'string', default: '100000' },
    seconds: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '32' },
    iterations: { type: 'string', default: '400' },
    data: { type: 'string' },
    fresh: { type: 'boolean', default: false },
  },
})
const productCount = Number(args.products)
const dataDir = args.data ?? join(tmpdir(), `storefront-bench-${productCount}`)
if (args.fresh) rmSync(dataDir, { recursive: true, force: true })
mkdirSync(dataDir, { recursive: true })
const dbFile = join(dataDir, 'storefront.db')
const seeded = existsSync(dbFile)

const database = openDatabase(dbFile)
migrate(database.db)
const config = loadConfig({ dataDir, rateLimitRps: '0' }, {})
const deps = createDeps(config, database, { clock: systemClock, ids: systemIds, log: memoryLog(), adminToken: 'bench-admin-token-0000', publicUrl: '' })
const log = (line: string) => process.stdout.write(line + '\n')

async function store(): Promise<{ ctx: StoreCtx; apiKey: string; productIds: string[] }> {
  if (!seeded) {
    const started = performance.now()
    const result = await seedStore(deps, productCount, (n) => n % 10_000 === 0 && log(`  seeded ${n} products`))
    log(`seeded ${productCount} products in ${((performance.now() - started) / 1000).toFixed(0)} s`)
    return result
  }
  const s = deps.db.select({ storeId: stores.id, groupId: groups.id }).from(groups).innerJoin(stores, eq(stores.groupId, groups.id)).where(eq(groups.name, 'Bench')).get()!
  const ctx: StoreCtx = { storeId: s.storeId, groupId: s.groupId, actor: { type: 'student', rm: 'bench1', mustChangePassword: false } }
  const [{ n }] = deps.db.select({ n: count() }).from(products).where(eq(products.storeId, s.storeId)).all() as [{ n: number }]
  log(`reusing ${dataDir} (${n} products; --fresh seeds again)`)
  const productIds = deps.db.select({ id: products.id }).from(products).where(eq(products.storeId, s.storeId)).all().map((r) => r.id)
  return { ctx, apiKey: createKey(deps, ctx as StudentCtx, 'bench', 'secret').apiKey, productIds }
}

const { ctx, apiKey, productIds } = await store()
const headers = { 'x-api-key': apiKey }

const SCENARIOS: Record<string, (i: number) => string> = {
  'list page 1': () => '/v1/products?page=1&pageSize=20',
  'list page 500': () => '/v1/products?page=500&pageSize=20',
  'search "camiseta azul"': () => '/v1/products?search=camiseta%20azul',
  'price 100.00-150.00': () => '/v1/products?minPrice=100&maxPrice=150',
  'product detail': (i) => `/v1/products/${productIds[(i * 7919) % productIds.length]}`,
}

// The baseline: a precomputed body of the list page's size, behind the same kernel and credential
// (`static, same stack`), and on a bare route with nothing in front (`static, bare`).
let listBody = ''
const baseline = new Elysia()
  .use(authMacro)
  .get('/v1/bench/static', () => new Response(listBody, { headers: { 'content-type': 'application/json' } }), { auth: 'shop' })
  .get('/bench/static', () => new Response(listBody, { headers: { 'content-type': 'application/json' } }))
const app = createApp(deps, baseline)

const percentile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
const ms = (v: number) => v.toFixed(2)

/** Raising the store's catalog versions (bodies and found pages) empties its read cache: the next read runs every query. */
const forgetCache = () =>
  deps.db
    .update(catalogVersions)
    .set({ version: sql`${catalogVersions.version} + 1`, matches: sql`${catalogVersions.matches} + 1` })
    .where(eq(catalogVersions.storeId, ctx.storeId))
    .run()

async function inProcess(path: (i: number) => string, cold: boolean) {
  const iterations = Number(args.iterations)
  const times: number[] = []
  for (let i = -50; i < iterations; i++) {
    if (cold) forgetCache()
    const t = performance.now()
    const res = await app.handle(new Request(`http://localhost${path(i + 50)}`, { headers }))
    const text = await res.text()
    if (res.status !== 200) throw new Error(`${path(i)}: ${res.status} ${text}`)
    if (i >= 0) times.push(performance.now() - t)
  }
  times.sort((a, b) => a - b)
  return { p50: percentile(times, 0.5), p95: percentile(times, 0.95) }
}

async function overHttp(port: number, path: string, withKey = true) {
  const proc = Bun.spawn(
    [process.execPath, join(import.meta.dir, 'load.ts'), `http://127.0.0.1:${port}${path}`, String(args.seconds), String(args.concurrency), JSON.stringify(withKey ? headers : {})],
    { stdout: 'pipe', stderr: 'inherit' },
  )
  const out = await new Response(proc.stdout).text()
  await proc.exited
  return JSON.parse(out) as { requests: number; errors: number; rps: number; p50: number; p95: number }
}

const first = await app.handle(new Request('http://localhost/v1/products?page=1&pageSize=20', { headers }))
listBody = await first.text()
const page = JSON.parse(listBody) as { total: number }
log(`store: ${page.total} products; list page body ${listBody.length} bytes; Bun ${Bun.version}, ${navigator.hardwareConcurrency} cores`)

log('\nin-process, through app.handle (auth, validation, queries, response schema, JSON; no socket)')
log('cold: the read cache emptied before every request, so every query runs; warm: served from the cache')
log('| query | cold p50 ms | cold p95 ms | warm p50 ms | warm p95 ms |\n|---|---|---|---|---|')
for (const [name, path] of Object.entries(SCENARIOS)) {
  const cold = await inProcess(path, true)
  const warm = await inProcess(path, false)
  log(`| ${name} | ${ms(cold.p50)} | ${ms(cold.p95)} | ${ms(warm.p50)} | ${ms(warm.p95)} |`)
}

app.listen({ hostname: '127.0.0.1', port: 0 })
const port = app.server!.port!
log(`\nover HTTP (${args.concurrency} keep-alive connections from a separate process, ${args.seconds} s each; the catalog unchanged, so reads come from the cache)`)
log('| route | requests/s | p50 ms | p95 ms | errors |\n|---|---|---|---|---|')
const results: Record<string, number> = {}
const http = async (name: string, path: string, withKey = true) => {
  const r = await overHttp(port, path, withKey)
  results[name] = r.rps
  log(`| ${name} | ${r.rps.toFixed(0)} | ${ms(r.p50)} | ${ms(r.p95)} | ${r.errors} |`)
}
await http('static, bare', '/bench/static', false)
await http('static, same stack', '/v1/bench/static')
for (const [name, path] of Object.entries(SCENARIOS)) await http(name, path(1))

const list = results['list page 1']!
log(`\nlist page 1 / static body of the same size: ${(list / results['static, same stack']!).toFixed(2)} (same stack), ${(list / results['static, bare']!).toFixed(2)} (bare)`)
await app.server!.stop()
await deps.lifecycle.stop()
database.close()
process.exit(0)
