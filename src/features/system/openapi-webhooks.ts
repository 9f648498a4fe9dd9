import { z } from 'zod'
import { EVENT_TYPES, eventDataSchema, type EventType } from '../../kernel/events'
import { DELIVERY_TIMEOUT_MS, RETRY_DELAYS_MS } from '../webhooks'

type Json = Record<string, unknown>

/** The schema of an event's body in components: order.paid is OrderPaidEvent, product.low_stock ProductLowStockEvent. */
export const eventSchemaName = (type: EventType) =>
  `${type
    .split(/[._]/)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('')}Event`

const header = (name: string, description: string, schema: Json) => ({ name, in: 'header', required: true, description, schema })

/** 10_000 as '10 s', 300_000 as '5 min', 7_200_000 as '2 h'. */
const span = (ms: number) => (ms < 60_000 ? `${ms / 1000} s` : ms < 3_600_000 ? `${ms / 60_000} min` : `${ms / 3_600_000} h`)
const delays = RETRY_DELAYS_MS.map(span)
const TIMEOUT = span(DELIVERY_TIMEOUT_MS)

const HOW_SENT = `POSTed to every endpoint subscribed to it (POST /v1/webhooks), and to \`storefront listen\` streams. The body is the same bytes on every attempt; each attempt is signed afresh: X-Signature is \`sha256=\` and the lowercase hex HMAC-SHA256, with the endpoint\u2019s signing secret, of \`<X-Timestamp>.<raw body>\` (compute it over the body as received, before parsing it). A 2xx answer within ${TIMEOUT} delivers it; any other answer, none, or a redirect (never followed) is a failed attempt, retried after ${delays.slice(0, -1).join(', ')} and ${delays.at(-1)} (${delays.length + 1} attempts). Delivery is at least once: dedupe on the event id.`

/**
 * The OpenAPI 3.1 `webhooks`: one operation per event type, what the server POSTs to a student's
 * endpoint, with the body's schema from the event's data as emitted (kernel/events.ts), and the
 * schemas they use (one per event type, told apart by `type`).
 */
export function webhookDocumentation(tidy: (schema: unknown) => unknown): { webhooks: Json; schemas: Json } {
  const webhooks: Json = {}
  const schemas: Json = {}
  const types = Object.keys(EVENT_TYPES) as EventType[]
  for (const type of types) {
    const name = eventSchemaName(type)
    schemas[name] = {
      type: 'object',
      description: `The body sent on \`${type}\`: ${EVENT_TYPES[type]}`,
      required: ['id', 'type', 'createdAt', 'data'],
      additionalProperties: false,
      properties: {
        id: { type: 'string', description: 'The event\u2019s id (evt_...), the same on every attempt and in X-Webhook-Id: a receiver dedupes on it.' },
        type: { type: 'string', const: type },
        createdAt: { type: 'string', format: 'date-time', description: 'When the event happened (ISO 8601, UTC).' },
        data: tidy(z.toJSONSchema(eventDataSchema(type))),
      },
    }
    webhooks[type] = {
      post: {
        operationId: `on${name}`,
        tags: ['Webhooks'],
        // No credential of the API's: the receiver checks X-Signature with the endpoint's signing secret.
        security: [],
        summary: EVENT_TYPES[type],
        description: HOW_SENT,
        parameters: [
          header('X-Webhook-Event', 'The event\u2019s type, as in the body.', { type: 'string', const: type }),
          header('X-Webhook-Id', 'The event\u2019s id, as in the body.', { type: 'string' }),
          header('X-Timestamp', 'When this attempt was sent, in milliseconds since 1970: the first part of the signed text.', { type: 'string', pattern: '^[0-9]+$' }),
          header('X-Signature', '`sha256=` and the lowercase hex HMAC-SHA256 of `<X-Timestamp>.<raw body>` with the endpoint\u2019s signing secret. POST /v1/webhooks/:id/sign signs any text, to compare with what your code computes.', {
            type: 'string',
            pattern: '^sha256=[0-9a-f]{64}$',
          }),
        ],
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } } },
        responses: {
          '2XX': { description: 'Delivered: nothing in the answer is read but its status (the log keeps its first 2 KB).' },
          default: { description: `Any other status, or none within ${TIMEOUT}: a failed attempt, retried while attempts remain.` },
        },
      },
    }
  }
  return { webhooks, schemas }
}
