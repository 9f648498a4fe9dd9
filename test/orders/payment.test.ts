import { describe, expect, test } from 'bun:test'
import { storedKey, withIdempotency } from '../../src/features/orders/idempotency'
import { crc16 } from '../../src/features/orders/pix'
import { idempotencyKeys, payments } from '../../src/features/orders/tables'
import { eq } from 'drizzle-orm'
import { admin, apiKey, bearer, expectOk } from '../helpers/world'
import { eventsOf, expectLedgerConsistent, levels, registerBuyer, shopSetup } from '../helpers/orders'

const paymentsOf = (deps: Parameters<typeof levels>[0], orderId: string) => deps.db.select().from(payments).where(eq(payments.orderId, orderId)).all()

describe('POST /v1/orders/:id/pay', () => {
  test('approves by default: the order is PAID, the reservation becomes a sale, order.paid carries orderId and total', async () => {
    const s = await shopSetup()
    const order = await s.shop.buy(s.variantId, 3)
    const paid = await expectOk(s.shop.pay(order.id, { method: 'CREDIT_CARD', installments: 3 }))
    expect(paid.status).toBe('PAID')
    expect(paid.expiresAt).toBeNull()
    expect(paid.payments).toEqual([
      { id: expect.stringMatching(/^pay_/), method: 'CREDIT_CARD', status: 'APPROVED', amount: 59.97, installments: 3, pixCode: null, createdAt: '2026-01-01T00:00:00.000Z' },
    ])
    expect(levels(s.deps, s.variantId)).toEqual({ stock: 7, reserved: 0 })
    expect(expectLedgerConsistent(s.deps, s.variantId).at(-1)).toMatchObject({ kind: 'SALE', quantity: 3, orderId: order.id })
    expect(eventsOf(s.deps, s.w.A.group.storeId, 'order.paid')).toEqual([{ orderId: order.id, number: 1, total: 59.97 }])
  })

  test('PIX gets a simulated copy-and-paste code holding the amount', async () => {
    const s = await shopSetup()
    const order = await s.shop.buy(s.variantId, 3)
    const paid = await expectOk(s.shop.pay(order.id, { method: 'PIX' }))
    const code: string = paid.payments[0].pixCode
    expect(code).toStartWith('000201')
    expect(code).toContain('br.gov.bcb.pix')
    expect(code).toContain('540559.97')
    expect(code).toMatch(/6304[0-9A-F]{4}$/)
    // The check a PIX app verifies: CRC-16/CCITT-FALSE of everything before it.
    expect(code.slice(-4)).toBe(crc16(code.slice(0, -4)))
  })

  test("a PIX code's check is CRC-16/CCITT-FALSE: the algorithm's check value, and the example code of the BR Code manual", () => {
    expect(crc16('123456789')).toBe('29B1')
    expect(crc16('00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***6304')).toBe('1D3D')
  })

  test('simulate "decline" is 402 PAYMENT_DECLINED: a DECLINED payment is recorded, the order stays PENDING with its reservation', async () => {
    const s = await shopSetup()
    const order = await s.shop.buy(s.variantId, 2)
    const res = await s.shop.pay(order.id, { method: 'CREDIT_CARD', simulate: 'decline' })
    expect(res.status).toBe(402)
    expect(res.body.error.code).toBe('PAYMENT_DECLINED')
    expect(res.body.error.message).toContain('stays PENDING')
    const after = await s.shop.order(order.id)
    expect(after.status).toBe('PENDING')
    expect(after.payments).toMatchObject([{ status: 'DECLINED', amount: 39.98, method: 'CREDIT_CARD' }])
    expect(levels(s.deps, s.variantId)).toEqual({ stock: 10, reserved: 2 })
    expect(eventsOf(s.deps, s.w.A.group.storeId, 'order.paid')).toEqual([])
    // Paying again without simulate approves it.
    const paid = await expectOk(s.shop.pay(order.id))
    expect(paid.payments.map((p: any) => p.status)).toEqual(['DECLINED', 'APPROVED'])
  })

  test('a bad method, simulate or installments is a 400 naming the field', async () => {
    const s = await shopSetup()
    const order = await s.shop.buy(s.variantId)
    for (const [body, path] of [[{ method: 'BOLETO' }, 'method'], [{ method: 'PIX', simulate: 'approve' }, 'simulate'], [{ method: 'CREDIT_CARD', installments: 13 }, 'installments'], [{}, 'method']] as const) {
      const res = await s.shop.pay(order.id, body)
      expect(res.status).toBe(400)
      expect(res.body.error.details[0].path).toBe(path)
    }
  })

  test('PIX with installments other than 1 is a 400 saying PIX has no installments, and records nothing; 1 is accepted', async () => {
    const s = await shopSetup()
    const order = await s.shop.buy(s.variantId)
    const refused = await s.shop.pay(order.id, { method: 'PIX', installments: 3 })
    expect(refused.status).toBe(400)
    expect(refused.body.error).toEqual({
      code: 'VALIDATION_ERROR',
      message: 'Invalid request body: installments: PIX has no installments: leave installments out or send 1 (installments are for CREDIT_CARD). The expected shape of this route is in /docs.',
      details: [{ path: 'installments', message: 'PIX has no installments: leave installments out or send 1 (installments are for CREDIT_CARD)' }],
    })
    expect(paymentsOf(s.deps, order.id)).toEqual([])
    expect((await s.shop.order(order.id)).status).toBe('PENDING')
    const paid = await expectOk(s.shop.pay(order.id, { method: 'PIX', installments: 1 }))
    expect(paid.payments.map((p: any) => [p.method, p.status, p.installments])).toEqual([['PIX', 'APPROVED', 1]])
  })

  test('paying a PAID order again without a key is 409 INVALID_TRANSITION and records nothing', async () => {
    const s = await shopSetup()
    const order = await s.shop.buy(s.variantId)
    await expectOk(s.shop.pay(order.id))
    const again = await s.shop.pay(order.id)
    expect(again.status).toBe(409)
    expect(again.body.error.code).toBe('INVALID_TRANSITION')
    expect(paymentsOf(s.deps, order.id)).toHaveLength(1)
  })
})

