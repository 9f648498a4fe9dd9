/**
 * `npm run bench`: the whole system, measured against the machine's own ceiling.
 *
 *   bun bench/run.ts [--seconds 3] [--rounds 3] [--turns 9] [--turn-seconds 1] [--concurrency 32] [--mix-seconds 20] [--starts 5]
 *                    [--bookkeeping-rounds 3] [--scale-max 100000] [--only <parts>] [--unpinned] [--fresh]
 *
 * Builds the executable (unless a build newer than every source exists), seeds a classroom (30 stores,
 * one with 100,000 products, orders and reviews; cached in <tmp>, see system/seed.ts), and starts the
 * executable on a copy of it, pinned to one core (system/harness.ts). wrk on the other cores
 * (system/wrk.ts) measures each endpoint, and with the same connections a bare Bun.serve on the
 * server's core answering the server's own bodies (system/ceiling.ts), checking that the load kept
 * that ceiling's core busy (system/endpoints.ts). The JS load generator (system/load.ts) runs the
 * classroom mix and whole orders, which are latencies and a rate far under its limit. Then the
 * statements per request of the buying flow (statements.ts) and the scale table (scale.ts). Prints a
 * table and writes bench/results/*.json; exits non-zero when a row failed (answers of 400 or more).
 * `--only` runs some of the parts: starts, mix, endpoints, orders, webhooks, bookkeeping, statements,
 * scale; every part but bookkeeping runs by default (it has no target any more; bench/README.md).
 * README.md (bench/) explains each measurement and why the rate limit is off where it is.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import type { LoadClient } from './system/load'
import { buildBareServer, call, copyData, freshExecutable, launch, freePort, onSide, pinning, runLoad, logRuntimeOptions, setPinning, startHelper, startStorefront, type Server } from './system/harness'
import { seededClassroom } from './system/seed'
import { measureBookkeeping } from './system/bookkeeping'
import { againstCeiling, orderRate, type Scenario } from './system/endpoints'
import { pct, report, type Results } from './system/report'
import { cartAddCycle, classroomClients, customers, key, ORDER_PRODUCTS, orderVariants, productPath } from './system/scenarios'
import { WRK_MISSING, type WrkRequest } from './system/wrk'

const PARTS = ['starts', 'mix', 'endpoints', 'orders', 'webhooks', 'bookkeeping', 'statements', 'scale'] as const
/** The bookkeeping's on/off measurement runs only when asked for (`--only bookkeeping`). */
const DEFAULT_PARTS = PARTS.filter((part) => part !== 'bookkeeping')
const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '3' },
    turns: { type: 'string', default: '9' },
    'turn-seconds': { type: 'string', default: '1' },
    concurrency: { type: 'string', default: '32' },
    'mix-seconds': { type: 'string', default: '20' },
    starts: { type: 'string', default: '5' },
    'bookkeeping-rounds': { type: 'string', default: '3' },
    'scale-max': { type: 'string', default: '100000' },
    only: { type: 'string', default: DEFAULT_PARTS.join(',') },
    unpinned: { type: 'boolean', default: false },
    fresh: { type: 'boolean', default: false },
  },
})
const only = new Set(args.only.split(','))
for (const part of only) if (!(PARTS as readonly string[]).includes(part)) throw new Error(`--only: unknown part ${part}; the parts are ${PARTS.join(', ')}`)
const wanted = (part: (typeof PARTS)[number]) => only.has(part)
if (wanted('endpoints') && !Bun.which('wrk')) {
  process.stderr.write(WRK_MISSING + '\n')
  process.exit(1)
}
setPinning(!args.unpinned)
const SECONDS = Number(args.seconds)
const CONCURRENCY = Number(args.concurrency)
const WARMUP = 1
const ROUNDS = Number(args.rounds)
/**
 * The endpoints: the server and its ceiling take this many short turns in alternation, each pair a
 * second apart, so that a change of the shared machine's speed between the two halves of a pair (a
 * neighbour's burst) moves few pairs, and the median of the pairs' ratios stands.
 */
const TURNS = Number(args.turns)
const TURN_SECONDS = Number(args['turn-seconds'])
const MIX_WARMUP = 8
/** Rounds of freshly started servers, each 100 pairs of 0.3 s windows: about a minute a round (bench/system/bookkeeping.ts). */
const BOOKKEEPING = { rounds: Number(args['bookkeeping-rounds']), pairs: 100, windowSeconds: 0.3 }
const log = (line: string) => process.stdout.write(line + '\n')
const work = mkdtempSync(join(tmpdir(), 'storefront-bench-run-'))
const results: Results = { at: new Date().toISOString(), bun: Bun.version, cores: navigator.hardwareConcurrency, pinning, parts: [...only], seconds: SECONDS, turns: TURNS, turnSeconds: TURN_SECONDS, concurrency: CONCURRENCY, endpoints: [], mix: {}, startup: {}, memory: {}, bookkeeping: {} }

