import type { RouteEntry } from '../../src/kernel/http/route-table'
import type { createTestApp } from './app'
import { seedCatalog } from './catalog'
import { admin, apiKey, bearer, createKey, expectOk, twoStores } from './world'

/**
 * Two stores, and in store A one resource of every kind a path parameter can name: what the
 * route-table and OpenAPI driven tests (authorization matrix, drills) point their ids at.
 */
export async function matrixWorld(t: ReturnType<typeof createTestApp>) {
  const stores = await twoStores(t.call, t.deps)
  const key = apiKey(stores.A.key.apiKey)
  const webhook = await expectOk(t.call('POST', '/v1/webhooks', { headers: key, body: { url: 'https://10.9.8.7/hook', events: ['*'] } }), 201)
  const ping = await expectOk(t.call('POST', `/v1/webhooks/${webhook.id}/ping`, { headers: key }), 202)
  const catalog = await seedCatalog(t.call, stores.A.key.apiKey)
  const image = await expectOk(t.call('POST', `/v1/products/${catalog.product.id}/images`, { headers: key, body: { mediaId: stores.A.media.id } }), 201)
  const spare = await expectOk(t.call('POST', '/v1/admin/groups', { headers: admin, body: { name: 'Spare group' } }), 201)
  // A's customer has an order and, after it, an item in the cart.
  const buyable = await expectOk(t.call('POST', '/v1/products', { headers: key, body: { name: 'Matrix', sku: 'MATRIX-BUY', price: 5, stock: 100, state: 'PUBLISHED' } }), 201)
  const customer = { ...key, ...bearer(stores.A.customer.token) }
  // A paid order holding both products: A's customer has reviewed one (reviewId) and may review the seeded one.
  await expectOk(t.call('PUT', `/v1/products/${catalog.product.id}`, { headers: key, body: { state: 'PUBLISHED' } }))
  await expectOk(t.call('POST', '/v1/cart/items', { headers: customer, body: { variantId: buyable.variants[0].id, quantity: 1 } }))
  await expectOk(t.call('POST', '/v1/cart/items', { headers: customer, body: { variantId: catalog.variant.id, quantity: 1 } }))
  const paid = await expectOk(t.call('POST', '/v1/orders/checkout', { headers: customer }), 201)
  await expectOk(t.call('POST', `/v1/orders/${paid.id}/pay`, { headers: customer, body: { method: 'PIX' } }))
  await expectOk(t.call('PUT', `/v1/products/${catalog.product.id}`, { headers: key, body: { state: 'DRAFT' } }))
  const review = await expectOk(
    t.call('POST', `/v1/products/${buyable.id}/reviews`, { headers: customer, body: { rating: 4, title: 'Matrix review', comment: 'ok', mediaIds: [stores.A.media.id] } }),
    201,
  )
  await expectOk(t.call('POST', '/v1/cart/items', { headers: customer, body: { variantId: buyable.variants[0].id, quantity: 1 } }))
  const order = await expectOk(t.call('POST', '/v1/orders/checkout', { headers: customer }), 201)
  const cart = await expectOk(t.call('POST', '/v1/cart/items', { headers: customer, body: { variantId: buyable.variants[0].id, quantity: 1 } }))
  // A call the request inspector keeps for store A, by the id it was sent with.
  await expectOk(t.call('GET', `/v1/products/${catalog.product.id}`, { headers: { ...key, 'x-request-id': 'matrix-call-of-a' } }))
  // Each store's publishable key, made last so that every resource above came through the secret key.
  const publishable = { A: await createKey(t.call, stores.A.student, 'shop front', 'publishable'), B: await createKey(t.call, stores.B.student, 'shop front', 'publishable') }
  return {
    ...stores,
    publishable,
    catalog,
    webhookId: webhook.id as string,
    imageId: image.id as string,
    deliveryId: ping.deliveryId as string,
    spareGroupId: spare.id as string,
    orderId: order.id as string,
    cartItemId: cart.items[0].id as string,
    reviewId: review.id as string,
  }
}
export type World = Awaited<ReturnType<typeof matrixWorld>>

