import { describe, expect, test } from 'bun:test'
import { expectOk } from '../helpers/world'
import { shopSetup } from '../helpers/orders'

const MESSAGE =
  'to must be an order state: PENDING, PAID, CANCELLED, SHIPPED, DELIVERED or REFUNDED. The store moves an order to CANCELLED, SHIPPED or DELIVERED here; it becomes PENDING only at checkout, PAID by POST /v1/orders/:id/pay, REFUNDED by POST /v1/store/orders/:id/refund (asked here, those are 409 INVALID_TRANSITION)'

describe('the transition body', () => {
  test('to PAID, REFUNDED or PENDING is a state change the route does not make: 409 INVALID_TRANSITION naming the route that does; the order is unchanged', async () => {
    const s = await shopSetup()
    const pending = await s.shop.buy(s.variantId)
    const paid = await s.shop.buy(s.variantId)
    await expectOk(s.shop.pay(paid.id))
    const cases = [
      [pending.id, 'PAID', 'To make it PAID, use POST /v1/orders/:id/pay.'],
      [paid.id, 'REFUNDED', 'To make it REFUNDED, use POST /v1/store/orders/:id/refund.'],
      [paid.id, 'PENDING', 'From PAID the order can go to: SHIPPED by POST /v1/store/orders/:id/transition; REFUNDED by POST /v1/store/orders/:id/refund.'],
    ] as const
    for (const [id, to, hint] of cases) {
      const res = await s.panel('POST', `/${id}/transition`, { to })
      expect([to, res.status, res.body.error.code, res.body.error.details]).toEqual([to, 409, 'INVALID_TRANSITION', [{ orderId: id, status: id === paid.id ? 'PAID' : 'PENDING', requested: to }]])
      expect(res.body.error.message).toContain(hint)
    }
    expect([(await s.shop.order(pending.id)).status, (await s.shop.order(paid.id)).status]).toEqual(['PENDING', 'PAID'])
  })

  test('a refused move says how the order reaches that state when it cannot from here: from which states, by which route', async () => {
    const s = await shopSetup()
    const pending = await s.shop.buy(s.variantId)
    const paid = await s.shop.buy(s.variantId)
    await expectOk(s.shop.pay(paid.id))
    const message = async (id: string, to: string) => (await s.panel('POST', `/${id}/transition`, { to })).body.error.message
    expect(await message(pending.id, 'REFUNDED')).toEndWith('An order becomes REFUNDED from PAID, SHIPPED or DELIVERED, by POST /v1/store/orders/:id/refund.')
    expect(await message(pending.id, 'DELIVERED')).toEndWith('An order becomes DELIVERED from SHIPPED, by POST /v1/store/orders/:id/transition.')
    expect(await message(pending.id, 'PENDING')).toEndWith('It is PENDING already.')
    expect(await message(paid.id, 'PENDING')).toEndWith('Only checkout makes an order PENDING.')
    expect(await message(paid.id, 'PAID')).toEndWith('It is PAID already.')
  })

  test('a to that is no order state is a 400 listing the states and what the route does', async () => {
    const s = await shopSetup()
    const order = await s.shop.buy(s.variantId)
    for (const to of ['SENT', 'paid', 7]) {
      const res = await s.panel('POST', `/${order.id}/transition`, { to })
      expect([to, res.status, res.body.error.code, res.body.error.details]).toEqual([to, 400, 'VALIDATION_ERROR', [{ path: 'to', message: MESSAGE }]])
    }
    expect((await s.shop.order(order.id)).status).toBe('PENDING')
  })

  test('the document offers every order state for to, and says which moves the route makes', async () => {
    const s = await shopSetup()
    const doc = (await s.call('GET', '/openapi.json')).body
    const to = doc.paths['/v1/store/orders/{id}/transition'].post.requestBody.content['application/json'].schema.properties.to
    expect(to).toEqual({ type: 'string', enum: ['PENDING', 'PAID', 'CANCELLED', 'SHIPPED', 'DELIVERED', 'REFUNDED'], description: MESSAGE })
  })
})
