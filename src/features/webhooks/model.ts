import { z } from 'zod'
import { idRef } from '../../kernel/id-schema'
import { withoutControlCharacters } from '../../kernel/control-characters'
import { EVENT_TYPES, type EventType } from '../../kernel/events'
import { Page, PageQuery } from '../../kernel/pagination'
import { DELIVERY_STATUSES } from './tables'

const EVENT_NAMES = Object.keys(EVENT_TYPES) as [EventType, ...EventType[]]

/** `all`: what stands for every event where the value is read (a subscription's "*", a filter left out). */
const unknownEvent = (all: string) => (issue: { input?: unknown }) =>
  `'${String(issue.input)}' is not an event name. Valid names: ${EVENT_NAMES.join(', ')}, or ${all} (GET /v1/webhooks/events describes each)`

export const RegisterWebhookBody = z
  .object({
    url: withoutControlCharacters(z.string().trim().min(1, 'url is required').max(2048), 'url')
      .meta({ format: 'uri' })
      .describe('Where to POST events: https:// (http:// on the LAN only when the server allows insecure webhooks; loopback only when it allows loopback webhooks).'),
    events: z
      .array(z.enum(['*', ...EVENT_NAMES], { error: unknownEvent('"*" for all of them') }), {
        error: (issue) => (issue.code === 'invalid_type' ? `events is a list of event names, e.g. ["order.paid"], or ["*"] for all events: put ${typeof issue.input === 'string' ? JSON.stringify(issue.input).slice(0, 40) : 'the names'} in [ ]` : undefined),
      })
      .min(1, 'list at least one event name, or ["*"] for all events')
      .max(EVENT_NAMES.length + 1)
      .describe('Event names to receive, or ["*"] for all of them.'),
    description: withoutControlCharacters(z.string().trim().max(200, 'description has at most 200 characters'), 'description').optional(),
  })
  .strict()
export type RegisterWebhookBody = z.infer<typeof RegisterWebhookBody>

export const WebhookEndpoint = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    description: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'WebhookEndpoint' })

export const RegisteredWebhook = WebhookEndpoint.extend({
  signingSecret: z.string().describe('whsec_...: the key of every signature. Shown only in this response: store it now.'),
})

export const WebhookList = Page(WebhookEndpoint)

export const EventTypeList = Page(z.object({ name: z.string(), description: z.string() }))

export const DeliveryQueued = z
  .object({ eventId: z.string(), deliveryId: z.string().describe('Follow it in GET /v1/webhooks/deliveries.') })
  .meta({ id: 'DeliveryQueued' })

/** The longest body the sign route signs: every event this server sends is a small fraction of it. */
const MAX_SIGNED_BODY = 256 * 1024

export const SignBody = z
  .object({
    timestamp: z
      .union([z.number().int().min(0), z.string().regex(/^\d{1,16}$/, 'timestamp is the X-Timestamp value: milliseconds, digits only')])
      .describe('The X-Timestamp header value (milliseconds).'),
    body: z
      .string()
      .max(MAX_SIGNED_BODY, `body has at most ${MAX_SIGNED_BODY / 1024} KiB: an event this server sends is far smaller`)
      .describe('The raw body exactly as your receiver got it, as one string (not a parsed object).'),
  })
  .strict()

export const Signed = z.object({
  signedPayload: z.string().describe('`<timestamp>.<body>`: the text the HMAC covers.'),
  signature: z.string().describe('`sha256=` + lowercase hex HMAC-SHA256 of signedPayload with the signing secret: X-Signature.'),
})

export const DeliveryQuery = PageQuery.extend({
  webhookId: idRef('webhookId').optional(),
  eventType: z.enum(EVENT_NAMES, { error: unknownEvent('leave eventType out for all of them') }).optional(),
  status: z.enum(DELIVERY_STATUSES).optional(),
  orderId: z.string().max(64, 'orderId is the id of one of your orders (GET /v1/store/orders lists them), at most 64 characters').optional().describe("only deliveries of this order's events (order.*, shipment.updated)"),
})
export type DeliveryQuery = z.infer<typeof DeliveryQuery>