describe('Idempotency-Key', () => {
  test('a repeat with the same key and body replays the first answer instead of paying twice', async () => {
    const s = await shopSetup()
    const order = await s.shop.buy(s.variantId)
    const first = await s.shop.pay(order.id, { method: 'PIX' }, 'key-1')
    const second = await s.shop.pay(order.id, { method: 'PIX' }, 'key-1')
    expect(first.status).toBe(200)
    expect(second.status).toBe(200)
    expect(second.body).toEqual(first.body)
    expect(second.headers.get('idempotent-replayed')).toBe('true')
    expect(first.headers.get('idempotent-replayed')).toBeNull()
    expect(paymentsOf(s.deps, order.id)).toHaveLength(1)
  })

  test('a browser app on another host can read Idempotent-Replayed: CORS exposes it on the replayed answer', async () => {
    const s = await shopSetup()
    const order = await s.shop.buy(s.variantId)
    const origin = { origin: 'http://192.168.0.20:5173' }
    const preflight = await s.call('OPTIONS', `/v1/orders/${order.id}/pay`, {
      headers: { ...origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, x-api-key, authorization, idempotency-key' },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-headers')).toContain('idempotency-key')
    const pay = () => s.shop.send('POST', `/v1/orders/${order.id}/pay`, { method: 'PIX' }, { ...origin, 'idempotency-key': 'cors-1' })
    const [first, replayed] = [await pay(), await pay()]
    expect([first.status, replayed.status]).toEqual([200, 200])
    expect(replayed.headers.get('idempotent-replayed')).toBe('true')
    for (const res of [first, replayed]) {
      expect(res.headers.get('access-control-allow-origin')).toBe('*')
      expect(res.headers.get('access-control-expose-headers')!.split(', ')).toContain('Idempotent-Replayed')
    }
  })

  test('a declined first answer is replayed as the same 402, and the replay counts as an error in the activity too', async () => {
    const s = await shopSetup()
    const order = await s.shop.buy(s.variantId)
    const errors = async () => (await expectOk(s.call('GET', `/v1/admin/activity?groupId=${s.w.A.group.id}`, { headers: admin }))).groups[0].errors
    const before = await errors()
    const first = await s.shop.pay(order.id, { method: 'PIX', simulate: 'decline' }, 'key-d')
    const second = await s.shop.pay(order.id, { method: 'PIX', simulate: 'decline' }, 'key-d')
    expect([first.status, second.status]).toEqual([402, 402])
    expect(second.headers.get('idempotent-replayed')).toBe('true')
    expect(second.body).toEqual(first.body)
    expect(paymentsOf(s.deps, order.id)).toHaveLength(1)
    expect((await errors()) - before).toBe(2)
  })

  test('the same key with a different body is 422 IDEMPOTENCY_KEY_REUSED', async () => {
    const s = await shopSetup()
    const order = await s.shop.buy(s.variantId)
    expect((await s.shop.pay(order.id, { method: 'PIX', simulate: 'decline' }, 'key-2')).status).toBe(402)
    const other = await s.shop.pay(order.id, { method: 'PIX' }, 'key-2')
    expect(other.status).toBe(422)
    expect(other.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED')
    const otherOrder = await s.shop.buy(s.variantId)
    expect((await s.shop.pay(otherOrder.id, { method: 'PIX', simulate: 'decline' }, 'key-2')).status).toBe(422)
  })

  test('two stores never share a key, and a key lives 24 hours', async () => {
    const s = await shopSetup()
    const order = await s.shop.buy(s.variantId)
    await s.shop.pay(order.id, { method: 'PIX', simulate: 'decline' }, 'shared')
    // Store B may use the same key for its own payment.
    const b = await s.call('POST', '/v1/products', { headers: apiKey(s.w.B.key.apiKey), body: { name: 'B', sku: 'B-1', price: 1, stock: 1, state: 'PUBLISHED' } })
    const bHeaders = { ...apiKey(s.w.B.key.apiKey), ...bearer(s.w.B.customer.token) }
    await expectOk(s.call('POST', '/v1/cart/items', { headers: bHeaders, body: { variantId: b.body.variants[0].id, quantity: 1 } }))
    const bOrder = await expectOk(s.call('POST', '/v1/orders/checkout', { headers: bHeaders }), 201)
    const bPaid = await s.call('POST', `/v1/orders/${bOrder.id}/pay`, { headers: { ...bHeaders, 'idempotency-key': 'shared' }, body: { method: 'PIX' } })
    expect(bPaid.status).toBe(200)
    // Within 24 h the key still belongs to the first request; after that it is new again, and the sweep forgets it.
    s.clock.advance(24 * 60 * 60 * 1000 - 1)
    const fresh = await s.shop.buy(s.variantId)
    expect((await s.shop.pay(fresh.id, { method: 'PIX' }, 'shared')).status).toBe(422)
    s.clock.advance(2)
    const paid = await s.shop.pay(fresh.id, { method: 'PIX' }, 'shared')
    expect(paid.status).toBe(200)
    expect(paid.body.status).toBe('PAID')
    s.clock.advance(24 * 60 * 60 * 1000 + 1)
    await s.deps.retention.tick()
    expect(s.deps.db.select().from(idempotencyKeys).all()).toEqual([])
  })

  test('a key over 255 characters is a 400', async () => {
    const s = await shopSetup()
    const order = await s.shop.buy(s.variantId)
    const res = await s.shop.pay(order.id, { method: 'PIX' }, 'k'.repeat(256))
    expect(res.status).toBe(400)
    expect(res.body.error.message).toContain('255')
    expect(paymentsOf(s.deps, order.id)).toHaveLength(0)
  })

  test('concurrent pays with the same key: exactly one payment; the others replay it or are 409 IDEMPOTENCY_IN_PROGRESS', async () => {
    const s = await shopSetup()
    const order = await s.shop.buy(s.variantId, 2)
    const results = await Promise.all(Array.from({ length: 10 }, () => s.shop.pay(order.id, { method: 'PIX' }, 'same-key')))
    const statuses = results.map((r) => (r.status === 409 ? r.body.error.code : r.status))
    expect(statuses.filter((x) => x === 200).length).toBeGreaterThanOrEqual(1)
    expect(statuses.every((x) => x === 200 || x === 'IDEMPOTENCY_IN_PROGRESS')).toBe(true)
    expect(statuses).toContain('IDEMPOTENCY_IN_PROGRESS')
    expect(paymentsOf(s.deps, order.id)).toHaveLength(1)
    expect(levels(s.deps, s.variantId)).toEqual({ stock: 8, reserved: 0 })
    // Once finished, a repeat gets the first answer.
    const later = await s.shop.pay(order.id, { method: 'PIX' }, 'same-key')
    expect(later.status).toBe(200)
    expect(later.body.payments).toHaveLength(1)
  })

  test('concurrent pays without a key, or with different keys: exactly one payment, the others 409 INVALID_TRANSITION', async () => {
    const s = await shopSetup()
    const order = await s.shop.buy(s.variantId, 2)
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => s.shop.pay(order.id, { method: 'PIX' }, i % 2 ? `k-${i}` : undefined)))
    expect(results.filter((r) => r.status === 200)).toHaveLength(1)
    expect(results.filter((r) => r.status === 409).map((r) => r.body.error.code)).toEqual(Array(9).fill('INVALID_TRANSITION'))
    expect(paymentsOf(s.deps, order.id)).toHaveLength(1)
    expect(levels(s.deps, s.variantId)).toEqual({ stock: 8, reserved: 0 })
    expect(eventsOf(s.deps, s.w.A.group.storeId, 'order.paid')).toHaveLength(1)
    expectLedgerConsistent(s.deps, s.variantId)
  })

  test('two customers of a store may use the same key: each pays their own order once and gets their own answer again', async () => {
    const s = await shopSetup()
    const other = await registerBuyer(s.call, s.w.A.key.apiKey, 'other@example.com')
    const mine = await s.shop.buy(s.variantId)
    const theirs = await other.buy(s.variantId)
    const first = await s.shop.pay(mine.id, { method: 'PIX' }, 'order-1')
    const second = await other.pay(theirs.id, { method: 'CREDIT_CARD', installments: 2 }, 'order-1')
    expect([first.status, second.status]).toEqual([200, 200])
    expect([first.body.id, first.body.status, first.body.payments.map((p: any) => p.method)]).toEqual([mine.id, 'PAID', ['PIX']])
    expect([second.body.id, second.body.status, second.body.payments.map((p: any) => p.method)]).toEqual([theirs.id, 'PAID', ['CREDIT_CARD']])
    expect(paymentsOf(s.deps, mine.id)).toHaveLength(1)
    expect(paymentsOf(s.deps, theirs.id)).toHaveLength(1)
    // Each repeat replays its own customer's answer, and pays nothing again.
    const [myReplay, theirReplay] = [await s.shop.pay(mine.id, { method: 'PIX' }, 'order-1'), await other.pay(theirs.id, { method: 'CREDIT_CARD', installments: 2 }, 'order-1')]
    expect([myReplay.status, myReplay.headers.get('idempotent-replayed'), myReplay.body]).toEqual([200, 'true', first.body])
    expect([theirReplay.status, theirReplay.headers.get('idempotent-replayed'), theirReplay.body]).toEqual([200, 'true', second.body])
    expect(paymentsOf(s.deps, mine.id)).toHaveLength(1)
    expect(paymentsOf(s.deps, theirs.id)).toHaveLength(1)
    // Within one customer the key is still bound to its first request.
    const reused = await other.pay(theirs.id, { method: 'PIX' }, 'order-1')
    expect([reused.status, reused.body.error.code]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED'])
    expect(reused.body.error.message).toBe('You already used this Idempotency-Key in the last 24 h for a different request (another order, method or options). Use a new key for a new payment.')
    expect(s.deps.db.select({ key: idempotencyKeys.key }).from(idempotencyKeys).all().map((r) => r.key).sort()).toEqual(
      [`${s.w.A.customer.id}\norder-1`, `${other.customer.id}\norder-1`].sort(),
    )
  })

  test('a key stored before keys were per customer still answers its own customer for its 24 h, and no other', async () => {
    const s = await shopSetup()
    const order = await s.shop.buy(s.variantId)
    const paid = await expectOk(s.shop.pay(order.id, { method: 'PIX' }))
    // The row as an earlier build wrote it: the key as sent, the customer named in the fingerprint.
    const fingerprint = JSON.stringify({ customer: s.w.A.customer.id, orderId: order.id, method: 'PIX', simulate: null, installments: 1 })
    s.deps.db
      .insert(idempotencyKeys)
      .values({ storeId: s.w.A.group.storeId, key: 'before', fingerprint, responseStatus: 200, responseBody: JSON.stringify(paid), createdAt: s.clock.now() })
      .run()
    const replay = await s.shop.pay(order.id, { method: 'PIX' }, 'before')
    expect([replay.status, replay.headers.get('idempotent-replayed'), replay.body]).toEqual([200, 'true', paid])
    const mismatch = await s.shop.pay(order.id, { method: 'CREDIT_CARD' }, 'before')
    expect([mismatch.status, mismatch.body.error.code]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED'])
    const other = await registerBuyer(s.call, s.w.A.key.apiKey, 'other@example.com')
    const theirs = await other.buy(s.variantId)
    const own = await other.pay(theirs.id, { method: 'PIX' }, 'before')
    expect([own.status, own.body.id, own.headers.get('idempotent-replayed')]).toEqual([200, theirs.id, null])
    expect(paymentsOf(s.deps, order.id)).toHaveLength(1)
    // Past its 24 h the old row is free like any other: the customer's key is then stored per customer.
    s.clock.advance(24 * 60 * 60 * 1000 + 1)
    const fresh = await s.shop.buy(s.variantId)
    expect((await s.shop.pay(fresh.id, { method: 'PIX' }, 'before')).status).toBe(200)
    expect(s.deps.db.select({ key: idempotencyKeys.key }).from(idempotencyKeys).all().map((r) => r.key).sort()).toEqual(
      [`${s.w.A.customer.id}\nbefore`, `${other.customer.id}\nbefore`].sort(),
    )
  })

  test('without a customer a key is the store\'s: it never meets a customer\'s key of the same text, nor another store\'s', async () => {
    const s = await shopSetup()
    const storeA = s.w.A.group.storeId
    const storeB = s.w.B.group.storeId
    let runs = 0
    const answer = (body: unknown) => async () => (runs++, { status: 200, body })
    const storeScope = { storeId: storeA, customerId: null }
    const customerScope = { storeId: storeA, customerId: s.w.A.customer.id }
    expect(await withIdempotency(s.deps, storeScope, 'k', { what: 1 }, answer('store'))).toEqual({ status: 200, body: 'store' })
    expect(await withIdempotency(s.deps, customerScope, 'k', { what: 2 }, answer('customer'))).toEqual({ status: 200, body: 'customer' })
    expect(await withIdempotency(s.deps, { storeId: storeB, customerId: null }, 'k', { what: 3 }, answer('store B'))).toEqual({ status: 200, body: 'store B' })
    expect(runs).toBe(3)
    const replayed = (await withIdempotency(s.deps, storeScope, 'k', { what: 1 }, answer('again'))) as Response
    expect([replayed.status, replayed.headers.get('idempotent-replayed'), await replayed.json()]).toEqual([200, 'true', 'store'])
    await expect(withIdempotency(s.deps, storeScope, 'k', { what: 2 }, answer('other'))).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' })
    expect(runs).toBe(3)
    expect(s.deps.db.select({ storeId: idempotencyKeys.storeId, key: idempotencyKeys.key }).from(idempotencyKeys).all()).toEqual(
      expect.arrayContaining([
        { storeId: storeA, key: 'k' },
        { storeId: storeA, key: `${s.w.A.customer.id}\nk` },
        { storeId: storeB, key: 'k' },
      ]),
    )
  })

  test('a claim left without an answer (a crash mid-payment) is 409 IDEMPOTENCY_IN_PROGRESS for a minute, then the request may run', async () => {
    const s = await shopSetup()
    const order = await s.shop.buy(s.variantId)
    const fingerprint = JSON.stringify({ customer: s.w.A.customer.id, orderId: order.id, method: 'PIX', simulate: null, installments: 1 })
    const key = storedKey({ storeId: s.w.A.group.storeId, customerId: s.w.A.customer.id }, 'crashed')
    s.deps.db.insert(idempotencyKeys).values({ storeId: s.w.A.group.storeId, key, fingerprint, createdAt: s.clock.now() }).run()
    const running = await s.shop.pay(order.id, { method: 'PIX' }, 'crashed')
    expect(running.status).toBe(409)
    expect(running.body.error.code).toBe('IDEMPOTENCY_IN_PROGRESS')
    expect(paymentsOf(s.deps, order.id)).toHaveLength(0)
    s.clock.advance(60_001)
    const retried = await s.shop.pay(order.id, { method: 'PIX' }, 'crashed')
    expect(retried.status).toBe(200)
    expect(retried.body.status).toBe('PAID')
    expect((await s.shop.pay(order.id, { method: 'PIX' }, 'crashed')).headers.get('idempotent-replayed')).toBe('true')
  })
})
