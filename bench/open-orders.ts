/**
 * `npm run bench:open-orders`: whole orders offered at fixed rates (an open loop), on the executable and
 * the seeded classroom of `npm run bench`, pinned as it pins.
 *
 *   bun bench/open-orders.ts [--rates 600,800,1000] [--seconds 8] [--warmup 2] [--customers 200]
 *
 * For each rate, a fresh copy of the classroom and a fresh server; a pool of customers of the big
 * store; system/open-load.ts starts an order every 1/rate seconds, each a random variant of the
 * 10,000 products whole orders buy from, and times it from when it was due. What it adds to the
 * whole run's orders (32 customers in a closed loop): how long orders take when they arrive on their
 * own schedule, stalls included (bench/README.md, "Orders offered at a fixed rate"). No targets. On
 * Linux it also prints what an order cost the server, thread by thread (system/threads.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { copyData, freshExecutable, pinning, runDriver, logRuntimeOptions, startStorefront } from './system/harness'
import type { OpenResult, OpenSpec } from './system/open-load'
import { customers, orderVariants } from './system/scenarios'
import { seededClassroom } from './system/seed'
import { type PerOrder, perOrder, threadSnapshot } from './system/threads'

const { values: args } = parseArgs({
  options: {
    rates: { type: 'string', default: '600,800,1000' },
    seconds: { type: 'string', default: '8' },
    warmup: { type: 'string', default: '2' },
    customers: { type: 'string', default: '200' },
  },
})
const log = (line: string) => console.log(line)
const work = mkdtempSync(join(tmpdir(), 'storefront-open-orders-'))
try {
  const bin = await freshExecutable(log)
  const { dir: seeded, manifest } = await seededClassroom(false, log)
  const big = manifest.stores[0]!
  const variants = orderVariants(seeded, big)
  log(pinning.pinned ? 'pinned with taskset: the server on one core, the orders on the others' : 'not pinned (one core)')
  logRuntimeOptions(log)
  log('| offered orders/s | done orders/s | p50 ms | p95 ms | p99 ms | max ms | dropped | errors |')
  log('|---|---|---|---|---|---|---|---|')
  const costs: [number, PerOrder][] = []
  for (const rate of args.rates.split(',').map(Number)) {
    const data = copyData(seeded, work, `rate-${rate}`)
    const server = await startStorefront(bin, data, ['--rate-limit-rps', '0'])
    try {
      const spec: OpenSpec = { base: server.base, rate, warmup: Number(args.warmup), seconds: Number(args.seconds), pool: await customers(server.base, big, Number(args.customers), `open-${rate}-`), variants }
      const before = threadSnapshot(server.proc.pid)
      const r = await runDriver<OpenResult>('open-load.ts', spec)
      const after = threadSnapshot(server.proc.pid)
      if (before && after) costs.push([rate, perOrder(server.proc.pid, before, after, r.paid)])
      const ms = (x: number) => x.toFixed(1)
      log(`| ${rate} | ${(r.done / spec.seconds).toFixed(0)} | ${ms(r.p50)} | ${ms(r.p95)} | ${ms(r.p99)} | ${ms(r.max)} | ${r.dropped} of ${r.offered} | ${r.errors} |`)
    } finally {
      await server.stop()
    }
  }
  if (costs.length > 0) {
    log('\nWhat an order cost the server, warm-up included (Linux /proc, per thread):')
    log('| offered orders/s | event loop CPU µs | compiler threads µs | checkpoints µs | other threads µs | event loop KiB written | write calls | read calls |')
    log('|---|---|---|---|---|---|---|---|')
    const n = (x: number) => x.toFixed(0)
    for (const [rate, c] of costs) log(`| ${rate} | ${n(c.mainUs)} | ${n(c.jitUs)} | ${n(c.checkpointsUs)} | ${n(c.otherUs)} | ${n(c.writtenKib)} | ${c.writeCalls.toFixed(1)} | ${c.readCalls.toFixed(1)} |`)
  }
} finally {
  rmSync(work, { recursive: true, force: true })
}
