import { describe, expect, test } from 'bun:test'
import { shopSetup } from '../helpers/orders'
import type { CallResult } from '../helpers/app'
import { admin, apiKey } from '../helpers/world'

/** The 201's Location, and what a GET of it answers with the same credential: the resource just created. */
async function followed(t: Awaited<ReturnType<typeof shopSetup>>, made: CallResult, headers: Record<string, string>) {
  expect(made.status).toBe(201)
  const location = made.headers.get('location')!
  const read = await t.call('GET', location, { headers })
  expect([read.status, read.body.id]).toEqual([200, made.body.id])
  return location
}

describe('a 201 says where the new resource is read', () => {
  test('Location is the path of the GET of what was created: product, variant, category, brand, collection, order, group', async () => {
    const t = await shopSetup()
    const key = apiKey(t.w.A.key.apiKey)
    const send = (path: string, body: unknown, headers: Record<string, string> = key) => t.call('POST', path, { headers, body })
    const product = await send('/v1/products', { name: 'Caneca', sku: 'CAN-1', price: 19.99, stock: 3 })
    expect(await followed(t, product, key)).toBe(`/v1/products/${product.body.id}`)
    const variant = await send(`/v1/products/${product.body.id}/variants`, { sku: 'CAN-2', price: 21.5, stock: 1, options: { cor: 'azul' } })
    expect(await followed(t, variant, key)).toBe(`/v1/variants/${variant.body.id}`)
    for (const kind of ['categories', 'brands', 'collections']) {
      const term = await send(`/v1/${kind}`, { name: `Nome em ${kind}` })
      expect(await followed(t, term, key)).toBe(`/v1/${kind}/${term.body.id}`)
    }
    await t.shop.add(t.variantId)
    const order = await t.shop.checkout()
    expect(await followed(t, order, t.shop.headers)).toBe(`/v1/orders/${order.body.id}`)
    const group = await send('/v1/admin/groups', { name: 'Grupo Novo', members: [{ rm: '777001', name: 'Nina' }] }, admin)
    expect(await followed(t, group, admin)).toBe(`/v1/admin/groups/${group.body.id}`)
    // A browser app reads it: the CORS answer exposes it.
    expect(product.headers.get('access-control-expose-headers')).toContain('Location')
  })

  test('a refused create carries no Location', async () => {
    const t = await shopSetup()
    const refused = await t.call('POST', '/v1/products', { headers: apiKey(t.w.A.key.apiKey), body: { name: 'Sem preço', sku: 'X-1', stock: 1 } })
    expect([refused.status, refused.headers.get('location')]).toEqual([400, null])
  })
})
