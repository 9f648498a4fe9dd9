import { Elysia } from 'elysia'
import { authMacro } from '../../kernel/auth/macro'
import { ErrorEnvelope } from '../../kernel/errors'
import { GROUPED_WRITES_EXTENSION } from '../../kernel/http/route-table'
import { checkout } from './checkout'
import type { OrdersDeps } from './expiry'
import { CustomerOrderQuery, Order, OrderIdParams, OrderPage, PayBody, PayHeaders, RefundBody, StoreOrderQuery, TransitionBody } from './model'
import { pay } from './payment'
import { cancelByCustomer, getOrder, listCustomerOrders, listStoreOrders, refund, transition } from './service'
import { created } from '../../kernel/http/created'

const tags = ['Cart and orders']
const panelTags = ['Store panel']

/** The buyer's orders: X-API-Key plus the customer's Bearer token. */
export const orderRoutes = (deps: OrdersDeps) =>
  new Elysia({ prefix: '/orders' })
    .use(authMacro)
    .post(
      '/checkout',
      async ({ ctx, set }) => created(set, await checkout(deps, ctx), (id) => `/v1/orders/${id}`),
      {
        auth: 'customer',
        response: { 201: Order, 409: ErrorEnvelope },
        detail: {
          tags,
          [GROUPED_WRITES_EXTENSION]: true,
          summary: 'Check out the cart',
          description: `Creates a PENDING order from the cart and reserves its stock: every line or none (409 INSUFFICIENT_STOCK lists the short lines; an empty cart is 409 CART_EMPTY; a cart over the limit on a price, on the units of a line or on its number of lines, which only a cart from before those limits can be, is 409 CONFLICT naming the limit). The order keeps the names, skus and prices of now, gets the store's next number, and the cart is emptied. Unpaid, it is cancelled after RESERVATION_TTL_MINUTES (see expiresAt).`,
        },
      },
    )
    .get('', ({ ctx, query }) => listCustomerOrders(deps, ctx, query), {
      auth: 'customer',
      query: CustomerOrderQuery,
      response: { 200: OrderPage, 400: ErrorEnvelope },
      detail: { tags, summary: "The customer's orders", description: 'Newest first; `status` filters.' },
    })
    .get('/:id', ({ ctx, params }) => getOrder(deps, ctx, params.id), {
      auth: 'customer',
      params: OrderIdParams,
      response: { 200: Order, 404: ErrorEnvelope },
      detail: { tags, summary: 'One of the customer\u2019s orders' },
    })
    .post(
      '/:id/pay',
      async ({ ctx, params, body, headers }) => {
        const answer = await pay(deps, ctx, params.id, body, headers['idempotency-key'])
        // A replay is already a Response; a first answer is written the same way, so both read alike.
        if (answer instanceof Response) return answer
        return new Response(JSON.stringify(answer.body), { status: answer.status, headers: { 'content-type': 'application/json' } })
      },
      {
        auth: 'customer',
        params: OrderIdParams,
        body: PayBody,
        headers: PayHeaders,
        response: { 200: Order, 400: ErrorEnvelope, 402: ErrorEnvelope, 404: ErrorEnvelope, 409: ErrorEnvelope, 422: ErrorEnvelope },
        detail: {
          tags,
          [GROUPED_WRITES_EXTENSION]: true,
          summary: 'Pay a pending order (simulated)',
          description:
            'Approved by default: the order becomes PAID and its reservation a sale. `simulate: "decline"` records a DECLINED payment and answers 402 PAYMENT_DECLINED; the order stays PENDING. PIX payments carry a simulated copy-and-paste code (`pixCode`); CREDIT_CARD takes `installments` 1 to 12; PIX has none (leave it out or send 1: any other number is 400). With an `Idempotency-Key` header (up to 255 characters) a repeat gets the first answer again for 24 h (header `Idempotent-Replayed: true`) instead of paying twice; the same key with a different request is 422 IDEMPOTENCY_KEY_REUSED, and a repeat while the first is still running is 409 IDEMPOTENCY_IN_PROGRESS. A key belongs to the customer of the token, in this store: another customer, or another store, may use the same key for their own payment without either one seeing the other\u2019s.',
        },
      },
    )
    .post('/:id/cancel', ({ ctx, params }) => cancelByCustomer(deps, ctx, params.id), {
      auth: 'customer',
      params: OrderIdParams,
      response: { 200: Order, 404: ErrorEnvelope, 409: ErrorEnvelope },
      detail: { tags, summary: 'Cancel a pending order', description: 'Only a PENDING order can be cancelled by the customer (409 INVALID_TRANSITION otherwise); its stock is released.' },
    })

/** The store's side of orders: the API key or a student token. */
export const storeOrderRoutes = (deps: OrdersDeps) =>
  new Elysia({ prefix: '/store/orders' })
    .use(authMacro)
    .get('', ({ ctx, query }) => listStoreOrders(deps, ctx, query), {
      auth: 'secret',
      query: StoreOrderQuery,
      response: { 200: OrderPage, 400: ErrorEnvelope },
      detail: { tags: panelTags, summary: "The store's orders", description: 'Newest first. Filters: `status`, `customerId`, `from` and `to` (a date or an ISO time: created at or after / before; a date alone as `to` includes its day).' },
    })
    .get('/:id', ({ ctx, params }) => getOrder(deps, ctx, params.id), {
      auth: 'secret',
      params: OrderIdParams,
      response: { 200: Order, 404: ErrorEnvelope },
      detail: { tags: panelTags, summary: 'One order of the store' },
    })
    .post('/:id/transition', ({ ctx, params, body }) => transition(deps, ctx, params.id, body), {
      auth: 'secret',
      params: OrderIdParams,
      body: TransitionBody,
      response: { 200: Order, 400: ErrorEnvelope, 404: ErrorEnvelope, 409: ErrorEnvelope },
      detail: {
        tags: panelTags,
        summary: 'Move an order to another state',
        description:
          'The store may move PENDING → CANCELLED (stock released), PAID → SHIPPED (optional `trackingCode`) and SHIPPED → DELIVERED; SHIPPED and DELIVERED send `shipment.updated`. Any other move is 409 INVALID_TRANSITION, including `to` PAID (an order is paid only by POST /v1/orders/:id/pay), REFUNDED (only by the refund route) and PENDING; its message lists the moves possible from the order\u2019s state and how to make them. A `to` that is not an order state is 400.',
      },
    })
    .post('/:id/refund', ({ ctx, params, body }) => refund(deps, ctx, params.id, body ?? { restock: true }), {
      auth: 'secret',
      params: OrderIdParams,
      body: RefundBody.optional(),
      response: { 200: Order, 400: ErrorEnvelope, 404: ErrorEnvelope, 409: ErrorEnvelope },
      detail: {
        tags: panelTags,
        summary: 'Refund an order',
        description: 'Refunds the whole total of a PAID, SHIPPED or DELIVERED order (409 INVALID_TRANSITION otherwise); the order becomes REFUNDED and `order.refunded` is sent. `restock` (default true) returns the units to stock through the ledger.',
      },
    })
