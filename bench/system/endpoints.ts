/**
 * One scenario at a time against the ceiling: the server's own answers to exactly the scenario's
 * requests are fetched first and served by a bare Bun.serve (ceiling.ts) on the server's core, and the
 * same load generator with the same clients measures both, in turns.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { call, runLoad, startHelper, type Server } from './harness'
import type { LabelStats, LoadClient } from './load'

/** A target beside a figure: a ratio to the ceiling (at least), a rate (at least) or a p99 in ms (at most). */
export interface Target {
  kind: 'ratio' | 'rate' | 'p99'
  value: number
}

export interface Scenario {
  name: string
  /** The load generator's label that is measured: the request's, or `order` for whole orders. */
  label: string
  /** What its rate counts, when not requests. */
  unit?: string
  targets: Target[]
  clients: () => Promise<LoadClient[]>
}

export interface Measured {
  name: string
  unit?: string
  targets?: Target[]
  server: LabelStats
  ceiling?: LabelStats
  ratio?: number
  turns?: number[]
}

/** The server's answers to every request the clients send, for the ceiling to replay. An order flow is placed once, and its three answers kept. */
async function bodiesOf(base: string, clients: LoadClient[]) {
  const bodies: Record<string, { status: number; body: string }> = {}
  const keep = (method: string, path: string, answer: { status: number; text: string }) => (bodies[`${method} ${path}`] = { status: answer.status, body: answer.text })
  for (const client of clients) {
    if (client.flow === 'order') {
      keep('POST', '/v1/cart/items', await call(base, 'POST', '/v1/cart/items', client.headers, { variantId: client.variantId, quantity: 1 }))
      const order = await call<{ id: string }>(base, 'POST', '/v1/orders/checkout', client.headers)
      keep('POST', '/v1/orders/checkout', order)
      const pay = `/v1/orders/${order.json.id}/pay`
      keep('POST', pay, await call(base, 'POST', pay, client.headers, { method: 'PIX' }))
      break
    }
    for (const r of client.requests!) {
      if (!bodies[`${r.method} ${r.path}`]) keep(r.method, r.path, await call(base, r.method, r.path, client.headers, r.body))
    }
  }
  return bodies
}

/**
 * The machine is shared: a neighbour's burst of work can halve one measurement. The server and the
 * ceiling take turns, `rounds` times; the ratio is the median of the turns' ratios, and the row shows
 * the turn that gave it.
 */
export async function againstCeiling(server: Server, scenario: Scenario, work: string, timing: { seconds: number; warmup: number; rounds: number }): Promise<Measured> {
  const clients = await scenario.clients()
  const bodyFile = join(work, 'bodies.json')
  writeFileSync(bodyFile, JSON.stringify(await bodiesOf(server.base, clients)))
  const ceiling = await startHelper('ceiling.ts', [bodyFile])
  const turns: { server: LabelStats; ceiling: LabelStats; ratio: number }[] = []
  try {
    for (let round = 0; round < timing.rounds; round++) {
      const measured = (await runLoad({ base: server.base, seconds: timing.seconds, warmup: timing.warmup, clients }))[scenario.label]
      const bare = (await runLoad({ base: ceiling.base, seconds: timing.seconds, warmup: timing.warmup, clients }))[scenario.label]
      if (!measured || !bare) throw new Error(`${scenario.name}: no ${scenario.label} was measured (server ${!!measured}, ceiling ${!!bare})`)
      turns.push({ server: measured, ceiling: bare, ratio: measured.rps / bare.rps })
    }
  } finally {
    await ceiling.stop()
  }
  const median = [...turns].sort((a, b) => a.ratio - b.ratio)[Math.floor(timing.rounds / 2)]!
  return { name: scenario.name, unit: scenario.unit, targets: scenario.targets, ...median, turns: turns.map((t) => t.ratio) }
}
