import { isoTime } from '../../kernel/clock'
import { randomToken } from '../../kernel/ids'

// Webhook signatures: HMAC-SHA256 with the endpoint's signing secret over the text
// `<timestamp>.<raw body>`, written as `sha256=` + lowercase hex.

export const newSigningSecret = () => `whsec_${randomToken(32)}`

export const signedPayload = (timestamp: number | string, body: string) => `${timestamp}.${body}`

export function signature(secret: string, payload: string): string {
  return `sha256=${new Bun.CryptoHasher('sha256', secret).update(payload).digest('hex')}`
}

/** The headers and the exact text of one attempt; each attempt is signed afresh with its own timestamp. */
export function signedHeaders(secret: string, event: { id: string; type: string }, body: string, timestamp: number, userAgent: string) {
  const payload = signedPayload(timestamp, body)
  const headers = {
    'content-type': 'application/json',
    'user-agent': userAgent,
    'x-webhook-event': event.type,
    'x-webhook-id': event.id,
    'x-timestamp': String(timestamp),
    'x-signature': signature(secret, payload),
  }
  return { headers, payload }
}

/** The body of every delivery of an event: the same bytes on every attempt. */
export const eventBody = (event: { id: string; type: string; createdAt: number; data: unknown }) =>
  JSON.stringify({ id: event.id, type: event.type, createdAt: isoTime(event.createdAt), data: event.data })