const time = z.string().nullable()

export const Delivery = z
  .object({
    id: z.string(),
    webhookId: z.string(),
    eventId: z.string(),
    eventType: z.string(),
    attempt: z.number().int().describe('1 for the first try of this event at this endpoint; retries and redeliveries count on'),
    status: z.enum(DELIVERY_STATUSES).describe('PENDING: not sent yet (see scheduledAt). SUCCEEDED: a 2xx within 10 s. FAILED: anything else.'),
    redelivery: z.boolean().describe('asked for with redeliver: sent once, not retried'),
    scheduledAt: z.string(),
    sentAt: time,
    responseStatus: z.number().int().nullable(),
    responseBody: z.string().nullable().describe('the first 2 KB of the answer'),
    error: z.string().nullable().describe('why it failed: timeout, connection refused, tls, dns, redirect, status, refused target'),
    durationMs: z.number().int().nullable(),
    requestHeaders: z.record(z.string(), z.string()).nullable().describe('the headers sent, signature included'),
    signedPayload: z.string().nullable().describe('`<X-Timestamp>.<body>`, the exact text that was signed'),
    createdAt: z.string(),
    nextRetryAt: time.describe('when the next attempt goes, for a FAILED attempt that will be retried'),
  })
  .meta({ id: 'WebhookDelivery' })

export const DeliveryList = Page(Delivery)

export const IdParams = z.object({ id: z.string() })

/** The events a listen stream can carry: every event name but `ping`, which is sent to one registered endpoint only. */
export const LISTEN_EVENT_NAMES = EVENT_NAMES.filter((name) => name !== 'ping')

/** `events` as a listen stream takes it: a comma-separated list, checked against the event names like a registration's. */
export const ListenQuery = z.strictObject({
  lastEventId: z.string().max(200).optional().describe('What an EventSource polyfill adds when it reconnects: read as the Last-Event-ID header is, when that header is not sent.'),
  // The query parser hands a comma-separated value over as an array already.
  events: z
    .union([z.string().max(1000), z.array(z.string().max(100)).max(50)])
    .optional()
    .describe('Comma-separated event names to receive (e.g. order.paid,order.cancelled); all of them when left out or "*".')
    .transform((list, ctx): string[] => {
      const names = [list ?? '*'].flat().flatMap((n) => n.split(',')).map((n) => n.trim()).filter((n) => n !== '')
      if (names.length > LISTEN_EVENT_NAMES.length + 1) {
        ctx.addIssue({ code: 'custom', message: `events lists at most ${LISTEN_EVENT_NAMES.length} event names, or "*" for all of them` })
        return z.NEVER
      }
      if (names.length === 0 || names.includes('*')) return ['*']
      const unknown = names.find((n) => !(LISTEN_EVENT_NAMES as string[]).includes(n))
      if (unknown === undefined) return [...new Set(names)]
      ctx.addIssue({
        code: 'custom',
        message: `'${unknown.slice(0, 64)}' is not an event a listener receives. Valid names: ${LISTEN_EVENT_NAMES.join(', ')}, or "*" for all of them (GET /v1/webhooks/events describes each; ping goes to registered endpoints only)`,
      })
      return z.NEVER
    }),
})

export const Listener = z
  .object({
    connectedAt: z.string(),
    events: z.array(z.string()).describe('what it receives: event names, or ["*"]'),
    credential: z.enum(['secret', 'student']).describe('opened with the secret key or a student token'),
    rm: z.string().nullable().describe("the student's RM: the token's, or X-Student-RM with the secret key; null when none"),
    forwarded: z.number().int().describe('events sent on this stream so far, replayed ones included'),
  })
  .meta({ id: 'WebhookListener' })

export const ListenerList = z.object({
  data: z.array(Listener).describe('the open listen streams, oldest first'),
  limit: z.number().int().describe('how many may be open at once'),
})
