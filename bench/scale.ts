/**
 * `npm run bench:scale`: do the costs stay flat as a store grows?
 *
 *   bun bench/scale.ts [--max 100000] [--seconds 0.5] [--rounds 3] [--json <file>] [--fresh]
 *
 * One store of each size (1,000, 10,000, 100,000 and, with `--max 1000000`, 1,000,000 products;
 * system/scale-seed.ts, cached in <tmp>), and a store of 1,000 products with 0 and with 100,000 earlier
 * orders. Every store is opened at once in this process and called through app.handle, so what is
 * timed is the server's own work, one request at a time, with no socket and no queue. Each
 * measurement takes turns over the sizes (`rounds` turns of `seconds` each), so the machine's other
 * load falls on every size alike; each row is compared with the smallest size of the same run.
 *
 * Reads (list page 1, product detail, search "camiseta azul", review list of a product with 60 reviews):
 * - warm: the same request again and again, as a class polling a page: served from the read cache;
 * - cold: before each request (untimed) the product (or review) it shows is touched, its `updated_at`
 *   raised by SQL, so no cache may keep the body: the queries run. The statements column says how many ran.
 * First search: the first search of each of 43 common words (each noun, colour and trait of the
 * catalog, and "na", "ideal", "dia" that every description holds), once per store, in a fresh app.
 * Checkout: add to cart + check out + pay, one order at a time by 8 customers in turn.
 */
import { startTally } from './system/statement-count'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { COLORS, NOUNS, TRAITS } from './seed'
import { copyData } from './system/harness'
import { openInProcess, placeOrder, registerCustomers, type InProcess } from './system/in-process'
import { scaleData, type ScaleStore } from './system/scale-seed'
import { scaleTable, type ScaleRow } from './system/scale-report'

const { values: args } = parseArgs({
  options: {
    max: { type: 'string', default: '100000' },
    seconds: { type: 'string', default: '0.5' },
    rounds: { type: 'string', default: '3' },
    json: { type: 'string' },
    fresh: { type: 'boolean', default: false },
  },
})
const SECONDS = Number(args.seconds)
const ROUNDS = Number(args.rounds)
const log = (line: string) => process.stdout.write(line + '\n')
const work = mkdtempSync(join(tmpdir(), 'storefront-bench-scale-run-'))

interface Opened {
  size: number
  /** The cached seed this store's copy came from. */
  seeded: string
  store: ScaleStore
  app: InProcess
  headers: Record<string, string>
}

async function open(size: { products: number; orders: number }, name: string): Promise<Opened> {
  const { dir, store } = await scaleData(size, args.fresh, log)
  const app = openInProcess(copyData(dir, work, name))
  return { size: size.orders || size.products, seeded: dir, store, app, headers: { 'x-api-key': store.apiKey } }
}

const sizes = [1_000, 10_000, 100_000, 1_000_000].filter((n) => n <= Number(args.max))
log(`scale: stores of ${sizes.map((n) => n.toLocaleString('en')).join(', ')} products, and of 1,000 products with 0 and 100,000 earlier orders (seeded once, then reused)`)
const stores: Opened[] = []
for (const products of sizes) stores.push(await open({ products, orders: 0 }, `p${products}`))
const ordered = [stores[0]!, await open({ products: 1_000, orders: 100_000 }, 'orders')]
ordered[0] = { ...ordered[0]!, size: 0 }

interface Sample {
  ms: number[]
  statements: number[]
  elapsed: number
}

/** One request at a time for `seconds` (or `count` requests): `prepare` runs untimed before each. */
async function sample(o: Opened, request: (i: number) => { path: string; prepare?: () => void }, into: Sample, limit: { seconds?: number; count?: number }) {
  const end = performance.now() + (limit.seconds ?? Infinity) * 1000
  for (let i = 0; performance.now() < end && i < (limit.count ?? Infinity); i++) {
    const r = request(into.ms.length)
    r.prepare?.()
    const tally = startTally({ texts: false })
    const answer = await o.app.call('GET', r.path, o.headers)
    into.statements.push(tally.stop().total)
    if (answer.status !== 200) throw new Error(`${r.path}: ${answer.status} ${answer.text}`)
    into.ms.push(answer.ms)
    into.elapsed += answer.ms
  }
}

const rows: ScaleRow[] = []
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? 0
function push(measure: string, unit: 'products' | 'orders', size: number, s: Sample) {
  rows.push({ measure, unit, size, p50: median(s.ms), p99: quantile(s.ms, 0.99), perSecond: (s.ms.length * 1000) / s.elapsed, statements: median(s.statements), samples: s.ms.length })
}

/** Touches make a body stale: every cache that shows `updated_at` must drop it. */
const touchProduct = (o: Opened, id: string) => () => o.app.deps.sqlite.run('update products set updated_at = updated_at + 1 where id = ?', [id])
const touchReview = (o: Opened, id: string) => () => o.app.deps.sqlite.run('update reviews set updated_at = updated_at + 1 where id = ?', [id])
const firstId = async (o: Opened, path: string) => (JSON.parse((await o.app.ok('GET', path, o.headers)).text) as { data: { id: string }[] }).data[0]!.id

