/**
 * The real app on a data dir, called through `app.handle` (no socket): what the statement count and
 * the scale bench measure. Passwords are hashed at argon2's smallest cost, since registering the
 * bench's customers is set-up, not what is measured; everything else is the server's own wiring, and its
 * background work runs as in the server.
 */
import { join } from 'node:path'
import { createApp } from '../../src/app'
import { loadConfig } from '../../src/config'
import { createDeps, startBackgroundWork } from '../../src/wiring'
import { argon2Passwords } from '../../src/kernel/auth/passwords'
import { systemClock } from '../../src/kernel/clock'
import type { Db } from '../../src/kernel/db/database'
import { openDatabase } from '../../src/kernel/db/open'
import { systemIds } from '../../src/kernel/ids'
import { memoryLog } from '../../src/kernel/log'
import { ADMIN_TOKEN } from './seed'

export interface Answer {
  status: number
  text: string
  /** From the call to the end of the body, ms. */
  ms: number
}

export function openInProcess(dataDir: string, migrate?: (db: Db) => void) {
  const database = openDatabase(join(dataDir, 'storefront.db'))
  migrate?.(database.db)
  const config = loadConfig({ dataDir, rateLimitRps: '0' }, {})
  const deps = createDeps(config, database, { clock: systemClock, ids: systemIds, log: memoryLog(), adminToken: ADMIN_TOKEN, publicUrl: '', passwords: argon2Passwords({ memoryCost: 8, timeCost: 1 }) })
  const app = createApp(deps)
  // As the server does once it listens: the dispatcher's look after each turn that wrote events is
  // part of what a request costs (it once took a tenth of an order's CPU, unseen here).
  startBackgroundWork(deps)
  // And the checkpoints on their own thread, as the server has them from its start (server.ts).
  database.checkpointInBackground({ trouble: (message) => console.error(message) })
  async function call(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Answer> {
    const t = performance.now()
    const response = await app.handle(
      new Request(`http://localhost${path}`, {
        method,
        headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    )
    const text = await response.text()
    return { status: response.status, text, ms: performance.now() - t }
  }
  return {
    deps,
    database,
    call,
    /** `call` that throws on anything but 2xx: for set-up steps. */
    async ok(method: string, path: string, headers: Record<string, string>, body?: unknown) {
      const answer = await call(method, path, headers, body)
      if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${answer.text}`)
      return answer
    },
    async close() {
      await deps.lifecycle.stop()
      database.close()
    },
  }
}

export type InProcess = ReturnType<typeof openInProcess>

/** `n` customers registered through the API; their headers (API key and session). */
export async function registerCustomers(app: InProcess, apiKey: string, n: number, prefix: string) {
  const out: Record<string, string>[] = []
  for (let i = 0; i < n; i++) {
    const r = await app.ok('POST', '/v1/customers/register', { 'x-api-key': apiKey }, { email: `${prefix}${i}@run.bench`, password: 'bench-password', name: `Run ${i}` })
    out.push({ 'x-api-key': apiKey, authorization: `Bearer ${(JSON.parse(r.text) as { token: string }).token}` })
  }
  return out
}

/** One order as a customer places it: add a unit to the cart, check out, pay with PIX. Each answer is checked. */
export async function placeOrder(app: InProcess, headers: Record<string, string>, variantId: string) {
  const add = await app.ok('POST', '/v1/cart/items', headers, { variantId, quantity: 1 })
  const checkout = await app.ok('POST', '/v1/orders/checkout', headers)
  const orderId = (JSON.parse(checkout.text) as { id: string }).id
  const pay = await app.ok('POST', `/v1/orders/${orderId}/pay`, headers, { method: 'PIX' })
  return { add, checkout, pay }
}
