/**
 * Two checkouts' servers in one process, taking turns on the same requests without a socket, for a
 * change to the request path too small for wrk's turns to tell from this machine's noise:
 *
 *   bun bench/in-process-ab.ts --before <checkout> [--scenario detail|list|health|cart|order] [--pairs 40] [--requests 30000]
 *
 * Opens the app of `--before` and of this checkout (bench/system/in-process.ts, each its own copy of
 * the seeded classroom, each importing its own `src/`), then runs `requests` requests of the scenario on
 * one and then on the other, `pairs` times, the order flipping each pair. A shift of the shared
 * machine's speed lasts longer than a pair and falls on both halves, so the median of the pairs' time
 * ratios stands where the turns' own times swing by half (bench/README.md, "Measurements behind design
 * choices"). What it leaves out, the HTTP server's own work, is the same for both. `cart` is the cart
 * add of `npm run bench`: 32 customers at once, each adding a unit to its own line (scenarios.ts).
 * `order` is its whole orders: 32 customers at once, each adding a unit of one of the variants whole
 * orders buy, checking out and paying; a request there is a whole order (ask for fewer, e.g. 2000).
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import type { InProcess } from './system/in-process'
import type { LoadRequest } from './system/load'
import { cartAddCycle, orderVariants } from './system/scenarios'
import { seededClassroom } from './system/seed'

const { values: args } = parseArgs({
  options: {
    before: { type: 'string' },
    scenario: { type: 'string', default: 'detail' },
    pairs: { type: 'string', default: '40' },
    requests: { type: 'string', default: '30000' },
  },
})
if (!args.before) throw new Error('--before <checkout>: the checkout to compare this one with')
const { dir: seeded, manifest } = await seededClassroom(false, (line) => console.log(line))
const big = manifest.stores[0]!
const key = { 'x-api-key': big.apiKey }
const details = big.sampleProductIds.slice(0, 200)
const paths: Record<string, (i: number) => string> = {
  detail: (i) => `/v1/products/${details[i % details.length]}`,
  list: () => '/v1/products?page=1&pageSize=20',
  health: () => '/health',
}
/** The scenarios of buyers, 32 at once; the others are one request after another. */
const buying = args.scenario === 'cart' || args.scenario === 'order'
if (!buying && !paths[args.scenario]) throw new Error(`--scenario: one of ${[...Object.keys(paths), 'cart', 'order'].join(', ')}`)
const BUYERS = 32
const work = mkdtempSync(join(tmpdir(), 'storefront-in-process-ab-'))

/** One side: its app and one step of the scenario, the `i`th request (made by the `buyer`th of the buyers at once). */
interface Side {
  app: InProcess
  step: (i: number, buyer: number) => Promise<void>
}

const checked = async (answer: Promise<{ status: number; text: string }>, what: string) => {
  const { status, text } = await answer
  if (status !== 200) throw new Error(`${what}: ${status} ${text}`)
}

async function open(checkout: string, name: string): Promise<Side> {
  const data = join(work, name)
  cpSync(seeded, data, { recursive: true })
  // Read before the app holds the file.
  const variants = args.scenario === 'order' ? orderVariants(data, big) : []
  const { openInProcess, registerCustomers, placeOrder } = (await import(join(resolve(checkout), 'bench/system/in-process.ts'))) as typeof import('./system/in-process')
  const app = openInProcess(data)
  if (!buying) {
    const pathOf = paths[args.scenario]!
    return { app, step: (i) => checked(app.call('GET', pathOf(i), args.scenario === 'health' ? {} : key), pathOf(i)) }
  }
  const buyers = await registerCustomers(app, big.apiKey, BUYERS, `ab-${name}-`)
  if (args.scenario === 'order') {
    // The same variants in the same order on both sides, spread over the catalog as at random, each
    // bought a unit at a time across the turns (the variants have 20 units or more to spare).
    let placed = 0
    return { app, step: async (_i, buyer) => void (await placeOrder(app, buyers[buyer]!, variants[(placed++ * 7919) % variants.length]!)) }
  }
  // Each buyer's requests as npm run bench sends them: a unit at a time, the line set back to 1 before it is full.
  const cycles: LoadRequest[][] = []
  for (const headers of buyers) {
    const answer = await app.ok('POST', '/v1/cart/items', headers, { variantId: big.stockVariantId, quantity: 1 })
    cycles.push(cartAddCycle(big.stockVariantId, (JSON.parse(answer.text) as { items: { id: string }[] }).items[0]!.id))
  }
  return {
    app,
    step: (i) => {
      const b = i % BUYERS
      const r = cycles[b]![Math.floor(i / BUYERS) % cycles[b]!.length]!
      return checked(app.call(r.method, r.path, buyers[b]!, r.body), r.label)
    },
  }
}

/** Microseconds a request, over `n` requests: one after another, or made by BUYERS buyers at once, each its own one after another. */
async function turn(side: Side, n: number) {
  const started = performance.now()
  if (buying) {
    let next = 0
    await Promise.all(Array.from({ length: BUYERS }, async (_, buyer) => {
      while (next < n) await side.step(next++, buyer)
    }))
  } else for (let i = 0; i < n; i++) await side.step(i, 0)
  return ((performance.now() - started) / n) * 1000
}

const before = await open(args.before, 'before')
const after = await open('.', 'after')
const n = Number(args.requests)
try {
  for (let warm = 0; warm < 2; warm++) await Promise.all([turn(before, n), turn(after, n)])
  const pairs: { before: number; after: number }[] = []
  for (let p = 0; p < Number(args.pairs); p++) {
    const first = p % 2 ? before : after
    const a = await turn(first, n)
    const b = await turn(first === before ? after : before, n)
    pairs.push(first === before ? { before: a, after: b } : { before: b, after: a })
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1]!
  const ratios = pairs.map((p) => p.after / p.before).sort((x, y) => x - y)
  const quartile = (q: number) => ratios[Math.floor((ratios.length - 1) * q)]!.toFixed(3)
  console.log(
    `${args.scenario}: this checkout's time over --before's, median of ${pairs.length} pairs ${median(ratios).toFixed(3)} (quartiles ${quartile(0.25)} and ${quartile(0.75)}); ` +
      `a request ${median(pairs.map((p) => p.before)).toFixed(2)} µs before, ${median(pairs.map((p) => p.after)).toFixed(2)} µs after (medians)`,
  )
} finally {
  await before.app.close()
  await after.app.close()
  rmSync(work, { recursive: true, force: true })
}
process.exit(0)
