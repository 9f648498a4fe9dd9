/**
 * Whole orders offered at a fixed rate (an open loop): `bun bench/system/open-load.ts <spec.json>`.
 *
 * An order starts every 1/rate seconds whatever the server is doing, each by a customer of the pool
 * not buying at that moment (add a random variant to the cart, check out, pay with PIX); its time runs
 * from when it was due, so a stall of the server counts for every order due during it. The closed loop
 * of load.ts cannot see that: its customers wait out a stall instead of arriving during it. An order due
 * while every customer is buying is not sent and is counted `dropped`. Prints one JSON line.
 */
import { readFileSync } from 'node:fs'

export interface OpenSpec {
  base: string
  /** Orders a second. */
  rate: number
  warmup: number
  seconds: number
  /** Each customer's headers (API key and session); at most one order each at a time. */
  pool: Record<string, string>[]
  variants: string[]
}

export interface OpenResult {
  offered: number
  done: number
  p50: number
  p95: number
  p99: number
  max: number
  dropped: number
  errors: number
  /** Orders paid from the start, warm-up included: what the server's own counts are divided by. */
  paid: number
}

const spec = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as OpenSpec
const idle = [...spec.pool]
const times: number[] = []
let offered = 0
let dropped = 0
let errors = 0
let paid = 0
const started = performance.now()
const measureFrom = started + spec.warmup * 1000
const end = measureFrom + spec.seconds * 1000

async function post(headers: Record<string, string>, path: string, body?: unknown): Promise<string> {
  const res = await fetch(spec.base + path, {
    method: 'POST',
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  if (res.status >= 300) throw new Error(`${path}: ${res.status}`)
  return text
}

async function order(due: number) {
  const measured = due >= measureFrom
  if (measured) offered++
  const customer = idle.pop()
  if (!customer) {
    if (measured) dropped++
    return
  }
  try {
    await post(customer, '/v1/cart/items', { variantId: spec.variants[Math.floor(Math.random() * spec.variants.length)], quantity: 1 })
    const { id } = JSON.parse(await post(customer, '/v1/orders/checkout')) as { id: string }
    await post(customer, `/v1/orders/${id}/pay`, { method: 'PIX' })
    paid++
    if (measured) times.push(performance.now() - due)
  } catch {
    if (measured) errors++
  } finally {
    idle.push(customer)
  }
}

const orders: Promise<void>[] = []
let due = started
while (due < end) {
  for (const now = performance.now(); due <= now && due < end; due += 1000 / spec.rate) orders.push(order(due))
  await Bun.sleep(1)
}
await Promise.all(orders)
times.sort((a, b) => a - b)
const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0
const result: OpenResult = { offered, done: times.length, p50: at(0.5), p95: at(0.95), p99: at(0.99), max: at(1), dropped, errors, paid }
console.log(JSON.stringify(result))
process.exit(0)
