import { describe, expect, test } from 'bun:test'
import { asc, eq } from 'drizzle-orm'
import { eventSchemaName } from '../../src/features/system/openapi-webhooks'
import { eventBody } from '../../src/features/webhooks/signature'
import { EVENT_TYPES, type EventType } from '../../src/kernel/events'
import { outboxEvents } from '../../src/kernel/tables'
import { check } from '../drills/json-schema'
import { shopSetup } from '../helpers/orders'
import { apiKey, expectOk } from '../helpers/world'

const TYPES = Object.keys(EVENT_TYPES).sort()

describe('the webhooks of the OpenAPI document', () => {
  test('describe every event type: its body, its signature headers, and no credential of the API', async () => {
    const s = await shopSetup()
    const doc = await expectOk(s.call('GET', '/openapi.json'))
    expect(Object.keys(doc.webhooks).sort()).toEqual(TYPES)
    const paid = doc.webhooks['order.paid'].post
    expect(paid.operationId).toBe('onOrderPaidEvent')
    expect(paid.security).toEqual([])
    expect(paid.parameters.map((p: { name: string; in: string }) => `${p.in} ${p.name}`)).toEqual(['header X-Webhook-Event', 'header X-Webhook-Id', 'header X-Timestamp', 'header X-Signature'])
    expect(paid.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/OrderPaidEvent' })
    expect(doc.components.schemas.OrderPaidEvent.properties.data).toEqual({
      type: 'object',
      properties: {
        orderId: { type: 'string', description: "the order's id (ord_...)" },
        number: { type: 'integer', description: "the order's number in its store (#1, #2, ...)" },
        total: { type: 'number', description: "the order's total, in the store's currency, with two decimals at most" },
      },
      required: ['orderId', 'number', 'total'],
      additionalProperties: false,
    })
  })

  test("match what a shop's day sends: one event of each type, each body checked against its schema", async () => {
    const s = await shopSetup({ stock: 10, minStock: 2 })
    const store = apiKey(s.w.A.key.apiKey)
    const doc = await expectOk(s.call('GET', '/openapi.json'))
    const hook = await expectOk(s.call('POST', '/v1/webhooks', { headers: store, body: { url: 'https://10.0.0.9/hooks', events: ['*'] } }), 201)
    await expectOk(s.call('POST', `/v1/webhooks/${hook.id}/ping`, { headers: store }), 202)
    const dropped = await s.shop.buy(s.variantId)
    await expectOk(s.shop.cancel(dropped.id))
    // 8 of 10 reserved leaves 2 available, at the minStock: low stock.
    const order = await s.shop.buy(s.variantId, 8)
    await expectOk(s.shop.pay(order.id))
    await expectOk(s.panel('POST', `/${order.id}/transition`, { to: 'SHIPPED', trackingCode: 'BR123456789' }))
    await expectOk(s.shop.send('POST', `/v1/products/${s.product.id}/reviews`, { rating: 5, title: 'Ótimo' }), 201)
    await expectOk(s.panel('POST', `/${order.id}/refund`, { restock: false }))

    const events = s.deps.db.select().from(outboxEvents).where(eq(outboxEvents.storeId, s.w.A.group.storeId)).orderBy(asc(outboxEvents.createdAt), asc(outboxEvents.id)).all()
    expect([...new Set(events.map((e) => e.type))].sort()).toEqual(TYPES)
    for (const event of events) {
      const body = JSON.parse(eventBody(event))
      expect({ type: event.type, problems: check({ $ref: `#/components/schemas/${eventSchemaName(event.type as EventType)}` }, body, doc.components.schemas) }).toEqual({ type: event.type, problems: [] })
    }
    // The check can fail: a field no schema names, or a wrong type, is a problem.
    const paid = JSON.parse(eventBody(events.find((e) => e.type === 'order.paid')!))
    expect(check({ $ref: '#/components/schemas/OrderPaidEvent' }, { ...paid, data: { ...paid.data, currency: 'BRL' } }, doc.components.schemas)).toEqual(['$.data.currency: not documented'])
    expect(check({ $ref: '#/components/schemas/OrderPaidEvent' }, { ...paid, type: 'order.created' }, doc.components.schemas)).toEqual(['$.type: not the constant "order.paid"'])
  })
})
