/**
 * The server from source with its per-request bookkeeping switched on or off, for measuring what the
 * activity counter, the rate limiter and the request inspector cost together (the target: under 5 % of
 * list throughput).
 *
 *   bun bench/system/variant-server.ts <dataDir> on|off
 *
 * `on`: the real activity recorder and the rate limiter enabled with a limit no run reaches (1,000,000
 * requests/s), so the bucket, its arithmetic and its RateLimit-* headers run on every request but none
 * is refused; the request inspector keeps every call. `off`: the limiter disabled (as --rate-limit-rps 0
 * does), a recorder that counts nothing and an inspector that keeps nothing. Everything else is the real app; nothing in src/ knows about this. Prints its port.
 */
import { join } from 'node:path'
import { createApp } from '../../src/app'
import { loadConfig } from '../../src/config'
import { createDeps } from '../../src/wiring'
import { systemClock } from '../../src/kernel/clock'
import { inspectNothing } from '../../src/kernel/http/inspection'
import { openDatabase } from '../../src/kernel/db/database'
import { randomIds } from '../../src/kernel/ids'
import { memoryLog } from '../../src/kernel/log'
import { ADMIN_TOKEN } from './seed'

const [dataDir, mode] = process.argv.slice(2) as [string, 'on' | 'off']
const config = loadConfig({ dataDir, rateLimitRps: mode === 'on' ? '1000000' : '0', rateLimitBurst: '1000000' }, {})
const database = openDatabase(join(dataDir, 'storefront.db'))
const deps = createDeps(config, database, { clock: systemClock, ids: randomIds, log: memoryLog(), adminToken: ADMIN_TOKEN, publicUrl: '' })
if (mode === 'off') {
  deps.activity = { count() {}, countError() {} } as unknown as typeof deps.activity
  deps.inspector = inspectNothing
}
const app = createApp(deps)
app.listen({ hostname: '127.0.0.1', port: 0 })
// An ordinary exit on a signal, so that `bun --cpu-prof` writes its profile.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0))
console.log(app.server!.port)
