/**
 * The whole-system bench's table: every measurement of one run, its ratio to the ceiling measured in
 * the same run, and whether each target holds.
 */
import type { LabelStats } from './load'
import type { Bookkeeping } from './bookkeeping'
import { CEILING_CPU_SHARE, type Measured, type Target } from './endpoints'
import type { Pinning } from './harness'
import { scaleTable, type ScaleRow } from './scale-report'
import { statementTable, type StatementRow } from './statement-report'

/** The mix's warm-up (a class's first minute: every store's first searches), p99 target in ms. */
export const FIRST_MINUTE_P99 = 100

export interface Results {
  at: string
  bun: string
  cores: number
  pinning?: Pinning
  /** The parts that ran (`--only`); every part when absent. */
  parts?: string[]
  seconds: number
  /** The endpoints' turns of the server and of its ceiling, and their length (absent in runs before 2026-11-26 afternoon: `seconds` and 3). */
  turns?: number
  turnSeconds?: number
  concurrency: number
  endpoints: Measured[]
  mix: Record<string, LabelStats>
  startup: { runs?: number; ceilingMs?: number; firstMs?: number; restartMs?: number; seededMs?: number; seededAll?: number[]; all?: unknown }
  memory: { idleMib?: number; afterMixMib?: number; afterRunMib?: number }
  bookkeeping: Partial<Bookkeeping>
  bookkeepingNoise?: Bookkeeping
  webhooks?: { endpoints: number; paidOrders: number; expected: number; delivered: number; deliveriesPerSecond: number; drainAfterLoadMs: number }
  flow?: Record<string, LabelStats>
  statements?: StatementRow[]
  scale?: ScaleRow[]
}

const n = (x: number) => Math.round(x).toLocaleString('en')
const ms = (x: number) => x.toFixed(2)
const mib = (x: number | undefined) => (x === undefined ? '?' : x.toFixed(1))
const verdict = (ok: boolean) => (ok ? 'holds' : '**misses**')

function targetText(t: Target, e: Measured): string {
  if (t.kind === 'ratio') return `ratio >= ${t.value}: ${e.ratio === undefined ? 'not measured' : verdict(e.ratio >= t.value)}`
  if (t.kind === 'rate') return `>= ${n(t.value)} ${e.unit ?? 'req/s'}: ${verdict(e.server.rps >= t.value)}`
  return `p99 <= ${t.value} ms: ${verdict(e.server.p99 <= t.value)}`
}

export function report(r: Results): string {
  const lines: string[] = []
  const out = (line = '') => lines.push(line)
  out(`Bun ${r.bun}, ${r.cores} cores, ${r.at}; ${r.concurrency} connections; endpoints: ${r.turns ?? 3} turns of ${r.turnSeconds ?? r.seconds} s, ratio = median of the turns (all turns in brackets); orders: rounds of ${r.seconds} s`)
  out(r.pinning ? `${r.pinning.note}.` : 'not pinned.')
  if (r.parts) out(`parts run: ${r.parts.join(', ')}`)
  if (r.endpoints.length) endpointTable(r, out)
  if (Object.keys(r.mix).length) mixTable(r, out)
  if (r.startup.firstMs !== undefined || r.startup.seededMs !== undefined || r.bookkeeping.cost !== undefined || r.memory.afterRunMib !== undefined) measures(r, out)
  if (r.statements) out(`\nSQL statements per request of the buying flow (in-process, median of 50 orders):\n\n${statementTable(r.statements)}`)
  if (r.scale) out(`\nScale (in-process, one request at a time):\n\n${scaleTable(r.scale)}`)
  return lines.join('\n')
}

/** A share as whole percent (one argument: safe to hand to `map`). */
export const pct = (x: number) => `${(x * 100).toFixed(0)} %`

/** The ratio cell: the ratio and its turns, or why there is none. */
function ratioCell(e: Measured): string {
  const turns = e.turns ? ` (${e.turns.map((t) => t.toFixed(2)).join(', ')})` : ''
  if (e.failed) return `**failed**: ${e.failed}`
  // wrk's own share tells why: near a whole core, wrk was the limit; far under it, other work had the cores.
  if (e.generatorBound) return `generator-bound: the ceiling used ${e.ceilingCpu!.map(pct).join(', ')} of its core, wrk ${e.wrkCpu!.map(pct).join(', ')} of its own${turns}`
  return e.ratio === undefined ? '' : `${e.ratio.toFixed(2)}${turns}`
}

