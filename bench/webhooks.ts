/**
 * `bun run bench:webhooks`: 1,000 events fanned out to 3 receivers on loopback, through the real
 * dispatcher and a real SQLite file. Prints the time to drain and the delay from emit to receipt.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../src/config'
import { createDeps } from '../src/wiring'
import { createGroup } from '../src/features/groups/service'
import { registerWebhook } from '../src/features/webhooks/service'
import { systemClock } from '../src/kernel/clock'
import { writeTransaction } from '../src/kernel/db/database'
import { openDatabase } from '../src/kernel/db/open'
import { migrate } from '../src/kernel/db/migrate'
import { systemIds } from '../src/kernel/ids'
import { memoryLog } from '../src/kernel/log'

const EVENTS = 1000
const RECEIVERS = 3

const dir = mkdtempSync(join(tmpdir(), 'storefront-bench-'))
const database = openDatabase(join(dir, 'storefront.db'))
migrate(database.db)
const config = loadConfig({ dataDir: dir, allowLoopbackWebhooks: true, port: '0' }, {})
const deps = createDeps(config, database, { clock: systemClock, ids: systemIds, log: memoryLog(), adminToken: 'bench-admin-token-000', publicUrl: '' })

const group = createGroup(deps, { name: 'Bench', members: [{ rm: 'b1', name: 'Bench' }] })
const ctx = { storeId: group.storeId, groupId: group.id, actor: { type: 'student' as const, rm: 'b1', mustChangePassword: false } }

const emittedAt = new Map<string, number>()
const delays: number[] = []
let lastReceipt = 0
let allReceived: () => void
const done = new Promise<void>((resolve) => (allReceived = resolve))

const receivers = Array.from({ length: RECEIVERS }, () =>
  Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      const { id } = (await request.json()) as { id: string }
      lastReceipt = performance.now()
      delays.push(lastReceipt - emittedAt.get(id)!)
      if (delays.length === EVENTS * RECEIVERS) allReceived()
      return new Response('ok')
    },
  }),
)
for (const r of receivers) await registerWebhook(deps, ctx, { url: `http://127.0.0.1:${r.port}/hook`, events: ['*'] })

deps.webhooks.start()
const started = performance.now()
// As features do it: one transaction per state change, its event written inside it.
for (let i = 0; i < EVENTS; i++) {
  writeTransaction(deps.db, (tx) => {
    const id = deps.outbox.emit(tx, ctx.storeId, 'order.paid', { orderId: `ord_${i}`, number: i + 1, total: 10 + i / 100 })
    emittedAt.set(id, performance.now())
  })
}
const emitted = performance.now()
await done

const sorted = delays.sort((a, b) => a - b)
const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
const ms = (n: number) => `${n.toFixed(0)} ms`
const drain = lastReceipt - started
console.log(`webhooks: ${EVENTS} events x ${RECEIVERS} loopback receivers = ${delays.length} deliveries (Bun ${Bun.version}, ${process.platform}/${process.arch})`)
console.log(`  emitting took        ${ms(emitted - started)}`)
console.log(`  time to drain        ${ms(drain)}  (${Math.round(delays.length / (drain / 1000))} deliveries/s)`)
console.log(`  emit -> receipt      p50 ${ms(pct(50))}   p95 ${ms(pct(95))}   max ${ms(sorted.at(-1)!)}`)

await deps.lifecycle.stop()
for (const r of receivers) r.stop(true)
database.close()
rmSync(dir, { recursive: true, force: true })
