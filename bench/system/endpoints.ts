/**
 * One scenario at a time against the ceiling: the server's own answers to exactly the scenario's
 * requests are fetched first and served by a bare Bun.serve (ceiling.ts) on the server's core, and wrk
 * (wrk.ts) with the same connections and requests measures both, in turns. During each ceiling turn
 * the ceiling's CPU time is read: a ceiling that did not keep its core busy was held back by the load
 * generator, and its rate is no ceiling (the row says "generator-bound" and gives no ratio).
 * Whole orders are a rate and a p99, not a ratio, and stay on the JS load generator (load.ts).
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { runLoad, startHelper, type Server } from './harness'
import type { LabelStats, LoadClient } from './load'
import { cpuSeconds, runWrk, type WrkRequest, type WrkStats } from './wrk'

/** A target beside a figure: a ratio to the ceiling (at least), a rate (at least) or a p99 in ms (at most). */
export interface Target {
  kind: 'ratio' | 'rate' | 'p99'
  value: number
}

/** Below this share of its core, a ceiling turn was held back by the load generator. */
export const CEILING_CPU_SHARE = 0.9

export interface Scenario {
  name: string
  targets: Target[]
  connections: number
  /** The requests, one list per wrk thread (runWrk): one list for all connections, or one per connection. */
  lists: WrkRequest[][]
  /** The lists are clients taking turns on one wrk thread (runWrk, `rotate`), not a thread each. */
  rotate?: boolean
  /** Run before each warm-up and turn on the server (the ceiling keeps no state). */
  beforeServerRun?: () => Promise<void>
  /** The ceiling makes each answer with JSON.stringify of a fresh copy of the object, as the server does, instead of sending it ready-made. */
  stringifyPerRequest?: boolean
  /** Also load the ceiling with the JS generator once, to print how far below wrk it stays. */
  compareGenerators?: boolean
}

/** What a row shows of one side's run, whichever generator made it. */
export interface RowStats {
  rps: number
  p50: number
  p95?: number
  p99: number
  errors: number
}

export interface Measured {
  name: string
  unit?: string
  targets?: Target[]
  server: RowStats
  ceiling?: RowStats
  /** Absent when the row is generator-bound or failed. */
  ratio?: number
  turns?: number[]
  /** Per turn: the ceiling's and the server's CPU time over the turn's wall time, and wrk's in the ceiling's turn. */
  ceilingCpu?: number[]
  serverCpu?: number[]
  wrkCpu?: number[]
  generatorBound?: boolean
  /** Why the row is wrong (answers of 400 or more, socket errors): no ratio, and the run exits non-zero. */
  failed?: string
  /** The JS generator on the same ceiling (compareGenerators). */
  generators?: { wrkRps: number; wrkCeilingCpu: number; jsRps: number; jsCeilingCpu: number }
}

/** The server's answers to every request of the lists, for the ceiling to replay (throws on an answer that is not 2xx). */
async function bodiesOf(base: string, lists: WrkRequest[][], stringifyPerRequest: boolean) {
  const bodies: Record<string, { status: number; body?: string; json?: unknown }> = {}
  for (const r of lists.flat()) {
    const key = `${r.method} ${r.path}`
    if (bodies[key]) continue
    const res = await fetch(base + r.path, { method: r.method, headers: r.headers, body: r.body })
    const text = await res.text()
    if (res.status >= 300) throw new Error(`${key}: ${res.status} ${text}`)
    bodies[key] = stringifyPerRequest ? { status: res.status, json: JSON.parse(text) } : { status: res.status, body: text }
  }
  return bodies
}

const wrong = (side: string, s: WrkStats) =>
  s.failedStatus || s.socketErrors ? `${side}: ${s.failedStatus} answers of 400 or more, ${s.socketErrors} socket errors or timeouts in ${s.requests}` : undefined
const row = (s: WrkStats): RowStats => ({ rps: s.rps, p50: s.p50, p99: s.p99, errors: s.failedStatus + s.socketErrors })

/**
 * The server and the ceiling take turns `rounds` times (the machine is shared: a neighbour's burst of
 * work can halve one measurement), each after one warm-up run of its own; the ratio is the median of
 * the turns' ratios, and the row shows the turn that gave it. One ceiling turn that did not keep its
 * core busy makes the row generator-bound.
 */