function endpointTable(r: Results, out: (line?: string) => void) {
  out()
  out('| endpoint | req/s | p50 ms | p95 ms | p99 ms | errors | ceiling req/s | ratio | target |')
  out('|---|---|---|---|---|---|---|---|---|')
  for (const e of r.endpoints) {
    const s = e.server
    const unit = e.unit ? ` ${e.unit}` : ''
    out(`| ${e.name} | ${n(s.rps)}${unit} | ${ms(s.p50)} | ${s.p95 === undefined ? '' : ms(s.p95)} | ${ms(s.p99)} | ${s.errors} | ${e.ceiling ? `${n(e.ceiling.rps)}${unit}` : ''} | ${ratioCell(e)} | ${(e.targets ?? []).map((t) => targetText(t, e)).join('; ')} |`)
  }
  if (r.webhooks) {
    const w = r.webhooks
    out(`| webhook fan-out | ${n(w.deliveriesPerSecond)} deliveries/s | | | | ${w.expected - w.delivered} missing | | | ${n(w.delivered)} of ${n(w.expected)} (${n(w.paidOrders)} orders x ${w.endpoints}), last ${n(w.drainAfterLoadMs)} ms after the load |`)
  }
  if (r.endpoints.some((e) => e.ceiling)) {
    out(`\nEndpoints: wrk (p95 not reported); a ratio counts only when every ceiling turn used ${pct(CEILING_CPU_SHARE)} of its core or more (else "generator-bound").`)
  }
  const g = r.endpoints.find((e) => e.generators)?.generators
  if (g) out(`The load generators on the bare /health server: wrk ${n(g.wrkRps)} req/s (the bare server used ${pct(g.wrkCeilingCpu)} of its core), the JS generator ${n(g.jsRps)} req/s (${pct(g.jsCeilingCpu)}).`)
  if (r.endpoints.some((e) => e.unit === 'orders/s')) out('\nOrders run on the JS load generator: the latencies are of the whole order (add to cart, check out, pay), the errors those of its requests.')
}

function mixTable(r: Results, out: (line?: string) => void) {
  out()
  const skip = new Set(['paid (all)', 'warm-up', 'order'])
  const mixWorst = Math.max(0, ...Object.entries(r.mix).filter(([k]) => !skip.has(k)).map(([, s]) => s.p99))
  out(`Classroom mix (30 stores x 3 clients, rate limit at its default): target p99 <= 50 ms on every endpoint: ${verdict(mixWorst <= 50)}`)
  out()
  out('| endpoint | req/s | p50 ms | p95 ms | p99 ms | max ms | statuses |')
  out('|---|---|---|---|---|---|---|')
  for (const [name, s] of Object.entries(r.mix)) {
    if (skip.has(name)) continue
    out(`| ${name} | ${n(s.rps)} | ${ms(s.p50)} | ${ms(s.p95)} | ${ms(s.p99)} | ${ms(s.max)} | ${Object.entries(s.statuses).map(([k, v]) => `${k}: ${v}`).join(', ')} |`)
  }
  const w = r.mix['warm-up']
  if (w) {
    out(
      `\nThe mix's warm-up (each client's first pass, when a store's first searches over its catalog are not cached yet), all endpoints: p50 ${ms(w.p50)} ms, p95 ${ms(w.p95)} ms, p99 ${ms(w.p99)} ms, max ${ms(w.max)} ms. Target p99 <= ${FIRST_MINUTE_P99} ms: ${verdict(w.p99 <= FIRST_MINUTE_P99)}.`,
    )
  }
}

function measures(r: Results, out: (line?: string) => void) {
  out()
  const st = r.startup
  const b = r.bookkeeping
  out('| measure | value | target |')
  out('|---|---|---|')
  if (st.firstMs !== undefined) {
    out(`| cold start, first (empty data dir), median of ${st.runs} | ${ms(st.firstMs)} ms (${(st.firstMs / (st.ceilingMs ?? 1)).toFixed(1)}x a bare Bun.serve: ${ms(st.ceilingMs ?? 0)} ms) | < 150 ms: ${verdict(st.firstMs < 150)} |`)
    out(`| cold start, restart, median of ${st.runs} | ${ms(st.restartMs ?? 0)} ms | < 150 ms: ${verdict((st.restartMs ?? 1e9) < 150)} |`)
  }
  if (st.seededMs !== undefined) {
    out(`| cold start on the seeded classroom, median of 3 (${(st.seededAll ?? []).map((x) => x.toFixed(0)).join(', ')} ms) | ${ms(st.seededMs)} ms | < 150 ms: ${verdict(st.seededMs < 150)} |`)
    out(`| idle RSS (seeded classroom, 1 s after start) | ${mib(r.memory.idleMib)} MiB | < 80 MiB: ${verdict((r.memory.idleMib ?? 1e9) < 80)} |`)
    out(`| RSS after the classroom mix | ${mib(r.memory.afterMixMib)} MiB | < 250 MiB: ${verdict((r.memory.afterMixMib ?? 1e9) < 250)} |`)
  }
  if (r.memory.afterRunMib !== undefined) out(`| RSS after the full run | ${mib(r.memory.afterRunMib)} MiB | < 250 MiB: ${verdict(r.memory.afterRunMib < 250)} |`)
  if (b.cost === undefined) return
  const tenths = (x: number) => `${(x * 100).toFixed(1)} %`
  /** The middle half of the pairs' costs: how much one pair moves. */
  const spread = (k: Partial<Bookkeeping>) => {
    const costs = (k.onRps ?? []).map((on, i) => 1 - on / k.offRps![i]!).sort((a, b) => a - b)
    return costs.length ? `${tenths(costs[Math.floor(costs.length / 4)]!)} to ${tenths(costs[Math.floor((3 * costs.length) / 4)]!)}` : ''
  }
  const noise = r.bookkeepingNoise
  out(
    `| activity counter + rate limiter + request inspector, cost on list req/s (median of ${b.rounds} rounds of ${b.pairs} on/off pairs of ${b.windowSeconds} s windows, each round on freshly started servers; middle half of the pairs ${spread(b)}; the rounds alone ${(b.roundCosts ?? []).map(tenths).join(', ')}) | ${tenths(b.cost)}${noise ? ` (the same with both sides off: ${tenths(noise.cost)}; middle half ${spread(noise)})` : ''} | none (retired: bench/README.md) |`,
  )
}
