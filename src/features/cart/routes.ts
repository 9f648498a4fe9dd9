import { Elysia } from 'elysia'
import { authMacro } from '../../kernel/auth/macro'
import type { Deps } from '../../kernel/deps'
import { ErrorEnvelope } from '../../kernel/errors'
import { GROUPED_WRITES_EXTENSION } from '../../kernel/http/route-table'
import { MAX_CART_LINES, MAX_LINE_QUANTITY } from '../../kernel/money'
import { AddItemBody, Cart, ChangeItemBody, ItemIdParams } from './model'
import { addItem, changeItem, getCart, removeItem } from './service'

const tags = ['Cart and orders']

/**
 * The buyer's cart: X-API-Key plus the customer's Bearer token. Every answer is the whole cart, which
 * service.ts builds field by field from the Cart schema (test/orders/cart-schema.test.ts).
 */
export const cartRoutes = (deps: Deps) =>
  new Elysia({ prefix: '/cart' })
    .use(authMacro)
    .get('', ({ ctx }) => getCart(deps, ctx), {
      auth: 'customer',
      response: { 200: Cart },
      detail: { tags, summary: "The customer's cart", description: 'Prices are today\u2019s; `available` says how many units of each line can be bought now.' },
    })
    .post('/items', ({ ctx, body }) => addItem(deps, ctx, body), {
      auth: 'customer',
      body: AddItemBody,
      response: { 200: Cart, 400: ErrorEnvelope, 404: ErrorEnvelope, 409: ErrorEnvelope },
      detail: {
        tags,
        [GROUPED_WRITES_EXTENSION]: true,
        summary: 'Add a variant to the cart',
        description:
          `Adding a variant already in the cart adds the quantities up. A product id where the variant id belongs is a 404 that says so. A variant of a product that is not PUBLISHED is 409 PRODUCT_UNAVAILABLE with the secret key, and 404 NOT_FOUND with a publishable key (pk_...), which does not see such products (as an unknown variant id); a line already in the cart whose product was unpublished since stays 409 PRODUCT_UNAVAILABLE; more units than \`available\` is 409 INSUFFICIENT_STOCK. A line holds at most ${MAX_LINE_QUANTITY} units and a cart at most ${MAX_CART_LINES} lines, so that every total is exact: an add that would pass either is 409 CONFLICT naming the limit, and changes nothing. Answers with the whole cart.`,
      },
    })
    .patch('/items/:id', ({ ctx, params, body }) => changeItem(deps, ctx, params.id, body.quantity), {
      auth: 'customer',
      params: ItemIdParams,
      body: ChangeItemBody,
      response: { 200: Cart, 400: ErrorEnvelope, 404: ErrorEnvelope, 409: ErrorEnvelope },
      detail: { tags, [GROUPED_WRITES_EXTENSION]: true, summary: 'Change the quantity of a cart item', description: `Sets the quantity (1 to ${MAX_LINE_QUANTITY}; remove the item with DELETE). Answers with the whole cart.` },
    })
    .delete('/items/:id', ({ ctx, params }) => removeItem(deps, ctx, params.id), {
      auth: 'customer',
      params: ItemIdParams,
      response: { 200: Cart, 404: ErrorEnvelope },
      detail: { tags, [GROUPED_WRITES_EXTENSION]: true, summary: 'Remove a cart item', description: 'Answers with the whole cart.' },
    })