/** Store A's resource that a path parameter names, by the path segment before the parameter. */
export const ID_OF: Record<string, (w: World) => string> = {
  'api-keys': (w) => w.A.spareKey.id,
  members: (w) => w.A.rms.spare,
  // Teacher routes reset and seed the group they name: a spare one, so store A stays as the other columns need it.
  groups: (w) => w.spareGroupId,
  students: (w) => w.A.rms.spare,
  products: (w) => w.catalog.product.id,
  variants: (w) => w.catalog.variant.id,
  categories: (w) => w.catalog.category.id,
  brands: (w) => w.catalog.brand.id,
  collections: (w) => w.catalog.collection.id,
  media: (w) => w.A.media.id,
  // /v1/files/:storeId/:name, the public URL of a file
  files: (w) => w.A.group.storeId,
  ':storeId': (w) => w.A.media.url.split('/').pop()!,
  // /panel/:name, a file of the panel's bundle (public: any name answers without a credential)
  panel: () => 'chunk.js',
  images: (w) => w.imageId,
  webhooks: (w) => w.webhookId,
  deliveries: (w) => w.deliveryId,
  // /v1/cart/items/:id and /v1/orders/:id, /v1/store/orders/:id
  items: (w) => w.cartItemId,
  orders: (w) => w.orderId,
  // /v1/reviews/:id and /v1/store/reviews/:id
  reviews: (w) => w.reviewId,
  // /v1/store/requests/:requestId, a call store A made (matrixWorld)
  requests: () => 'matrix-call-of-a',
}

/**
 * A valid body for each route that takes one and names a store's resource, so that the call gets past
 * validation to the store check (a 400 for a missing body would hide a leak behind it).
 */
export const BODY_OF: Record<string, unknown> = {
  'PUT /v1/products/:id': { name: 'Renamed in the matrix' },
  'POST /v1/products/:id/variants': { sku: 'MATRIX-1', price: 1, stock: 0, options: { size: 'XL' } },
  'PATCH /v1/variants/:id': { price: 1.5 },
  'POST /v1/variants/:id/stock/receive': { quantity: 1 },
  'POST /v1/variants/:id/stock/adjust': { quantity: 1, reason: 'matrix count' },
  'PUT /v1/categories/:id': { description: 'matrix' },
  'PUT /v1/brands/:id': { description: 'matrix' },
  'PUT /v1/collections/:id': { description: 'matrix' },
  'POST /v1/products/:id/images': { url: 'https://example.com/a.png' },
  'PATCH /v1/images/:id': { position: 0 },
  'POST /v1/webhooks/:id/sign': { timestamp: 1700000000000, body: '{}' },
  'PATCH /v1/cart/items/:id': { quantity: 2 },
  'POST /v1/orders/:id/pay': { method: 'PIX' },
  'POST /v1/store/orders/:id/transition': { to: 'CANCELLED' },
  'POST /v1/store/orders/:id/refund': { reason: 'matrix' },
  'POST /v1/products/:id/reviews': { rating: 5, title: 'From the matrix', comment: 'fine' },
  'PATCH /v1/reviews/:id': { rating: 3 },
  'PATCH /v1/store/reviews/:id': { hidden: true },
}

export function pathFor(route: Pick<RouteEntry, "path">, world: World): string {
  return route.path.replace(/\/:([^/]+)/g, (_, _param, offset: number) => {
    const segment = route.path.slice(0, offset).split('/').pop()!
    const id = ID_OF[segment]
    if (!id) throw new Error(`add a fixture to ID_OF for the parameter after '/${segment}/' in ${route.path}`)
    return `/${encodeURIComponent(id(world))}`
  })
}