log(pinning.note)
logRuntimeOptions(log)
const bin = await freshExecutable(log)
const { dir: seeded, manifest } = await seededClassroom(args.fresh, log)
const big = manifest.stores[0]!
/** The data every server part runs on: the mix's copy once it has run (with its orders), else a fresh copy. */
const classroom = () => (existsSync(join(work, 'classroom', 'storefront.db')) ? join(work, 'classroom') : copyData(seeded, work, 'classroom'))

// ---------------------------------------------------------------- cold start and idle memory

async function coldStarts() {
  const bare = await buildBareServer(work)
  const times: Record<'ceiling' | 'first' | 'restart', number[]> = { ceiling: [], first: [], restart: [] }
  for (let i = 0; i < Number(args.starts); i++) {
    // Unpinned, as a teacher launches it: there is no load generator to keep apart.
    const c = await launch([bare], work, await freePort(), false)
    times.ceiling.push(c.startMs)
    await c.stop()
    const dir = join(work, `start-${i}`)
    mkdirSync(dir)
    for (const kind of ['first', 'restart'] as const) {
      const s = await startStorefront(bin, dir, [], false)
      times[kind].push(s.startMs)
      await s.stop()
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  results.startup = { runs: Number(args.starts), ceilingMs: median(times.ceiling), firstMs: median(times.first), restartMs: median(times.restart), all: times }
}
if (wanted('starts')) {
  log('\ncold starts (empty data dir, then a restart on it) beside a bare compiled Bun.serve')
  await coldStarts()
}

// ---------------------------------------------------------------- the classroom mix, rate limit at its default

async function classroomMix() {
  // Three timed starts on the seeded data (the first one on the fresh copy), unpinned as a teacher
  // launches it; then the server of the mix, pinned.
  const dir = classroom()
  const starts: number[] = []
  for (let i = 0; i < 3; i++) {
    const s = await startStorefront(bin, dir, [], false)
    starts.push(s.startMs)
    await s.stop()
  }
  const server = await startStorefront(bin, dir)
  results.startup.seededMs = [...starts].sort((a, b) => a - b)[1]!
  results.startup.seededAll = starts
  await Bun.sleep(1000)
  results.memory.idleMib = server.rss()
  const clients = await classroomClients(server.base, manifest.stores)
  log(`\nclassroom mix: ${manifest.stores.length} stores x 3 clients (2 browsing, 1 buying; 100 ms between requests), rate limit at its default, ${args['mix-seconds']} s after ${MIX_WARMUP} s of warm-up`)
  // Each browsing client goes once through its 40 requests (4 to 6 s) in the warm-up, so the first,
  // uncached search of each kind over 100,000 products falls there: what is measured is a class at
  // work. The warm-up's latencies are reported apart (load.ts), not hidden.
  results.mix = await runLoad({ base: server.base, seconds: Number(args['mix-seconds']), warmup: MIX_WARMUP, clients })
  results.memory.afterMixMib = server.rss()
  await server.stop()
}
if (wanted('mix')) await classroomMix()

// ---------------------------------------------------------------- one endpoint at a time, and whole orders, against the ceiling

// The limit is off here: it exists to stop one store flooding the others, and would cap this one store
// at 50 requests/s. Webhooks to 127.0.0.1 need --allow-loopback-webhooks.
const serverParts = wanted('endpoints') || wanted('orders') || wanted('webhooks')
const orderedVariants = serverParts ? orderVariants(classroom(), big) : []
const server: Server | undefined = serverParts ? await startStorefront(bin, classroom(), ['--rate-limit-rps', '0', '--allow-loopback-webhooks']) : undefined
const get = (path: string, headers: Record<string, string> = key(big)): WrkRequest => ({ method: 'GET', path, headers })
const detailIds = big.sampleProductIds.slice(0, 200)
const ratio = (value: number) => [{ kind: 'ratio' as const, value }]

/**
 * Cart add: 32 customers, each adding 1 unit at a time to its own cart line (scenarios.ts,
 * cartAddCycle), taking turns on one wrk thread's 32 connections: one thread per customer made wrk
 * slower than the bare ceiling it had to fill.
 */
async function cartAdd(): Promise<Scenario> {
  const buyers = await Promise.all(
    (await customers(server!.base, big, CONCURRENCY, 'cart-')).map(async (headers) => {
      const cart = await call<{ items: { id: string }[] }>(server!.base, 'POST', '/v1/cart/items', headers, { variantId: big.stockVariantId, quantity: 1 })
      return { headers, itemId: cart.json.items[0]!.id }
    }),
  )
  const json = (headers: Record<string, string>) => ({ ...headers, 'content-type': 'application/json' })
  return {
    name: 'cart add',
    targets: ratio(0.4),
    connections: CONCURRENCY,
    rotate: true,
    lists: buyers.map(({ headers, itemId }) => cartAddCycle(big.stockVariantId, itemId).map((r): WrkRequest => ({ method: r.method, path: r.path, headers: json(headers), body: JSON.stringify(r.body) }))),
    // A run stops anywhere in the cycle: each line starts the next one at 1 unit, so none passes the most a line holds.
    beforeServerRun: async () => {
      for (const { headers, itemId } of buyers) await call(server!.base, 'PATCH', `/v1/cart/items/${itemId}`, headers, { quantity: 1 })
    },
  }
}

const reads = (name: string, target: number, list: WrkRequest[]): Scenario => ({ name, targets: ratio(target), connections: CONCURRENCY, lists: [list] })
const scenarios = async (): Promise<Scenario[]> => [
  // The server makes /health's JSON on every request; so does its ceiling here.
  { ...reads('GET /health', 0.7, [get('/health', {})]), stringifyPerRequest: true, compareGenerators: true },
  reads('product list', 0.6, [get('/v1/products?page=1&pageSize=20')]),
  reads('search', 0.5, [get('/v1/products?search=camiseta%20azul')]),
  reads('product detail', 0.6, detailIds.map((id) => get(productPath(id)))),
  reads('review list', 0.5, [get(`/v1/products/${big.reviewedProductId}/reviews?page=1&pageSize=20`)]),
  await cartAdd(),
]

const timing = { seconds: SECONDS, warmup: WARMUP, rounds: ROUNDS }
if (wanted('endpoints')) {
  log(`\none endpoint at a time with wrk: the big store (${big.products.toLocaleString('en')} products), ${CONCURRENCY} keep-alive connections, after ${WARMUP} s of warm-up ${TURNS} turns of ${TURN_SECONDS} s of the server, each followed by one of the ceiling with the same connections and requests`)
  for (const scenario of await scenarios()) {
    const m = await againstCeiling(server!, scenario, work, { seconds: TURN_SECONDS, warmup: WARMUP, rounds: TURNS })
    results.endpoints.push(m)
    const verdict = m.failed ? `FAILED: ${m.failed}` : m.generatorBound ? 'generator-bound (no ratio)' : `ratio ${m.ratio!.toFixed(2)}`
    log(`  ${m.name}: ${verdict}; turns ${m.turns!.map((t) => t.toFixed(2)).join(', ')}; median ${m.server.rps.toFixed(0)} / ${m.ceiling!.rps.toFixed(0)} req/s, p99 ${m.server.p99.toFixed(1)} ms; CPU of the ceiling ${m.ceilingCpu!.map(pct).join(', ')} (wrk ${m.wrkCpu!.map(pct).join(', ')}), of the server ${m.serverCpu!.map(pct).join(', ')}`)
    if (m.generators) log(`  load generators on the bare /health server: wrk ${m.generators.wrkRps.toFixed(0)} req/s (the bare server's CPU ${pct(m.generators.wrkCeilingCpu)}), the JS generator ${m.generators.jsRps.toFixed(0)} req/s (the bare server's CPU ${pct(m.generators.jsCeilingCpu)})`)
  }
}
if (wanted('orders')) {
  // Whole orders: each customer adds a unit, checks out and pays, then starts again.
  log(`\nwhole orders on the JS load generator: ${CONCURRENCY} customers, each order a random variant of ${ORDER_PRODUCTS.toLocaleString('en')} products, ${SECONDS} s a round after ${WARMUP} s of warm-up`)
  const buyers = (await customers(server!.base, big, CONCURRENCY, 'buy-')).map((headers): LoadClient => ({ headers, flow: 'order' }))
  const m = await orderRate(server!, 'orders (add to cart + checkout + pay)', [{ kind: 'rate', value: 1000 }, { kind: 'p99', value: 50 }], buyers, timing, orderedVariants)
  results.endpoints.push(m)
  log(`  ${m.name}: ${m.server.rps.toFixed(0)} orders/s, p99 ${m.server.p99.toFixed(1)} ms`)
}

// ---------------------------------------------------------------- orders with webhook fan-out

async function ordersAndFanOut(server: Server) {
  const receiver = await startHelper('receiver.ts', [], 'load')
  const student = key(big)
  for (const name of ['a', 'b', 'c']) {
    await call(server.base, 'POST', '/v1/webhooks', student, { url: `${receiver.base}/${name}`, events: ['order.paid'] })
  }
  const buyers = await customers(server.base, big, CONCURRENCY, 'order-')
  const loadEnded = Date.now() + (WARMUP + SECONDS) * 1000
  const flow = await runLoad({ base: server.base, seconds: SECONDS, warmup: WARMUP, clients: buyers.map((headers): LoadClient => ({ headers, flow: 'order' })), variants: orderedVariants })
  const paidTotal = flow['paid (all)']?.count ?? 0
  const expected = paidTotal * 3
  let stats = { count: 0, first: 0, last: 0 }
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    stats = (await call<typeof stats>(receiver.base, 'GET', '/stats', {})).json
    if (stats.count >= expected) break
    await Bun.sleep(100)
  }
  await receiver.stop()
  if (!flow.order) throw new Error(`no order was paid: ${JSON.stringify(flow)}`)
  results.endpoints.push({ name: 'orders, each paid order sent to 3 webhook receivers', unit: 'orders/s', server: flow.order })
  results.webhooks = {
    endpoints: 3,
    paidOrders: paidTotal,
    expected,
    delivered: stats.count,
    deliveriesPerSecond: stats.count / Math.max(0.001, (stats.last - stats.first) / 1000),
    drainAfterLoadMs: Math.max(0, stats.last - loadEnded),
  }
  results.flow = flow
}

if (wanted('webhooks')) {
  log(`\norders (add 1 unit of a random variant of ${ORDER_PRODUCTS.toLocaleString('en')} products, check out, pay with PIX; 32 customers), each paid order fanned out to 3 webhook receivers`)
  await ordersAndFanOut(server!)
}
if (server) {
  results.memory.afterRunMib = server.rss()
  await server.stop()
}

// ---------------------------------------------------- activity counter + rate limiter + request inspector: on and off

if (wanted('bookkeeping')) {
  log(`\nactivity counter + rate limiter + request inspector on and off (list page 1, both variants from source at once; ${BOOKKEEPING.rounds} rounds of ${BOOKKEEPING.pairs} pairs of ${BOOKKEEPING.windowSeconds} s windows, then the same with both off)`)
  const listRequest = { path: '/v1/products?page=1&pageSize=20', headers: key(big) }
  results.bookkeeping = await measureBookkeeping(classroom(), work, listRequest, { ...BOOKKEEPING, onMode: 'on' })
  // The same measurement with nothing different between the two sides: how far noise alone moves it.
  results.bookkeepingNoise = await measureBookkeeping(classroom(), work, listRequest, { ...BOOKKEEPING, onMode: 'off' })
}

// ---------------------------------------------------------------- in-process: statements per request, and the scale table

/** A bench script of its own, in-process, on the server's core; its rows come back through a JSON file. */
async function inProcessBench<T>(script: string, flags: string[]): Promise<T> {
  const out = join(work, `${script}.json`)
  const proc = Bun.spawn(onSide('server', [process.execPath, join(import.meta.dir, script), ...flags, '--json', out]), { stdout: 'inherit', stderr: 'inherit' })
  if ((await proc.exited) !== 0) throw new Error(`${script} failed`)
  return JSON.parse(readFileSync(out, 'utf8')) as T
}
if (wanted('statements')) {
  log('\nSQL statements per request of the buying flow (in-process)')
  results.statements = await inProcessBench('statements.ts', [])
}
if (wanted('scale')) {
  log(`\nthe scale table (in-process, up to ${Number(args['scale-max']).toLocaleString('en')} products)`)
  results.scale = await inProcessBench('scale.ts', ['--max', args['scale-max']])
}

const file = join(import.meta.dir, 'results', `${results.at.replace(/[:.]/g, '-')}.json`)
mkdirSync(join(import.meta.dir, 'results'), { recursive: true })
writeFileSync(file, JSON.stringify(results, null, 1) + '\n')
log('\n' + report(results))
log(`\nwritten to ${file}`)
rmSync(work, { recursive: true, force: true })
const failed = results.endpoints.filter((e) => e.failed)
for (const e of failed) process.stderr.write(`${e.name} FAILED: ${e.failed}; a row measuring refused answers measures nothing\n`)
process.exit(failed.length ? 1 : 0)
