/**
 * The server from source with its per-request bookkeeping switched on or off, for measuring what the
 * activity counter, the rate limiter and the request inspector cost together, on list
 * throughput (`npm run bench -- --only bookkeeping`; no target any more).
 *
 *   bun bench/system/variant-server.ts <dataDir> on|off|<parts>
 *
 * `on`: the real activity recorder and the rate limiter enabled with a limit no run reaches (1,000,000
 * requests/s), so the bucket, its arithmetic and its RateLimit-* headers run on every request but none
 * is refused; the request inspector keeps every call. `off`: the limiter disabled (as --rate-limit-rps 0
 * does), a recorder that counts nothing and an inspector that keeps nothing. `<parts>`, a comma list of
 * activity, limiter and inspector, switches on those alone. Everything else is the real app; nothing in src/ knows about this. Prints its port.
 */
import { join } from 'node:path'
import { createApp } from '../../src/app'
import { loadConfig } from '../../src/config'
import { createDeps } from '../../src/wiring'
import { systemClock } from '../../src/kernel/clock'
import { inspectNothing } from '../../src/kernel/http/inspection'
import { openDatabase } from '../../src/kernel/db/open'
import { systemIds } from '../../src/kernel/ids'
import { memoryLog } from '../../src/kernel/log'
import { ADMIN_TOKEN } from './seed'

const PARTS = ['activity', 'limiter', 'inspector']
const [dataDir, mode] = process.argv.slice(2)
if (!dataDir || !mode) throw new Error('usage: bun bench/system/variant-server.ts <dataDir> on|off|<parts>')
// `on` is all three parts, `off` none; a comma list (`limiter,inspector`) switches on those alone, to see what each costs.
const on = new Set(mode === 'on' ? PARTS : mode === 'off' ? [] : mode.split(','))
const unknown = [...on].filter((part) => !PARTS.includes(part))
if (unknown.length > 0) throw new Error(`variant-server: the mode is on, off or a comma list of ${PARTS.join(', ')}; not ${unknown.join(', ')}`)
const config = loadConfig({ dataDir, rateLimitRps: on.has('limiter') ? '1000000' : '0', rateLimitBurst: '1000000' }, {})
const database = openDatabase(join(dataDir, 'storefront.db'))
const deps = createDeps(config, database, { clock: systemClock, ids: systemIds, log: memoryLog(), adminToken: ADMIN_TOKEN, publicUrl: '' })
if (!on.has('activity')) deps.activity = { count() {}, countError() {} } as unknown as typeof deps.activity
if (!on.has('inspector')) deps.inspector = inspectNothing
const app = createApp(deps)
app.listen({ hostname: '127.0.0.1', port: 0 })
// An ordinary exit on a signal, so that `bun --cpu-prof` writes its profile.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0))
console.log(app.server!.port)
