import { z } from 'zod'
import { idRef } from '../../kernel/id-schema'
import { INSTANT_FORMS, instantQuery } from '../../kernel/instant-query'
import { CartItem } from '../cart/model'
import { PageQuery, Page } from '../../kernel/pagination'
import { TRANSITION_TO_MESSAGE } from './states'
import { CANCEL_REASONS, ORDER_STATES, PAYMENT_METHODS } from './tables'

// Request and response shapes of orders and payments.

export const OrderIdParams = z.object({ id: z.string() })

export const OrderStatus = z.enum(ORDER_STATES).describe('PENDING, PAID, CANCELLED, SHIPPED, DELIVERED or REFUNDED')

export const PayBody = z
  .object({
    method: z.enum(PAYMENT_METHODS, { error: 'method must be PIX or CREDIT_CARD' }),
    simulate: z.literal('decline', { error: "simulate can only be 'decline' (leave it out to approve)" }).optional(),
    installments: z
      .number()
      .int('installments must be a whole number')
      .min(1)
      .max(12, 'installments go from 1 to 12')
      .optional()
      .describe('CREDIT_CARD only, 1 (the default) to 12; PIX is paid at once: leave it out or send 1'),
  })
  .strict()
  // Refused, not stored as 1: a buyer who asked for 3 PIX installments would believe in a split that never happened.
  .refine((b) => b.method !== 'PIX' || b.installments === undefined || b.installments === 1, {
    path: ['installments'],
    message: 'PIX has no installments: leave installments out or send 1 (installments are for CREDIT_CARD)',
  })
export type PayBody = z.infer<typeof PayBody>

export const PayHeaders = z.object({
  'idempotency-key': z
    .string()
    .min(1, 'Idempotency-Key must not be empty')
    .max(255, 'Idempotency-Key has at most 255 characters; a UUID is a good key')
    .optional()
    .describe("Replays the first answer for 24 h instead of paying twice. Each customer\u2019s keys are their own: another customer of the store, or another store, may send the same key."),
})

export const TransitionBody = z
  .object({
    to: z.enum(ORDER_STATES, { error: TRANSITION_TO_MESSAGE }).describe(TRANSITION_TO_MESSAGE),
    trackingCode: z.string().trim().min(1).max(100).optional().describe('Optional when moving to SHIPPED, and only then: DELIVERED keeps the code given at SHIPPED.'),
  })
  .strict()

export const RefundBody = z
  .object({
    reason: z.string().trim().max(500).optional(),
    restock: z.boolean().default(true).describe('true (the default) returns the units to stock'),
  })
  .strict()

/** An order line: the cart line's snapshot at checkout (name, sku and price are copied, not looked up). */
export const OrderItem = CartItem.omit({ id: true, available: true })

export const Payment = z
  .object({
    id: z.string(),
    method: z.enum(PAYMENT_METHODS),
    status: z.enum(['APPROVED', 'DECLINED']),
    amount: z.number(),
    installments: z.number().int(),
    pixCode: z.string().nullable().describe('PIX only: a simulated copy-and-paste code'),
    createdAt: z.string(),
  })
  .meta({ id: 'Payment' })

export const Refund = z.object({ id: z.string(), amount: z.number(), reason: z.string().nullable(), restock: z.boolean(), createdAt: z.string() })

export const Order = z
  .object({
    id: z.string(),
    number: z.number().int().describe('Counts up per store from 1'),
    status: OrderStatus,
    allowedTransitions: z
      .array(OrderStatus)
      .describe(
        "The values of `to` that POST /v1/store/orders/:id/transition accepts from the current status (empty when none): the store's actions, for the app's management screens; show only these there. Any other `to` is 409 INVALID_TRANSITION. The customer's own view carries the same value, but a shop page offers the customer none of these: a customer cancels a PENDING order with POST /v1/orders/:id/cancel.",
      ),
    refundable: z
      .boolean()
      .describe("Whether POST /v1/store/orders/:id/refund accepts the order now (PAID, SHIPPED or DELIVERED); when false a refund is 409 INVALID_TRANSITION. The store's action (secret key or student token), not the customer's."),
    items: z.array(OrderItem),
    subtotal: z.number(),
    total: z.number(),
    currency: z.string(),
    customer: z.object({ id: z.string(), name: z.string(), email: z.string() }),
    payments: z.array(Payment),
    refunds: z.array(Refund),
    shipment: z
      .object({ status: z.enum(['SHIPPED', 'DELIVERED']), trackingCode: z.string().nullable(), shippedAt: z.string(), deliveredAt: z.string().nullable() })
      .nullable(),
    cancelReason: z.enum(CANCEL_REASONS).nullable().describe('CUSTOMER, STORE or EXPIRED, when CANCELLED'),
    history: z.array(z.object({ status: OrderStatus, at: z.string() })).describe('every status the order has had, with when it began, oldest first: PENDING at checkout, then each move'),
    createdAt: z.string(),
    updatedAt: z.string(),
    expiresAt: z.string().nullable().describe('While PENDING: when the order is cancelled unless paid'),
  })
  .meta({ id: 'Order' })
export type Order = z.infer<typeof Order>

export const OrderPage = Page(Order)

export const CustomerOrderQuery = PageQuery.extend({ status: OrderStatus.optional() }).strict()

export const StoreOrderQuery = PageQuery.extend({
  status: OrderStatus.optional(),
  customerId: idRef('customerId').optional(),
  from: instantQuery('from').optional().describe(`orders created at or after this time. ${INSTANT_FORMS}`),
  to: instantQuery('to').optional().describe(`orders created before this time; a date alone includes that whole day. ${INSTANT_FORMS}`),
}).strict()
export type StoreOrderQuery = z.infer<typeof StoreOrderQuery>
