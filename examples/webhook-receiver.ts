/**
 * A webhook receiver as a group's app would write it, runnable as is:
 *   npx bun examples/webhook-receiver.ts <signingSecret> [port]     (or the secret in WEBHOOK_SECRET)
 * The secret is a registered endpoint's, or the listen secret `storefront listen` prints when it forwards
 * to this receiver on your own machine: both sign the same way.
 * docs/student-guide.md quotes the part between the markers, and the tests verify real deliveries with it.
 * It runs on your app's server, like everything that holds a secret: the signing secret here, and the
 * store's secret key (sk_...) that POST /v1/webhooks/:id/sign needs to show what a signature should be.
 */
// --- quoted in docs/student-guide.md ---
import { createHmac, timingSafeEqual } from 'node:crypto'

const FIVE_MINUTES = 5 * 60 * 1000

/** The event when the request comes from Storefront and is fresh, otherwise null. */
export function verifyWebhook(secret: string, rawBody: string, headers: Headers, now = Date.now()) {
  const timestamp = headers.get('x-timestamp') ?? ''
  if (!(Math.abs(now - Number(timestamp)) <= FIVE_MINUTES)) return null // stale, or a replay
  const expected = Buffer.from('sha256=' + createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex'))
  const received = Buffer.from(headers.get('x-signature') ?? '')
  if (received.length !== expected.length || !timingSafeEqual(received, expected)) return null
  return JSON.parse(rawBody) as { id: string; type: string; createdAt: string; data: Record<string, unknown> }
}

const seen = new Set<string>() // in a real app: a table of the event ids already handled

export async function handleWebhook(request: Request, secret: string): Promise<Response> {
  const rawBody = await request.text() // the raw text: parsing and re-encoding would change the bytes
  const event = verifyWebhook(secret, rawBody, request.headers)
  if (!event) return new Response('bad signature or stale timestamp', { status: 400 })
  if (seen.has(event.id)) return new Response('already handled') // still 2xx, so it is not sent again
  seen.add(event.id)
  console.log(`${event.type} ${event.id}`, event.data) // your work here; answer within 10 s
  return new Response('ok')
}
// --- end of quote ---

if (import.meta.main) {
  const [secret = process.env.WEBHOOK_SECRET, port = '4000'] = process.argv.slice(2)
  if (!secret?.startsWith('whsec_')) {
    console.error('usage: bun examples/webhook-receiver.ts <signingSecret whsec_...> [port], or the secret in WEBHOOK_SECRET')
    process.exit(2)
  }
  const server = Bun.serve({ port: Number(port), fetch: (request) => handleWebhook(request, secret) })
  console.log(`receiving webhooks on http://localhost:${server.port}/`)
}
