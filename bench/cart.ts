/**
 * Cart add against the machine's ceiling, quickly, for iterating on the cart's speed:
 *
 *   bun bench/cart.ts [--before <checkout>] [--rounds 3] [--seconds 3] [--concurrency 32]
 *
 * Seeds a small data dir in-process (one store, 200 products, "Bench stock" with a billion units,
 * `concurrency` customers logged in), starts the server from this checkout's source (and, with
 * `--before`, from another checkout's source on a copy of the same data), fetches one answer for the
 * ceiling (bench/system/ceiling.ts), then runs the same cart-add clients as `npm run bench` against
 * each in turn, `rounds` times (`--profile <dir>`: the server from this checkout writes a CPU profile there). Prints each turn's ratio and the medians: before and after are measured
 * in the same run, so the machine's other load falls on both.
 */
import { eq } from 'drizzle-orm'
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { loadConfig } from '../src/config'
import { createDeps } from '../src/wiring'
import { createProduct } from '../src/features/catalog/products'
import { variants } from '../src/features/catalog/tables'
import { addItem } from '../src/features/cart/service'
import { register } from '../src/features/customers/service'
import { systemClock } from '../src/kernel/clock'
import { openDatabase } from '../src/kernel/db/open'
import { migrate } from '../src/kernel/db/migrate'
import { systemIds } from '../src/kernel/ids'
import { memoryLog } from '../src/kernel/log'
import { seedStore } from './seed'
import { call, freePort, launch, runLoad, startHelper, type Server } from './system/harness'
import { cartAddCycle } from './system/scenarios'
import type { LoadClient } from './system/load'
import { ADMIN_TOKEN } from './system/seed'

const { values: args } = parseArgs({
  options: { before: { type: 'string' }, rounds: { type: 'string', default: '3' }, seconds: { type: 'string', default: '3' }, concurrency: { type: 'string', default: '32' }, profile: { type: 'string' } },
})
const ROUNDS = Number(args.rounds)
const SECONDS = Number(args.seconds)
const CONCURRENCY = Number(args.concurrency)
const work = mkdtempSync(join(tmpdir(), 'storefront-bench-cart-'))

async function seed(dataDir: string) {
  mkdirSync(join(dataDir, 'media'), { recursive: true })
  const database = openDatabase(join(dataDir, 'storefront.db'))
  migrate(database.db)
  const deps = createDeps(loadConfig({ dataDir, rateLimitRps: '0' }, {}), database, { clock: systemClock, ids: systemIds, log: memoryLog(), adminToken: ADMIN_TOKEN, publicUrl: '' })
  const { ctx, apiKey } = await seedStore(deps, 200, () => {})
  const p = createProduct(deps, ctx, { type: 'SIMPLE', name: 'Bench stock', sku: 'BENCH-STOCK', price: 19.9, stock: 1_000_000_000, state: 'PUBLISHED', description: 'Bought by the benchmark.', collectionIds: [], minStock: 0 }, deps.publicUrl.for())
  const variantId = deps.db.select({ id: variants.id }).from(variants).where(eq(variants.productId, p.id)).get()!.id
  const clients: LoadClient[] = []
  for (let c = 0; c < CONCURRENCY; c++) {
    const session = await register(deps, ctx, { email: `cart${c}@run.bench`, password: 'bench-password', name: `Cart ${c}` })
    const cart = await addItem(deps, { ...ctx, actor: { type: 'customer', customerId: session.customer.id, keyId: 'seed', keyKind: 'secret', rm: null } }, { variantId, quantity: 1 })
    clients.push({ headers: { 'x-api-key': apiKey, authorization: `Bearer ${session.token}` }, flow: 'cycle', requests: cartAddCycle(variantId, cart.items[0]!.id) })
  }
  await deps.lifecycle.stop()
  database.close()
  return clients
}

async function serverFrom(root: string, name: string, bunFlags: string[] = []): Promise<Server> {
  const dataDir = join(work, name)
  cpSync(join(work, 'seeded'), dataDir, { recursive: true })
  const port = await freePort()
  return launch([process.execPath, ...bunFlags, join(root, 'src', 'main.ts'), '--host', '127.0.0.1', '--port', String(port), '--data', dataDir, '--admin-token', ADMIN_TOKEN, '--rate-limit-rps', '0'], root, port)
}

const clients = await seed(join(work, 'seeded'))
const servers: [string, Server][] = []
const stopAll = async () => {
  for (const [, server] of servers) await server.stop()
}
process.on('uncaughtException', (e) => stopAll().finally(() => { console.error(e); process.exit(1) }))
servers.push(['after', await serverFrom(join(import.meta.dir, '..'), 'after', args.profile ? ['--cpu-prof', `--cpu-prof-dir=${args.profile}`] : [])])
if (args.before) servers.unshift(['before', await serverFrom(args.before, 'before')])
// The ceiling answers each client's line reset and the add with the server's own bodies.
const bodies: Record<string, { status: number; body: string }> = {}
for (const client of clients) {
  for (const r of new Set(client.requests)) {
    const answer = await call(servers[0]![1].base, r.method, r.path, client.headers, r.body)
    bodies[`${r.method} ${r.path}`] = { status: answer.status, body: answer.text }
  }
}
const bodyFile = join(work, 'bodies.json')
await Bun.write(bodyFile, JSON.stringify(bodies))
const ceiling = await startHelper('ceiling.ts', [bodyFile])

const ratios: Record<string, number[]> = Object.fromEntries(servers.map(([name]) => [name, []]))
for (let round = 1; round <= ROUNDS; round++) {
  const line: string[] = []
  for (const [name, server] of servers) {
    const measured = (await runLoad({ base: server.base, seconds: SECONDS, warmup: 1, clients }))['cart add']!
    const bare = (await runLoad({ base: ceiling.base, seconds: SECONDS, warmup: 1, clients }))['cart add']!
    if (measured.errors) throw new Error(`${name}: ${JSON.stringify(measured.statuses)}`)
    ratios[name]!.push(measured.rps / bare.rps)
    line.push(`${name} ${measured.rps.toFixed(0)} / ${bare.rps.toFixed(0)} req/s = ${(measured.rps / bare.rps).toFixed(3)} (p99 ${measured.p99.toFixed(2)} ms)`)
  }
  console.log(`round ${round}: ${line.join('; ')}`)
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
for (const [name, xs] of Object.entries(ratios)) console.log(`${name}: median ratio ${median(xs).toFixed(3)} (${xs.map((x) => x.toFixed(3)).join(', ')})`)

await ceiling.stop()
await stopAll()
rmSync(work, { recursive: true, force: true })
