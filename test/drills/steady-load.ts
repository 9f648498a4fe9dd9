import { expect } from 'bun:test'
import { join } from 'node:path'

/**
 * What the flood drills share: a call that must succeed, a client with a steady, normal load, the
 * 95th percentile of its latencies, and the flood itself with what it must leave of the others' p95.
 */

/** The server's default rate limit (requests/s, burst 100): the flooder sends 20 times it. */
export const RATE = 50
/** Below a few milliseconds, doubling is timer noise: the bound is never tighter than this. */
const NOISE_FLOOR_MS = 5

/** Sends one JSON call and returns its body; any status from 300 up fails the drill's set-up. */
export async function call(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<any> {
  const res = await fetch(`${base}${path}`, { method, headers: { ...headers, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
  return res.json()
}

/**
 * A normal client: 10 requests/s (a fifth of the default limit) with the credential in `headers`, reads
 * and a stock write of `variantId`, for `seconds`. Returns every latency and the status of every answer
 * from 300 up.
 */
export async function steadyLoad(base: string, headers: Record<string, string>, variantId: string, seconds: number) {
  const latencies: number[] = []
  const errors: string[] = []
  const end = Date.now() + seconds * 1000
  let i = 0
  while (Date.now() < end) {
    const started = performance.now()
    const write = ++i % 5 === 0
    const res = await fetch(`${base}${write ? `/v1/variants/${variantId}/stock/receive` : '/v1/products?pageSize=20'}`, {
      method: write ? 'POST' : 'GET',
      headers: { ...headers, 'content-type': 'application/json' },
      body: write ? JSON.stringify({ quantity: 1 }) : undefined,
    })
    await res.arrayBuffer()
    latencies.push(performance.now() - started)
    if (res.status >= 300) errors.push(String(res.status))
    await Bun.sleep(Math.max(0, 100 - (performance.now() - started)))
  }
  return { latencies, errors }
}

export const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)]!

type Load = Awaited<ReturnType<typeof steadyLoad>>

/**
 * Runs `work` (the normal clients) for `seconds` once quietly, after a warm-up (JIT, caches), and once
 * while flooder.ts, a process of its own, sends 20 times the rate limit with `floodKey` (and
 * X-Student-RM `rm`). Checks that the normal clients got no failure and kept their p95 within twice
 * the quiet one, and that the flooder got its share (the burst, then about its rate) and 429s for the
 * rest. Returns the count of each status the flooder got.
 */
export async function expectFloodContained(base: string, floodKey: string, seconds: number, work: (seconds: number) => Promise<Load[]>, rm?: string) {
  await work(0.5)
  const quiet = await work(seconds)
  const flood = Bun.spawn([process.execPath, join(import.meta.dir, 'flooder.ts'), base, floodKey, String(RATE * 20), String(seconds), ...(rm ? [rm] : [])], {
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const loud = await work(seconds)
  const [code, out] = await Promise.all([flood.exited, new Response(flood.stdout).text()])
  expect(code).toBe(0)
  const statuses = JSON.parse(out) as Record<string, number>

  const quietP95 = p95(quiet.flatMap((r) => r.latencies))
  const loudP95 = p95(loud.flatMap((r) => r.latencies))
  if (process.env.DRILLS_VERBOSE) console.log({ quietP95, loudP95, statuses })
  expect([...quiet, ...loud].flatMap((r) => r.errors)).toEqual([])
  expect(loudP95).toBeLessThanOrEqual(Math.max(2 * quietP95, NOISE_FLOOR_MS))
  expect(statuses.error ?? 0).toBe(0)
  expect(statuses['429'] ?? 0).toBeGreaterThan((statuses['200'] ?? 0) * 5)
  expect(statuses['200'] ?? 0).toBeLessThanOrEqual(RATE * seconds + 100 + RATE)
  expect(statuses['200'] ?? 0).toBeGreaterThan(RATE * seconds * 0.5)
  return statuses
}
