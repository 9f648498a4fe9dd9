/**
 * What the flood drills share: a call that must succeed, a client with a steady, normal load, and the
 * 95th percentile of its latencies.
 */

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
