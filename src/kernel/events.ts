import { z } from 'zod'

/**
 * The one table of event names. `GET /v1/webhooks/events` lists it; `emit` accepts
 * nothing else.
 */
export const EVENT_TYPES = {
  'order.created': 'A customer checked out: a PENDING order now holds stock.',
  'order.paid': 'An order was paid.',
  'order.cancelled': 'A PENDING order was cancelled by the customer, the store, or expiry.',
  'order.refunded': 'A paid, shipped or delivered order was refunded.',
  'product.low_stock': "A variant's available stock fell to or below its minStock.",
  'shipment.updated': 'An order was SHIPPED or DELIVERED.',
  'review.created': 'A customer wrote a review.',
  ping: 'A test event sent on demand by POST /v1/webhooks/:id/ping.',
} as const

export type EventType = keyof typeof EVENT_TYPES

/**
 * The `data` of each event, as emitted (`Outbox.emit` takes exactly this shape, so a change of what an
 * event carries changes its schema) and as the OpenAPI document's `webhooks` describe it. Made on first
 * use (the document), not at start, where building zod's schemas is already the largest part of loading
 * (bench/README.md, "Start-up"); `emit`'s types are the compiler's.
 */
function eventDataSchemas() {
  const id = (prefix: string, what: string) => z.string().describe(`the ${what}'s id (${prefix}_...)`)
  const orderNumber = z.number().int().describe("the order's number in its store (#1, #2, ...)")
  const amount = (what: string) => z.number().describe(`${what}, in the store's currency, with two decimals at most`)
  return {
    'order.created': z.object({ orderId: id('ord', 'order'), number: orderNumber, customerId: id('cus', 'customer'), total: amount("the order's total") }).strict(),
    'order.paid': z.object({ orderId: id('ord', 'order'), number: orderNumber, total: amount("the order's total") }).strict(),
    'order.cancelled': z
      .object({
        orderId: id('ord', 'order'),
        number: orderNumber,
        reason: z.enum(['CUSTOMER', 'STORE', 'EXPIRED']).describe('who cancelled it: the customer, the store, or expiry (not paid in time)'),
        total: amount("the order's total"),
      })
      .strict(),
    'order.refunded': z
      .object({
        orderId: id('ord', 'order'),
        number: orderNumber,
        refundId: id('ref', 'refund'),
        amount: amount('the amount refunded: the whole total'),
        restock: z.boolean().describe('whether the units went back to stock'),
      })
      .strict(),
    'product.low_stock': z
      .object({
        productId: id('prod', 'product'),
        variantId: id('var', 'variant'),
        sku: z.string(),
        available: z.number().int().describe('units that can be bought now: stock minus reserved'),
        minStock: z.number().int(),
      })
      .strict(),
    'shipment.updated': z
      .object({
        orderId: id('ord', 'order'),
        number: orderNumber,
        status: z.enum(['SHIPPED', 'DELIVERED']),
        trackingCode: z.string().nullable().describe('null when the store gave none'),
      })
      .strict(),
    'review.created': z.object({ reviewId: id('rev', 'review'), productId: id('prod', 'product'), rating: z.number().int().min(1).max(5) }).strict(),
    ping: z.object({ webhookId: id('whk', 'webhook endpoint'), message: z.string() }).strict(),
  } satisfies Record<EventType, z.ZodType>
}

let eventData: ReturnType<typeof eventDataSchemas> | undefined
/** The schema of each event's `data` (eventDataSchemas), made once. */
export const eventDataSchema = <T extends EventType>(type: T) => (eventData ??= eventDataSchemas())[type]

/** What an event of `T` carries as its `data`. */
export type EventData<T extends EventType> = z.input<ReturnType<typeof eventDataSchemas>[T]>
