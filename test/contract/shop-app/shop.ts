// A shop app's whole flow, written as a student writes it: against a client generated from the server's
// /openapi.json by openapi-typescript (into storefront-api.d.ts, beside this file) and openapi-fetch.
// test/contract/generated-client.test.ts generates that file, type-checks this one strictly (no any,
// no casts, no non-null assertions), then runs it against a live server.
import createClient from 'openapi-fetch'
import type { components, paths } from './storefront-api'

type ErrorEnvelope = components['schemas']['Error']

/** What an answer carries, or an Error that quotes the envelope (the message says what to do next). */
async function ok<T>(call: Promise<{ data?: T; error?: ErrorEnvelope; response: Response }>): Promise<T> {
  const { data, error, response } = await call
  if (data === undefined) throw new Error(`${response.status} ${error?.error.code}: ${error?.error.message}`)
  return data
}

function first<T>(items: readonly T[], what: string): T {
  const [item] = items
  if (item === undefined) throw new Error(`no ${what}`)
  return item
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` })

export interface ShopFlowStart {
  baseUrl: string
  adminToken: string
  /** The product's picture, e.g. a File from an <input type="file">. */
  photo: Blob
}

export async function runShopFlow({ baseUrl, adminToken, photo }: ShopFlowStart) {
  const client = createClient<paths>({ baseUrl })

  // The teacher makes the group; its student logs in with the RM, changes the password and makes the keys.
  const group = await ok(client.POST('/v1/admin/groups', {
    headers: { 'X-Admin-Token': adminToken },
    body: { name: 'Grupo Cliente', members: [{ rm: '7001', name: 'Ana' }] },
  }))
  const login = await ok(client.POST('/v1/store/auth/login', { body: { rm: '7001', password: '7001' } }))
  const student = await ok(client.POST('/v1/store/auth/change-password', {
    headers: bearer(login.token),
    body: { currentPassword: '7001', newPassword: 'uma-senha-longa' },
  }))
  const secretKey = await ok(client.POST('/v1/store/api-keys', { headers: bearer(student.token), body: { name: 'our server' } }))
  const publishableKey = await ok(client.POST('/v1/store/api-keys', {
    headers: bearer(student.token),
    body: { name: 'our shop front', kind: 'publishable' },
  }))
  const server = { 'X-API-Key': secretKey.apiKey }
  const shop = { 'X-API-Key': publishableKey.apiKey }

  // The catalog, from the app's server: a T-shirt in two sizes, published, with a picture.
  const created = await ok(client.POST('/v1/products', { headers: server, body: { name: 'Camiseta Azul', sku: 'CAM-P', price: 59.9, stock: 5 } }))
  const product = { path: { id: created.id } }
  const small = await ok(client.PATCH('/v1/variants/{id}', {
    headers: server,
    params: { path: { id: first(created.variants, 'variant').id } },
    body: { options: { size: 'P' } },
  }))
  const large = await ok(client.POST('/v1/products/{id}/variants', {
    headers: server,
    params: product,
    body: { sku: 'CAM-G', price: 64.9, stock: 3, options: { size: 'G' } },
  }))
  await ok(client.PUT('/v1/products/{id}', { headers: server, params: product, body: { state: 'PUBLISHED' } }))
  const picture = await ok(client.POST('/v1/products/{id}/media', {
    headers: server,
    params: product,
    body: { file: photo, isPrimary: 'true' },
    bodySerializer(body) {
      const form = new FormData()
      form.append('file', body.file, 'camiseta.png')
      if (body.isPrimary) form.append('isPrimary', body.isPrimary)
      return form
    },
  }))

  // The shop front, with the publishable key: a customer registers, logs in and finds the product.
  await ok(client.POST('/v1/customers/register', { headers: shop, body: { name: 'Bia', email: 'bia@example.com', password: 'senha-da-bia' } }))
  const session = await ok(client.POST('/v1/customers/login', { headers: shop, body: { email: 'bia@example.com', password: 'senha-da-bia' } }))
  const buyer = { ...shop, ...bearer(session.token) }
  const found = await ok(client.GET('/v1/products', { headers: shop, params: { query: { state: 'PUBLISHED', search: 'camiseta' } } }))
  const shown = first(found.data, 'product found')

  // A product id where the variant id belongs: the error is the envelope, and says which id is which.
  const mixUp = await client.POST('/v1/cart/items', { headers: buyer, body: { variantId: shown.id } })
  if (!mixUp.error) throw new Error('a product id was taken as a variant id')

  // A price with three decimals: each problem's path and message are strings to the client.
  const cents = await client.POST('/v1/products', { headers: server, body: { name: 'Caneca', sku: 'CAN-1', price: 19.999, stock: 1 } })
  if (!cents.error) throw new Error('a price with three decimals was taken')
  const problems = (cents.error.error.details ?? []).map((d): [string | undefined, string | undefined] => [d.path, d.message])

  // Two of the large size, checkout, and PIX (an Idempotency-Key makes a retried payment safe).
  const cart = await ok(client.POST('/v1/cart/items', { headers: buyer, body: { variantId: large.id, quantity: 2 } }))
  const pending = await ok(client.POST('/v1/orders/checkout', { headers: buyer }))
  const paid = await ok(client.POST('/v1/orders/{id}/pay', {
    headers: buyer,
    params: { path: { id: pending.id }, header: { 'idempotency-key': `pay-${pending.id}` } },
    body: { method: 'PIX' },
  }))
  const payment = first(paid.payments, 'payment')

  // The store lists its paid orders and refunds this one; the refund's body may be left out (restock is the default).
  const listed = await ok(client.GET('/v1/store/orders', { headers: server, params: { query: { status: 'PAID' } } }))
  const refunded = await ok(client.POST('/v1/store/orders/{id}/refund', { headers: server, params: { path: { id: paid.id } } }))
  const restocked = await ok(client.GET('/v1/variants/{id}', { headers: server, params: { path: { id: large.id } } }))
  const twice = await client.POST('/v1/store/orders/{id}/refund', { headers: server, params: { path: { id: paid.id } }, body: { reason: 'again' } })
  if (!twice.error) throw new Error('an order was refunded twice')

  // A boolean in a query is a boolean to the client: the reviews not hidden, and the picture deleted though the product shows it.
  const visible = await ok(client.GET('/v1/store/reviews', { headers: server, params: { query: { hidden: false } } }))
  const forced = await client.DELETE('/v1/media/{id}', { headers: server, params: { path: { id: picture.media.id }, query: { force: true } } })
  if (forced.error) throw new Error(`${forced.response.status} ${forced.error.error.message}`)
  const unpictured = await ok(client.GET('/v1/products/{id}', { headers: server, params: product }))

  return {
    group: { name: group.name, members: group.members.map((m) => m.rm) },
    mustChangePassword: [login.mustChangePassword, student.mustChangePassword],
    keys: [secretKey.kind, publishableKey.kind],
    sizes: [small.options, large.options],
    found: { id: shown.id, state: shown.state, price: shown.price, variants: shown.variants.length, image: shown.image },
    picture: { url: picture.image.url, isPrimary: picture.image.isPrimary, type: picture.media.mimeType },
    mixUp: { status: mixUp.response.status, code: mixUp.error.error.code, message: mixUp.error.error.message },
    problems,
    cart: { itemCount: cart.itemCount, subtotal: cart.subtotal },
    order: { id: pending.id, number: pending.number, status: pending.status, total: pending.total },
    payment: { orderStatus: paid.status, method: payment.method, status: payment.status, pixCode: payment.pixCode },
    listed: listed.data.map((o) => o.id),
    refund: { status: refunded.status, amount: refunded.refunds.map((r) => r.amount), available: restocked.available },
    twice: { status: twice.response.status, code: twice.error.error.code },
    booleans: { visibleReviews: visible.total, forcedDelete: forced.response.status, imageAfter: unpictured.image },
  }
}
