/**
 * What the activity counter, the rate limiter and the request inspector cost on list throughput, as
 * steadily as a busy 2-core machine allows (`--only bookkeeping`: it has no target and runs only when asked for).
 *
 * Both variants of the app (variant-server.ts: `on` and `off`) run at once, each on its own copy of
 * the data (the server holds its database file alone), and the load generator takes turns between
 * them in short windows: on, off, then off, on, and so on (ABBA), so a drift of the machine's other
 * load falls on both sides alike. Each pair of neighbouring windows gives one ratio; the cost is 1
 * minus the median ratio over every pair of every round.
 *
 * What narrows it, measured with both sides off (bench/README.md): one pair moves about as much with
 * 0.3 s windows as with 1.5 s ones (±6 % in its middle half), so short windows give five times the
 * pairs in the same time; and two server processes of the same code differ by up to 2 % for their
 * whole life, so the pairs come from several rounds, each on a freshly started pair of servers.
 */
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { copyData, onSide, startHelper } from './harness'

export interface Bookkeeping {
  rounds: number
  /** Pairs per round. */
  pairs: number
  windowSeconds: number
  onRps: number[]
  offRps: number[]
  /** 1 - the median of each round's on/off ratios: how far one pair of processes sits from the others. */
  roundCosts: number[]
  /** 1 - the median of every pair's on/off requests/s. */
  cost: number
}

export interface BookkeepingPlan {
  rounds: number
  pairs: number
  windowSeconds: number
  /** `off` measures the noise: both sides the same. A comma list of parts (variant-server.ts) measures those alone. */
  onMode: string
}

const costOf = (on: number[], off: number[]) => {
  const ratios = on.map((x, i) => x / off[i]!).sort((a, b) => a - b)
  return 1 - ratios[Math.floor(ratios.length / 2)]!
}

type Target = { path: string; headers: Record<string, string> }
type Helper = Awaited<ReturnType<typeof startHelper>>

export function measureBookkeeping(data: string, work: string, request: Target, plan: BookkeepingPlan): Promise<Bookkeeping> {
  // Each round's servers get their own copies of the data (a stopped server's files are not reused),
  // removed once they have stopped: the big store's database is some 230 MB.
  const copies = (round: number) => [`bookkeeping-on-${round}`, `bookkeeping-off-${round}`]
  return measureOnOff(
    request,
    plan,
    async (round) => {
      const [on, off] = copies(round).map((name) => copyData(data, work, name))
      return [await startHelper('variant-server.ts', [on!, plan.onMode]), await startHelper('variant-server.ts', [off!, 'off'])]
    },
    work,
    (round) => copies(round).forEach((name) => rmSync(join(work, name), { recursive: true, force: true })),
  )
}

/**
 * The same measurement on two bare `Bun.serve` processes (header-server.ts) that answer one JSON body
 * with the kernel's headers, `on` adding the three RateLimit-* headers: what those headers cost by
 * themselves, beside a ceiling with nothing else to do.
 */
export function measureRateLimitHeaders(work: string, plan: BookkeepingPlan): Promise<Bookkeeping> {
  return measureOnOff({ path: '/', headers: {} }, plan, async () => [await startHelper('header-server.ts', [plan.onMode]), await startHelper('header-server.ts', ['off'])], work)
}

async function measureOnOff(request: Target, plan: BookkeepingPlan, start: (round: number) => Promise<Helper[]>, work: string, afterRound?: (round: number) => void): Promise<Bookkeeping> {
  const onRps: number[] = []
  const offRps: number[] = []
  const roundCosts: number[] = []
  for (let round = 0; round < plan.rounds; round++) {
    const servers = await start(round)
    try {
      const windows = await alternate(servers, work, request, plan)
      const on = windows.filter((w) => w.server === 0).map((w) => w.rps)
      const off = windows.filter((w) => w.server === 1).map((w) => w.rps)
      onRps.push(...on)
      offRps.push(...off)
      roundCosts.push(costOf(on, off))
    } finally {
      for (const s of servers) await s.stop()
      afterRound?.(round)
    }
  }
  return { rounds: plan.rounds, pairs: plan.pairs, windowSeconds: plan.windowSeconds, onRps, offRps, roundCosts, cost: costOf(onRps, offRps) }
}

/** One round's windows: the load generator takes turns between the two servers, started afresh for it. */
async function alternate(servers: Helper[], work: string, request: Target, plan: BookkeepingPlan) {
  // Warm-up windows (read cache, JIT, connections) for about 2 s, then on, off, off, on, on, off, ...
  const warmupWindows = 2 * Math.max(1, Math.round(1 / plan.windowSeconds))
  const order = [...Array.from({ length: warmupWindows }, (_, i) => i % 2), ...Array.from({ length: plan.pairs }, (_, i) => (i % 2 ? [1, 0] : [0, 1])).flat()]
  const spec = { bases: servers.map((s) => s.base), order, warmupWindows, windowSeconds: plan.windowSeconds, connections: 32, ...request }
  const file = join(work, 'alternate.json')
  writeFileSync(file, JSON.stringify(spec))
  const proc = Bun.spawn(onSide('load', [process.execPath, join(import.meta.dir, 'alternate.ts'), file]), { stdout: 'pipe', stderr: 'inherit' })
  const out = await new Response(proc.stdout).text()
  if ((await proc.exited) !== 0) throw new Error(`alternate.ts failed: ${out}`)
  const windows = JSON.parse(out) as { server: number; rps: number; errors: number }[]
  if (windows.some((w) => w.errors)) throw new Error(`bookkeeping: errors in ${JSON.stringify(windows)}`)
  return windows
}

// `bun bench/system/bookkeeping.ts <dataDir> <x-api-key> [rounds] [pairs] [aa | <parts>]`: this measurement alone,
// on a copy of a seeded classroom's data dir, with the list page of `npm run bench`; `aa` compares off with
// off, and a comma list of parts (`limiter`, `inspector,activity`) compares those parts alone with off.
// `bun bench/system/bookkeeping.ts headers [rounds] [pairs] [aa]`: the RateLimit-* headers alone, on bare servers.
if (import.meta.main) {
  const { mkdtempSync, rmSync } = await import('node:fs')
  const { tmpdir } = await import('node:os')
  const args = process.argv.slice(2)
  const headersOnly = args[0] === 'headers'
  const [data, apiKey, rounds, pairs, aa] = headersOnly ? ['', '', ...args.slice(1)] : args
  const work = mkdtempSync(join(tmpdir(), 'storefront-bench-bookkeeping-'))
  const plan = { rounds: Number(rounds ?? 3), pairs: Number(pairs ?? 100), windowSeconds: 0.3, onMode: aa === 'aa' ? 'off' : (aa ?? 'on') }
  const b = headersOnly ? await measureRateLimitHeaders(work, plan) : await measureBookkeeping(data!, work, { path: '/v1/products?page=1&pageSize=20', headers: { 'x-api-key': apiKey! } }, plan)
  const pct = (x: number) => (x * 100).toFixed(1)
  const mean = (xs: number[]) => Math.round(xs.reduce((a, x) => a + x, 0) / xs.length)
  console.log(`cost ${pct(b.cost)} %; rounds ${b.roundCosts.map(pct).join(', ')} %; mean req/s on ${mean(b.onRps)}, off ${mean(b.offRps)}`)
  rmSync(work, { recursive: true, force: true })
  process.exit(0)
}