export async function againstCeiling(server: Server, scenario: Scenario, work: string, timing: { seconds: number; warmup: number; rounds: number }): Promise<Measured> {
  const { lists, connections } = scenario
  const bodyFile = join(work, 'bodies.json')
  await scenario.beforeServerRun?.()
  writeFileSync(bodyFile, JSON.stringify(await bodiesOf(server.base, lists, !!scenario.stringifyPerRequest)))
  const ceiling = await startHelper('ceiling.ts', [bodyFile])
  const onServer = async (seconds: number) => {
    await scenario.beforeServerRun?.()
    return runWrk(server.base, lists, connections, seconds, server.proc.pid, work, scenario.rotate)
  }
  const onCeiling = (seconds: number) => runWrk(ceiling.base, lists, connections, seconds, ceiling.proc.pid, work, scenario.rotate)
  const turns: { server: WrkStats; ceiling: WrkStats; ratio: number }[] = []
  let generators: Measured['generators']
  try {
    await onServer(timing.warmup)
    await onCeiling(timing.warmup)
    for (let round = 0; round < timing.rounds; round++) {
      const measured = await onServer(timing.seconds)
      const bare = await onCeiling(timing.seconds)
      turns.push({ server: measured, ceiling: bare, ratio: measured.rps / bare.rps })
    }
    if (scenario.compareGenerators) generators = await compareGenerators(ceiling, scenario, turns.at(-1)!.ceiling, timing)
  } finally {
    await ceiling.stop()
  }
  const median = [...turns].sort((a, b) => a.ratio - b.ratio)[Math.floor(turns.length / 2)]!
  const failed = turns.map((t) => wrong('server', t.server) ?? wrong('ceiling', t.ceiling)).find(Boolean)
  const generatorBound = turns.some((t) => t.ceiling.cpuShare < CEILING_CPU_SHARE)
  const shown = !failed && !generatorBound
  return {
    name: scenario.name,
    targets: scenario.targets,
    server: row(median.server),
    ceiling: row(median.ceiling),
    ratio: shown ? median.ratio : undefined,
    turns: turns.map((t) => t.ratio),
    ceilingCpu: turns.map((t) => t.ceiling.cpuShare),
    serverCpu: turns.map((t) => t.server.cpuShare),
    wrkCpu: turns.map((t) => t.ceiling.wrkCpuShare),
    generatorBound,
    failed,
    generators,
  }
}

/** The JS load generator on the same ceiling with the same connections and requests (GETs), beside wrk's turn on it. */
async function compareGenerators(ceiling: { base: string; proc: Bun.Subprocess }, scenario: Scenario, wrkTurn: WrkStats, timing: { seconds: number; warmup: number }) {
  const requests = scenario.lists[0]!.map((r) => ({ label: 'js', method: r.method, path: r.path }))
  const clients = Array.from({ length: scenario.connections }, (): LoadClient => ({ headers: scenario.lists[0]![0]!.headers, flow: 'cycle', requests }))
  const before = cpuSeconds(ceiling.proc.pid)
  const started = performance.now()
  const js = (await runLoad({ base: ceiling.base, seconds: timing.seconds, warmup: timing.warmup, clients })).js!
  const cpu = (cpuSeconds(ceiling.proc.pid) - before) / ((performance.now() - started) / 1000)
  return { wrkRps: wrkTurn.rps, wrkCeilingCpu: wrkTurn.cpuShare, jsRps: js.rps, jsCeilingCpu: cpu }
}

/**
 * Whole orders (add to cart, check out, pay) on the JS load generator, `rounds` times; the row is the
 * round with the median rate. No ceiling: the targets are a rate and a p99, far under what the
 * generator can send.
 */
export async function orderRate(server: Server, name: string, targets: Target[], clients: LoadClient[], timing: { seconds: number; warmup: number; rounds: number }, variants?: string[]): Promise<Measured> {
  const rounds: LabelStats[] = []
  for (let round = 0; round < timing.rounds; round++) {
    const order = (await runLoad({ base: server.base, seconds: timing.seconds, warmup: timing.warmup, clients, variants })).order
    if (!order) throw new Error(`${name}: no order was paid`)
    rounds.push(order)
  }
  const median = [...rounds].sort((a, b) => a.rps - b.rps)[Math.floor(rounds.length / 2)]!
  return { name, unit: 'orders/s', targets, server: median }
}
