/**
 * A closed-loop HTTP load generator: `concurrency` connections each send the next request as soon as
 * the last answered, for `seconds`. Run as its own process (bench/catalog.ts spawns it), so that it does not
 * share the server's thread. Prints one JSON line: requests, errors, requests/s, p50 and p95 in ms.
 */
const [url, seconds, concurrency, headersJson] = process.argv.slice(2)
const headers = JSON.parse(headersJson ?? '{}') as Record<string, string>
const durationMs = Number(seconds) * 1000
const latencies: number[] = []
let errors = 0

const start = performance.now()
const end = start + durationMs
async function loop() {
  while (performance.now() < end) {
    const t = performance.now()
    const res = await fetch(url!, { headers })
    await res.arrayBuffer()
    if (res.status !== 200) errors++
    latencies.push(performance.now() - t)
  }
}
await Promise.all(Array.from({ length: Number(concurrency) }, loop))
const elapsed = (performance.now() - start) / 1000
latencies.sort((a, b) => a - b)
const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0
console.log(JSON.stringify({ requests: latencies.length, errors, rps: latencies.length / elapsed, p50: at(0.5), p95: at(0.95) }))
export {}
