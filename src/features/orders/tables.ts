import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { customers, stores } from '../../kernel/auth/tables'
import { pendingOnly } from '../../kernel/db/pending'

// Orders, payments and refunds. An order keeps its own snapshot of names, skus
// and prices, so later catalog edits or deletions never change what was bought.

export const ORDER_STATES = ['PENDING', 'PAID', 'CANCELLED', 'SHIPPED', 'DELIVERED', 'REFUNDED'] as const
export type OrderState = (typeof ORDER_STATES)[number]

export const PAYMENT_METHODS = ['PIX', 'CREDIT_CARD'] as const

export const CANCEL_REASONS = ['CUSTOMER', 'STORE', 'EXPIRED'] as const
export type CancelReason = (typeof CANCEL_REASONS)[number]

export const orders = sqliteTable(
  'orders',
  {
    id: text().primaryKey(),
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    /** Counts up per store from 1. */
    number: integer().notNull(),
    customerId: text('customer_id')
      .notNull()
      .references(() => customers.id, { onDelete: 'cascade' }),
    customerName: text('customer_name').notNull(),
    customerEmail: text('customer_email').notNull(),
    status: text({ enum: ORDER_STATES }).notNull(),
    subtotalCents: integer('subtotal_cents').notNull(),
    totalCents: integer('total_cents').notNull(),
    currency: text().notNull(),
    cancelReason: text('cancel_reason', { enum: CANCEL_REASONS }),
    trackingCode: text('tracking_code'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    /** When a PENDING order is cancelled for want of payment (RESERVATION_TTL_MINUTES after checkout). */
    expiresAt: integer('expires_at').notNull(),
    paidAt: integer('paid_at'),
    shippedAt: integer('shipped_at'),
    deliveredAt: integer('delivered_at'),
    cancelledAt: integer('cancelled_at'),
    refundedAt: integer('refunded_at'),
  },
  (t) => [
    uniqueIndex('orders_store_number').on(t.storeId, t.number),
    index('orders_store_created').on(t.storeId, t.createdAt),
    // The store overview counts orders per status from the index alone.
    index('orders_store_status').on(t.storeId, t.status),
    index('orders_customer_created').on(t.customerId, t.createdAt),
    // The expiry sweep walks only the pending orders, soonest first.
    index('orders_pending_expiry').on(t.expiresAt).where(pendingOnly(t.status)),
  ],
)

export const orderItems = sqliteTable(
  'order_items',
  {
    orderId: text('order_id')
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    position: integer().notNull(),
    variantId: text('variant_id').notNull(),
    productId: text('product_id').notNull(),
    name: text().notNull(),
    sku: text().notNull(),
    unitPriceCents: integer('unit_price_cents').notNull(),
    quantity: integer().notNull(),
    lineTotalCents: integer('line_total_cents').notNull(),
  },
  (t) => [primaryKey({ columns: [t.orderId, t.position] })],
)

export const payments = sqliteTable(
  'payments',
  {
    id: text().primaryKey(),
    orderId: text('order_id')
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    storeId: text('store_id').notNull(),
    method: text({ enum: PAYMENT_METHODS }).notNull(),
    status: text({ enum: ['APPROVED', 'DECLINED'] }).notNull(),
    amountCents: integer('amount_cents').notNull(),
    installments: integer().notNull(),
    /** The simulated PIX copy-and-paste code; null for cards. */
    pixCode: text('pix_code'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('payments_order').on(t.orderId, t.createdAt)],
)

export const refunds = sqliteTable(
  'refunds',
  {
    id: text().primaryKey(),
    orderId: text('order_id')
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    storeId: text('store_id').notNull(),
    amountCents: integer('amount_cents').notNull(),
    reason: text(),
    restock: integer({ mode: 'boolean' }).notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('refunds_order').on(t.orderId)],
)

/**
 * Idempotency-Key of POST /orders/:id/pay, scoped to the store and the customer (`key` holds both:
 * storedKey in idempotency.ts). A row is claimed (responseStatus null) before the payment runs and
 * holds the first answer afterwards, for 24 h.
 */
export const idempotencyKeys = sqliteTable(
  'idempotency_keys',
  {
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    key: text().notNull(),
    /** What the first request asked for: the same key with another request is 422. */
    fingerprint: text().notNull(),
    responseStatus: integer('response_status'),
    responseBody: text('response_body'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.storeId, t.key] }), index('idempotency_keys_created').on(t.createdAt)],
)
