import { describe, expect, test } from 'bun:test'
import { expectOk } from '../helpers/world'
import { shopSetup } from '../helpers/orders'

const NUMBER_MESSAGE = (sent: string) =>
  `'${sent}' looks like an order number. Numbers are for people (receipts, the panel); the API takes the order's id (ord_...): ` +
  "the id field of the order in the checkout's answer, in GET /v1/orders (the customer's orders) or in GET /v1/store/orders (all of the store's)."

describe('an order number where the order id belongs', () => {
  test("every route that names an order answers 404 saying numbers are for people and where the ord_ id is, and the order's id works", async () => {
    const s = await shopSetup()
    await expectOk(s.shop.add(s.variantId))
    const order = await expectOk(s.shop.checkout(), 201)
    expect(order.number).toBe(1)
    const sent = String(order.number)
    const answers = [
      await s.shop.send('GET', `/v1/orders/${sent}`),
      await s.shop.pay(sent),
      await s.shop.cancel(sent),
      await s.panel('GET', `/${sent}`),
      await s.panel('POST', `/${sent}/transition`, { to: 'SHIPPED' }),
      await s.panel('POST', `/${sent}/refund`, {}),
    ]
    expect(answers.map((a) => [a.status, a.body.error.code, a.body.error.message])).toEqual(answers.map(() => [404, 'NOT_FOUND', NUMBER_MESSAGE(sent)]))
    // '#1', as a receipt writes it, is a number too.
    const hash = await s.panel('GET', `/${encodeURIComponent('#1')}`)
    expect(hash.body.error.message).toBe(NUMBER_MESSAGE('#1'))
    // The order's id, as the message says, finds it.
    expect((await s.shop.order(order.id)).number).toBe(1)
  })

  test('an unknown id that is not a number keeps the plain not-found message', async () => {
    const s = await shopSetup()
    const res = await s.panel('GET', '/ord_nothere')
    expect(res.status).toBe(404)
    expect(res.body.error.message).toBe("No order with id 'ord_nothere' in this store. Check the id; GET /v1/orders lists your orders (GET /v1/store/orders all of the store\u2019s).")
  })
})
