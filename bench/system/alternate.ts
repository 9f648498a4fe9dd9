/**
 * A load generator that takes turns between servers in one warm process, for comparing two variants
 * of the same server (bookkeeping.ts): `bun bench/system/alternate.ts <spec.json>`.
 *
 * Window w goes to `order[w]` (an index into `bases`): all clients, closed loops over keep-alive
 * connections, for `windowSeconds`; one pool of connections per server stays open between windows, and
 * the first `warmupWindows` windows are not reported. Prints one JSON line: per reported window, the
 * server's index, requests/s and errors. Every request is `GET path` with `headers`.
 */
import { readFileSync } from 'node:fs'

interface AlternateSpec {
  bases: string[]
  order: number[]
  warmupWindows: number
  windowSeconds: number
  connections: number
  path: string
  headers: Record<string, string>
}

const spec = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as AlternateSpec
const windows: { server: number; rps: number; errors: number }[] = []
for (const [w, server] of spec.order.entries()) {
  const url = spec.bases[server] + spec.path
  const started = performance.now()
  const end = started + spec.windowSeconds * 1000
  let done = 0
  let errors = 0
  await Promise.all(
    Array.from({ length: spec.connections }, async () => {
      while (performance.now() < end) {
        const res = await fetch(url, { headers: spec.headers })
        await res.arrayBuffer()
        if (res.status === 200) done++
        else errors++
      }
    }),
  )
  if (w >= spec.warmupWindows) windows.push({ server, rps: done / ((performance.now() - started) / 1000), errors })
}
console.log(JSON.stringify(windows))
process.exit(0)
