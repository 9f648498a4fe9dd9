/**
 * The one table of event names. `GET /v1/webhooks/events` lists it; `emit` accepts
 * nothing else.
 */
export const EVENT_TYPES = {
  'order.created': 'A customer checked out: a PENDING order now holds stock.',
  'order.paid': 'An order was paid. data: {orderId, total}.',
  'order.cancelled': 'A PENDING order was cancelled by the customer, the store, or expiry.',
  'order.refunded': 'A paid, shipped or delivered order was refunded.',
  'product.low_stock': "A variant's available stock fell to or below its minStock.",
  'shipment.updated': 'An order was SHIPPED or DELIVERED. data: {orderId, status, trackingCode}.',
  'review.created': 'A customer wrote a review.',
  ping: 'A test event sent on demand by POST /v1/webhooks/:id/ping.',
} as const

export type EventType = keyof typeof EVENT_TYPES
