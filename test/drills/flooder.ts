export {}

/**
 * The flooding client of the flood drills, in a process of its own so that its loop does not slow the
 * test's clients: sends GET /v1/products with one store's key (and X-Student-RM when `rm` is given) at
 * `rps` for `seconds` on loopback, and prints the count of each status as JSON.
 * Usage: bun flooder.ts <base> <apiKey> <rps> <seconds> [rm]
 */
const [base, key, rpsArg, secondsArg, rm] = process.argv.slice(2)
const rps = Number(rpsArg)
const seconds = Number(secondsArg)
if (!base?.startsWith('http://127.0.0.1:') || !key || !(rps > 0 && rps <= 5000) || !(seconds > 0 && seconds <= 60)) {
  console.error('usage: bun flooder.ts http://127.0.0.1:<port> <apiKey> <rps up to 5000> <seconds up to 60> [rm]')
  process.exit(2)
}
const headers: Record<string, string> = rm ? { 'x-api-key': key, 'x-student-rm': rm } : { 'x-api-key': key }
const statuses: Record<string, number> = {}
const end = Date.now() + seconds * 1000
const inFlight = new Set<Promise<void>>()
const TICK_MS = 10
const perTick = Math.max(1, Math.round((rps * TICK_MS) / 1000))
while (Date.now() < end) {
  const tick = Date.now()
  for (let i = 0; i < perTick && inFlight.size < 500; i++) {
    const p = fetch(`${base}/v1/products?pageSize=5`, { headers })
      .then(async (r) => {
        await r.arrayBuffer()
        statuses[r.status] = (statuses[r.status] ?? 0) + 1
      })
      .catch(() => {
        statuses.error = (statuses.error ?? 0) + 1
      })
      .finally(() => inFlight.delete(p))
    inFlight.add(p)
  }
  await Bun.sleep(Math.max(0, TICK_MS - (Date.now() - tick)))
}
await Promise.all(inFlight)
process.stdout.write(JSON.stringify(statuses) + '\n')
