/**
 * What the activity counter, the rate limiter and the request inspector cost (the target: under 5 % of list throughput), as
 * steadily as a busy 2-core machine allows.
 *
 * Both variants of the app (variant-server.ts: `on` and `off`) run at once, each on its own copy of
 * the data (the server holds its database file alone), and the load generator takes turns between
 * them in short windows: on, off, then off, on, and so on (ABBA), so a slow drift of the machine's
 * other load falls on both sides alike. Each pair of neighbouring windows gives one ratio; the cost is
 * 1 minus the median ratio. Three pairs of 3 s windows, each variant started afresh, read anything
 * from -7 % to +20 % here; many short pairs on warm servers are what narrow it.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { copyData, onSide, startHelper } from './harness'

export interface Bookkeeping {
  pairs: number
  windowSeconds: number
  onRps: number[]
  offRps: number[]
  /** 1 - the median of the pairs' on/off requests/s. */
  cost: number
}

export async function measureBookkeeping(data: string, work: string, request: { path: string; headers: Record<string, string> }, pairs = 30, windowSeconds = 1.5, onMode: 'on' | 'off' = 'on'): Promise<Bookkeeping> {
  const servers = [
    await startHelper('variant-server.ts', [copyData(data, work, 'bookkeeping-on'), onMode]),
    await startHelper('variant-server.ts', [copyData(data, work, 'bookkeeping-off'), 'off']),
  ]
  try {
    // Two warm-up windows each (read cache, JIT, connections), then on, off, off, on, on, off, ...
    const order = [0, 1, 0, 1, ...Array.from({ length: pairs }, (_, i) => (i % 2 ? [1, 0] : [0, 1])).flat()]
    const spec = { bases: servers.map((s) => s.base), order, warmupWindows: 4, windowSeconds, connections: 32, ...request }
    const file = join(work, 'alternate.json')
    writeFileSync(file, JSON.stringify(spec))
    const proc = Bun.spawn(onSide('load', [process.execPath, join(import.meta.dir, 'alternate.ts'), file]), { stdout: 'pipe', stderr: 'inherit' })
    const out = await new Response(proc.stdout).text()
    if ((await proc.exited) !== 0) throw new Error(`alternate.ts failed: ${out}`)
    const windows = JSON.parse(out) as { server: number; rps: number; errors: number }[]
    if (windows.some((w) => w.errors)) throw new Error(`bookkeeping: errors in ${JSON.stringify(windows)}`)
    const onRps = windows.filter((w) => w.server === 0).map((w) => w.rps)
    const offRps = windows.filter((w) => w.server === 1).map((w) => w.rps)
    const ratios = onRps.map((on, i) => on / offRps[i]!).sort((a, b) => a - b)
    return { pairs, windowSeconds, onRps, offRps, cost: 1 - ratios[Math.floor(pairs / 2)]! }
  } finally {
    for (const s of servers) await s.stop()
  }
}

// `bun bench/system/bookkeeping.ts <dataDir> <x-api-key> [pairs] [aa]`: this measurement alone, on a copy
// of a seeded classroom's data dir, with the list page of `npm run bench`; `aa` compares off with off.
if (import.meta.main) {
  const { mkdtempSync, rmSync } = await import('node:fs')
  const { tmpdir } = await import('node:os')
  const [data, apiKey, pairs, aa] = process.argv.slice(2)
  const work = mkdtempSync(join(tmpdir(), 'storefront-bench-bookkeeping-'))
  const b = await measureBookkeeping(data!, work, { path: '/v1/products?page=1&pageSize=20', headers: { 'x-api-key': apiKey! } }, Number(pairs ?? 30), 1.5, aa === 'aa' ? 'off' : 'on')
  const pct = (x: number) => (x * 100).toFixed(1)
  console.log(`cost ${pct(b.cost)} %; pairs ${b.onRps.map((on, i) => pct(1 - on / b.offRps[i]!)).join(', ')}`)
  rmSync(work, { recursive: true, force: true })
  process.exit(0)
}
