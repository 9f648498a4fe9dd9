/**
 * The whole-system bench's load generator, run as its own process so that it does not share the
 * server's thread. `bun bench/system/load.ts <spec.json>` runs every client of the spec at once, each
 * a closed loop over keep-alive connections (Bun's fetch pools them), for `seconds` after `warmup`
 * seconds that are not recorded, and prints one JSON line: per label, the count, the errors, the
 * statuses, requests/s and p50/p95/p99/max from a latency histogram (buckets 1 % wide); the warm-up's
 * requests, whatever their label, under `warm-up` (its requests/s are over the measured seconds: ignore).
 * An `order` client's paid cycles (add to cart, check out, pay) are also counted whole, under `order`.
 */
import { readFileSync } from 'node:fs'

export interface LoadRequest {
  label: string
  method: 'GET' | 'POST' | 'PATCH'
  path: string
  body?: unknown
}

export interface LoadClient {
  headers: Record<string, string>
  /** `cycle`: the requests in turn, forever. `order`: add to cart, check out, pay (ids from the answers). */
  flow: 'cycle' | 'order'
  requests?: LoadRequest[]
  /** What an `order` client buys; without it, a variant of the spec's `variants` at random, each order. */
  variantId?: string
  /** Pause after each answer: a scripted student client, not a flood. */
  thinkMs?: number
  /** When this client sends its first request, ms after the run starts (see classroomClients). */
  startAfterMs?: number
}

export interface LoadSpec {
  base: string
  seconds: number
  warmup: number
  clients: LoadClient[]
  /** The variants `order` clients without their own pick from. */
  variants?: string[]
}

export interface LabelStats {
  count: number
  errors: number
  statuses: Record<string, number>
  rps: number
  p50: number
  p95: number
  p99: number
  max: number
}

/** Log buckets 1 % wide from 1 µs: exact enough for p99, constant memory however long the run. */
class Histogram {
  private buckets = new Map<number, number>()
  count = 0
  max = 0
  add(ms: number) {
    const i = Math.max(0, Math.floor(Math.log(ms * 1000) / Math.log(1.01)))
    this.buckets.set(i, (this.buckets.get(i) ?? 0) + 1)
    this.count++
    if (ms > this.max) this.max = ms
  }
  at(q: number) {
    const target = Math.ceil(q * this.count)
    let seen = 0
    for (const i of [...this.buckets.keys()].sort((a, b) => a - b)) {
      seen += this.buckets.get(i)!
      if (seen >= target) return 1.01 ** (i + 0.5) / 1000
    }
    return this.max
  }
}

const spec = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as LoadSpec
const stats = new Map<string, { histogram: Histogram; errors: number; statuses: Record<string, number> }>()
const started = performance.now()
const recordFrom = started + spec.warmup * 1000
const end = recordFrom + spec.seconds * 1000
/** Orders paid during the whole run, warm-up included: what the webhook receivers should hear of. */
let paidAll = 0

function record(label: string, t: number, now: number, status: number) {
  // The warm-up is kept apart, all labels together, so a report can say what the first seconds cost.
  const as = t >= recordFrom ? label : 'warm-up'
  if (now > end) return
  let s = stats.get(as)
  if (!s) stats.set(as, (s = { histogram: new Histogram(), errors: 0, statuses: {} }))
  s.histogram.add(now - t)
  s.statuses[status] = (s.statuses[status] ?? 0) + 1
  if (status >= 400) s.errors++
}

async function send(client: LoadClient, label: string, method: string, path: string, body?: unknown) {
  const t = performance.now()
  const res = await fetch(spec.base + path, {
    method,
    headers: body === undefined ? client.headers : { ...client.headers, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  record(label, t, performance.now(), res.status)
  if (client.thinkMs) await Bun.sleep(client.thinkMs)
  return { status: res.status, text }
}

async function run(client: LoadClient) {
  if (client.startAfterMs) await Bun.sleep(client.startAfterMs)
  let i = 0
  while (performance.now() < end) {
    if (client.flow === 'cycle') {
      const r = client.requests![i++ % client.requests!.length]!
      await send(client, r.label, r.method, r.path, r.body)
      continue
    }
    const t = performance.now()
    const variantId = client.variantId ?? spec.variants![Math.floor(Math.random() * spec.variants!.length)]
    const added = await send(client, 'cart add', 'POST', '/v1/cart/items', { variantId, quantity: 1 })
    if (added.status !== 201 && added.status !== 200) continue
    const order = await send(client, 'checkout', 'POST', '/v1/orders/checkout')
    if (order.status !== 201) continue
    const paid = await send(client, 'pay', 'POST', `/v1/orders/${(JSON.parse(order.text) as { id: string }).id}/pay`, { method: 'PIX' })
    if (paid.status < 300) paidAll++
    // The whole cycle, as a customer lives it (think time excluded): what "orders/s" and "p99 per order" are.
    if (paid.status < 300 && t >= recordFrom) record('order', t, performance.now() - (client.thinkMs ?? 0) * 3, paid.status)
  }
}

await Promise.all(spec.clients.map(run))
const seconds = spec.seconds
const out: Record<string, LabelStats> = {}
for (const [label, s] of stats) {
  const h = s.histogram
  out[label] = { count: h.count, errors: s.errors, statuses: s.statuses, rps: h.count / seconds, p50: h.at(0.5), p95: h.at(0.95), p99: h.at(0.99), max: h.max }
}
if (paidAll) out['paid (all)'] = { count: paidAll, errors: 0, statuses: {}, rps: 0, p50: 0, p95: 0, p99: 0, max: 0 }
console.log(JSON.stringify(out))
process.exit(0)
