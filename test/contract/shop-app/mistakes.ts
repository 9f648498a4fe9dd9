// Calls the generated client must not compile: test/contract/generated-client.test.ts expects a type
// error on each line marked `refused`, and on no other line.
import createClient from 'openapi-fetch'
import type { paths } from './storefront-api'

const client = createClient<paths>({ baseUrl: 'http://localhost:3000' })
const params = { path: { id: 'prd_1' } }

export const mistakes = () => [
  client.PUT('/v1/products/{id}', { params, body: { price: 10 } }), // refused: the price is set per variant
  client.PUT('/v1/products/{id}', { params, body: { sku: 'CAM-1' } }), // refused: so is the sku
  client.PUT('/v1/products/{id}', { params, body: { stock: 3 } }), // refused: stock changes through the stock routes
  client.PATCH('/v1/variants/{id}', { params, body: { stock: 3 } }), // refused: even on a variant
  client.POST('/v1/uploads', { body: { file: 'photo.png' } }), // refused: a file, not its name
  client.POST('/v1/products', {}), // refused: a product needs its body
  client.POST('/v1/products', { body: { name: 'Camiseta' } }), // refused: and its one variant's sku, price and stock, or variants
  client.POST('/v1/products', { body: { name: 'Camiseta', sku: 'CAM-1', price: 10 } }), // refused: stock too
  client.POST('/v1/products', { body: { name: 'Camiseta', variants: [{ sku: 'CAM-P', price: 10, stock: 1 }] } }),
  client.POST('/v1/products/{id}/images', { params, body: { isPrimary: true } }), // refused: an image is a mediaId or a url
  client.POST('/v1/products/{id}/images', { params, body: { url: 'https://example.com/a.png', isPrimary: true } }),
  client.GET('/v1/products', { params: { header: { 'X-Student-RM': '12345' } } }),
  client.POST('/v1/admin/groups/{id}/seed-demo', { params }),
  client.POST('/v1/store/orders/{id}/refund', { params }),
]
