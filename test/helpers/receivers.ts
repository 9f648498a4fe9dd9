import { writeTransaction } from '../../src/kernel/db/database'
import type { AppDeps } from '../../src/wiring'
import type { EventData, EventType } from '../../src/kernel/events'

export interface Received {
  path: string
  headers: Record<string, string>
  body: string
  /** Date.now() when it arrived. */
  at: number
}

type Answer = (request: Request, n: number) => Response | Promise<Response>

const running: { stop(force: boolean): unknown }[] = []

/**
 * A webhook receiver on loopback that records every request and answers with `answer` (200 "ok" by
 * default; `n` counts requests from 1). Stopped by stopReceivers (test/setup.ts).
 */
export function startReceiver(answer: Answer = () => new Response('ok')) {
  const received: Received[] = []
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    // Bun closes idle connections after 10 s by default, which would race the sender's own 10 s time-out.
    idleTimeout: 60,
    async fetch(request) {
      const body = await request.text()
      received.push({ path: new URL(request.url).pathname, headers: Object.fromEntries(request.headers), body, at: Date.now() })
      return answer(request, received.length)
    },
  })
  running.push(server)
  return { url: `http://127.0.0.1:${server.port}/hook`, port: server.port!, received, events: () => received.map((r) => JSON.parse(r.body)) }
}

/** A loopback URL where nothing listens: a port the system just handed out, closed again. */
export function closedPortUrl() {
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  server.stop(true)
  return `http://127.0.0.1:${server.port}/hook`
}

export function stopReceivers() {
  for (const server of running.splice(0)) server.stop(true)
}

/** A `data` of each event type as the features emit it (kernel/events.ts). */
const SAMPLE_DATA: { [T in EventType]: EventData<T> } = {
  'order.created': { orderId: 'ord_sample', number: 1, customerId: 'cus_sample', total: 59.97 },
  'order.paid': { orderId: 'ord_sample', number: 1, total: 59.97 },
  'order.cancelled': { orderId: 'ord_sample', number: 1, reason: 'CUSTOMER', total: 59.97 },
  'order.refunded': { orderId: 'ord_sample', number: 1, refundId: 'ref_sample', amount: 59.97, restock: true },
  'product.low_stock': { productId: 'prod_sample', variantId: 'var_sample', sku: 'SAMPLE-1', available: 2, minStock: 5 },
  'shipment.updated': { orderId: 'ord_sample', number: 1, status: 'SHIPPED', trackingCode: null },
  'review.created': { reviewId: 'rev_sample', productId: 'prod_sample', rating: 5 },
  ping: { webhookId: 'whk_sample', message: 'Hello from Storefront: your endpoint is reachable.' },
}

/**
 * A sample `data` of the type with `fields` over it: tests of the outbox's and the deliveries' workings
 * mark their events with fields of their own (`n`), which no feature emits.
 */
export const eventData = <T extends EventType>(type: T, fields: Record<string, unknown> = {}) => ({ ...SAMPLE_DATA[type], ...fields }) as EventData<T>

/** What a feature does when its state changes: the event is written in the feature's transaction. */
export const emit = <T extends EventType>(deps: AppDeps, storeId: string, type: T, fields: Record<string, unknown> = {}) =>
  writeTransaction(deps.db, (tx) => deps.outbox.emit(tx, storeId, type, eventData(type, fields)))

/** Fans out waiting events, sends every attempt due by the (manual) clock, and waits for the answers. */
export async function deliverDue(deps: AppDeps) {
  deps.webhooks.tick()
  await deps.webhooks.settled()
}

/** Polls until `check` holds, or fails after `ms`. */
export async function waitFor(check: () => boolean | Promise<boolean>, ms: number, what: string) {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`)
    await Bun.sleep(10)
  }
}
