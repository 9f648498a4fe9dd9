/**
 * Two checkouts' servers in one process, taking turns on the same requests without a socket, for a
 * change to the request path too small for wrk's turns to tell from this machine's noise:
 *
 *   bun bench/in-process-ab.ts --before <checkout> [--scenario detail|list|health] [--pairs 40] [--requests 30000]
 *
 * Opens the app of `--before` and of this checkout (bench/system/in-process.ts, each its own copy of
 * the seeded classroom, each importing its own `src/`), then runs `requests` requests of the scenario on
 * one and then on the other, `pairs` times, the order flipping each pair. A shift of the shared
 * machine's speed lasts longer than a pair and falls on both halves, so the median of the pairs' time
 * ratios stands where the turns' own times swing by half (bench/README.md, "Measurements behind design
 * choices"). What it leaves out, the HTTP server's own work, is the same for both.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import type { InProcess } from './system/in-process'
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
const pathOf = paths[args.scenario]
if (!pathOf) throw new Error(`--scenario: one of ${Object.keys(paths).join(', ')}`)
const work = mkdtempSync(join(tmpdir(), 'storefront-in-process-ab-'))

async function open(checkout: string, name: string) {
  const data = join(work, name)
  cpSync(seeded, data, { recursive: true })
  const { openInProcess } = (await import(join(resolve(checkout), 'bench/system/in-process.ts'))) as { openInProcess: (dir: string) => InProcess }
  return openInProcess(data)
}

/** Microseconds a request, over `n` requests one after another. */
async function turn(app: InProcess, n: number) {
  const started = performance.now()
  for (let i = 0; i < n; i++) {
    const answer = await app.call('GET', pathOf!(i), args.scenario === 'health' ? {} : key)
    if (answer.status !== 200) throw new Error(`${pathOf!(i)}: ${answer.status} ${answer.text}`)
  }
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
  await before.close()
  await after.close()
  rmSync(work, { recursive: true, force: true })
}
process.exit(0)
