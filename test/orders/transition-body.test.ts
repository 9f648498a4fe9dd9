import { describe, expect, test } from 'bun:test'
import { expectOk } from '../helpers/world'
import { shopSetup } from '../helpers/orders'

const MESSAGE =
  'to must be CANCELLED, SHIPPED or DELIVERED; an order becomes PENDING only at checkout, PAID by POST /v1/orders/:id/pay, REFUNDED by POST /v1/store/orders/:id/refund'

describe('the transition body', () => {
  test('to PENDING, PAID or REFUNDED is a 400 naming the targets a transition reaches and the refund route; the order is unchanged', async () => {
    const s = await shopSetup()
    const order = await s.shop.buy(s.variantId)
    await expectOk(s.shop.pay(order.id))
    for (const to of ['PENDING', 'PAID', 'REFUNDED']) {
      const res = await s.panel('POST', `/${order.id}/transition`, { to })
      expect([to, res.status, res.body.error.code, res.body.error.details]).toEqual([to, 400, 'VALIDATION_ERROR', [{ path: 'to', message: MESSAGE }]])
    }
    expect((await s.shop.order(order.id)).status).toBe('PAID')
  })

  test('the document offers only the targets a transition reaches, and says how the others are reached', async () => {
    const s = await shopSetup()
    const doc = (await s.call('GET', '/openapi.json')).body
    const to = doc.paths['/v1/store/orders/{id}/transition'].post.requestBody.content['application/json'].schema.properties.to
    expect(to).toEqual({ type: 'string', enum: ['CANCELLED', 'SHIPPED', 'DELIVERED'], description: MESSAGE })
  })
})