const LIST = '/v1/products?page=1&pageSize=20'
const SEARCH = '/v1/products?search=camiseta%20azul'
const reviewsOf = (o: Opened) => `/v1/products/${o.store.reviewedProductId}/reviews?page=1&pageSize=20`
const detail = (o: Opened, i: number) => `/v1/products/${o.store.sampleProductIds[(i * 7) % o.store.sampleProductIds.length]}`

const reads: { name: string; request: (o: Opened) => Promise<(i: number, cold: boolean) => { path: string; prepare?: () => void }> }[] = [
  { name: 'list page 1', request: async (o) => { const id = await firstId(o, LIST); return (_, cold) => ({ path: LIST, prepare: cold ? touchProduct(o, id) : undefined }) } },
  {
    name: 'product detail',
    request: async (o) => (i, cold) => {
      const path = detail(o, i)
      return { path, prepare: cold ? touchProduct(o, path.slice(path.lastIndexOf('/') + 1)) : undefined }
    },
  },
  { name: 'search "camiseta azul"', request: async (o) => { const id = await firstId(o, SEARCH); return (_, cold) => ({ path: SEARCH, prepare: cold ? touchProduct(o, id) : undefined }) } },
  { name: 'review list', request: async (o) => { const id = await firstId(o, reviewsOf(o)); return (_, cold) => ({ path: reviewsOf(o), prepare: cold ? touchReview(o, id) : undefined }) } },
]

for (const read of reads) {
  for (const cold of [true, false]) {
    const samples = stores.map((): Sample => ({ ms: [], statements: [], elapsed: 0 }))
    const requests = await Promise.all(stores.map((o) => read.request(o)))
    // Warm-up: the JIT, and for the warm rows the cache.
    for (const [k, o] of stores.entries()) await sample(o, (i) => requests[k]!(i, cold), { ms: [], statements: [], elapsed: 0 }, { count: 50 })
    for (let round = 0; round < ROUNDS; round++) {
      for (const [k, o] of stores.entries()) await sample(o, (i) => requests[k]!(i, cold), samples[k]!, { seconds: SECONDS })
    }
    stores.forEach((o, k) => push(`${read.name}, ${cold ? 'cold' : 'warm'}`, 'products', o.size, samples[k]!))
    log(`  ${read.name}, ${cold ? 'cold' : 'warm'}: p50 ${stores.map((_, k) => median(samples[k]!.ms).toFixed(3)).join(' / ')} ms`)
  }
}

// The first search of each word, once per store: a fresh app on the same data has an empty read cache.
const WORDS = [...NOUNS, ...COLORS, ...TRAITS, 'na', 'ideal', 'dia']
const fresh = await Promise.all(stores.map(async (o, k) => ({ ...o, app: openInProcess(copyData(o.seeded, work, `first-${k}`)) })))
const firsts = fresh.map((): Sample => ({ ms: [], statements: [], elapsed: 0 }))
for (const o of fresh) await o.app.ok('GET', LIST, o.headers) // the app's routes compiled, the key read: not the search's cost
for (const word of WORDS) {
  for (const [k, o] of fresh.entries()) await sample(o, () => ({ path: `/v1/products?search=${encodeURIComponent(word)}` }), firsts[k]!, { count: 1 })
}
fresh.forEach((o, k) => push('first search of a word', 'products', o.size, firsts[k]!))
log(`  first search of a word: p99 ${fresh.map((_, k) => quantile(firsts[k]!.ms, 0.99).toFixed(1)).join(' / ')} ms`)
for (const o of fresh) await o.app.close()

// Checkout: 8 customers each placing orders in turn, one order at a time.
const buyers = await Promise.all(ordered.map((o) => registerCustomers(o.app, o.store.apiKey, 8, 'scale-')))
const orderSamples = ordered.map((): Sample => ({ ms: [], statements: [], elapsed: 0 }))
const buy = async (k: number, into: Sample, seconds: number) => {
  const o = ordered[k]!
  const end = performance.now() + seconds * 1000
  for (let i = 0; performance.now() < end; i++) {
    const tally = startTally({ texts: false })
    const t = performance.now()
    await placeOrder(o.app, buyers[k]![i % 8]!, o.store.stockVariantId)
    const ms = performance.now() - t
    into.statements.push(tally.stop().total)
    into.ms.push(ms)
    into.elapsed += ms
  }
}
for (const k of ordered.keys()) await buy(k, { ms: [], statements: [], elapsed: 0 }, 0.3)
for (let round = 0; round < ROUNDS; round++) for (const k of ordered.keys()) await buy(k, orderSamples[k]!, 2 * SECONDS)
ordered.forEach((o, k) => push('checkout (add + checkout + pay)', 'orders', o.size, orderSamples[k]!))
log(`  checkout: ${ordered.map((_, k) => ((orderSamples[k]!.ms.length * 1000) / orderSamples[k]!.elapsed).toFixed(0)).join(' / ')} orders/s`)

for (const o of [...stores, ordered[1]!]) await o.app.close()
rmSync(work, { recursive: true, force: true })
// Under `npm run bench` (--json), the whole report prints the table.
if (args.json) writeFileSync(args.json, JSON.stringify(rows))
else log('\n' + scaleTable(rows))
process.exit(0)
