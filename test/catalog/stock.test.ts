import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { eq } from 'drizzle-orm'
import { MAX_STOCK } from '../../src/features/catalog/model'
import { moveStock, type StockMove } from '../../src/features/catalog/stock'
import { stockMovements } from '../../src/features/catalog/tables'
import { writeTransaction } from '../../src/kernel/db/database'
import { outboxEvents } from '../../src/kernel/tables'
import { catalogSetup, expectSameNotFound, storeCtx } from '../helpers/catalog'
import { expectOk } from '../helpers/world'

type Setup = Awaited<ReturnType<typeof catalogSetup>>

/** A movement only orders make (reserve, release, sale, return), made the way the orders feature will. */
const orderMove = (t: Setup, move: Omit<StockMove, 'reason'> & { reason?: string }) =>
  writeTransaction(t.deps.db, (tx) => moveStock(tx, t.deps, storeCtx(t.w.A.group.storeId), { reason: 'order', ...move }))

const lowStockEvents = (t: Setup) =>
  t.deps.db.select().from(outboxEvents).all().filter((e) => e.type === 'product.low_stock').map((e) => e.data)

describe('POST /v1/variants/:id/stock/receive and /adjust', () => {
  test('receive adds units and records a RECEIVE with the note as its reason', async () => {
    const t = await catalogSetup()
    const v = (await t.A.createProduct({ stock: 2 })).variants[0]
    const res = await expectOk(t.A.send('POST', `/v1/variants/${v.id}/stock/receive`, { quantity: 5, note: 'NF 123' }))
    expect(res).toMatchObject({ id: v.id, stock: 7, reserved: 0, available: 7 })
    const ledger = await expectOk(t.A.send('GET', `/v1/variants/${v.id}/stock/movements`))
    expect(ledger.data).toEqual([
      { id: expect.stringMatching(/^mov_\d{20}$/), variantId: v.id, kind: 'RECEIVE', quantity: 5, stock: 7, reserved: 0, available: 7, reason: 'NF 123', orderId: null, createdAt: '2026-01-01T00:00:00.000Z' },
      { id: expect.stringMatching(/^mov_\d{20}$/), variantId: v.id, kind: 'RECEIVE', quantity: 2, stock: 2, reserved: 0, available: 2, reason: 'initial stock', orderId: null, createdAt: '2026-01-01T00:00:00.000Z' },
    ])
    expect(ledger.total).toBe(2)
    // Ids are strings with a type prefix, as everywhere; the newer movement's is the greater.
    expect(ledger.data[0].id > ledger.data[1].id).toBe(true)
  })

  test('a receive or an adjustment that would pass the most a variant holds is a 409 naming the room left, and changes nothing', async () => {
    const t = await catalogSetup()
    const v = (await t.A.createProduct({ stock: 0 })).variants[0]
    orderMove(t, { variantId: v.id, kind: 'RECEIVE', quantity: MAX_STOCK - 4, reason: 'a warehouse full' })
    for (const [path, body] of [['receive', { quantity: 5 }], ['adjust', { quantity: 5, reason: 'found in a count' }]] as const) {
      const res = await t.A.send('POST', `/v1/variants/${v.id}/stock/${path}`, body)
      expect([path, res.status, res.body.error.code, res.body.error.message]).toEqual([
        path,
        409,
        'CONFLICT',
        `Variant ${v.sku} has ${MAX_STOCK - 4} in stock, and a variant holds at most ${MAX_STOCK} units: 5 more would pass it. Add at most 4.`,
      ])
    }
    expect(await expectOk(t.A.send('GET', `/v1/variants/${v.id}`))).toMatchObject({ stock: MAX_STOCK - 4 })
  })

  test('receive of zero, a negative or a fractional quantity is a 400', async () => {
    const t = await catalogSetup()
    const v = (await t.A.createProduct()).variants[0]
    for (const quantity of [0, -1, 1.5]) {
      const res = await t.A.send('POST', `/v1/variants/${v.id}/stock/receive`, { quantity })
      expect(res.status).toBe(400)
      expect(res.body.error.details[0].path).toBe('quantity')
    }
  })

  test("one's field sent to the other is told which it takes: receive takes note, adjust reason", async () => {
    const t = await catalogSetup()
    const v = (await t.A.createProduct()).variants[0]
    const receive = await t.A.send('POST', `/v1/variants/${v.id}/stock/receive`, { quantity: 1, reason: 'x' })
    expect([receive.status, receive.body.error.details]).toEqual([400, [{ path: 'reason', message: "is an adjustment's field; a receive takes note, kept in the ledger as the reason" }]])
    const adjust = await t.A.send('POST', `/v1/variants/${v.id}/stock/adjust`, { quantity: 1, reason: 'count', note: 'x' })
    expect([adjust.status, adjust.body.error.details]).toEqual([400, [{ path: 'note', message: "is a receive's field; an adjustment takes reason, which it requires" }]])
  })

  test('adjust moves stock either way with a reason; zero or a missing reason is a 400', async () => {
    const t = await catalogSetup()
    const v = (await t.A.createProduct({ stock: 10 })).variants[0]
    expect(await expectOk(t.A.send('POST', `/v1/variants/${v.id}/stock/adjust`, { quantity: -3, reason: 'broken in transit' }))).toMatchObject({ stock: 7, available: 7 })
    expect(await expectOk(t.A.send('POST', `/v1/variants/${v.id}/stock/adjust`, { quantity: 2, reason: 'found in a count' }))).toMatchObject({ stock: 9 })
    const zero = await t.A.send('POST', `/v1/variants/${v.id}/stock/adjust`, { quantity: 0, reason: 'x' })
    expect(zero.body.error.details).toEqual([{ path: 'quantity', message: 'must not be 0' }])
    const noReason = await t.A.send('POST', `/v1/variants/${v.id}/stock/adjust`, { quantity: 1 })
    expect(noReason.body.error.details).toEqual([{ path: 'reason', message: 'reason is required: say why the stock changed, e.g. "broken in transit"' }])
    const ledger = await expectOk(t.A.send('GET', `/v1/variants/${v.id}/stock/movements?pageSize=2`))
    expect(ledger.data.map((m: any) => [m.kind, m.quantity, m.stock, m.reason])).toEqual([
      ['ADJUST', 2, 9, 'found in a count'],
      ['ADJUST', -3, 7, 'broken in transit'],
    ])
    expect(ledger.total).toBe(3)
  })

  test('adjust below the reserved units is 409 INSUFFICIENT_STOCK with the levels in details, and changes nothing', async () => {
    const t = await catalogSetup()
    const v = (await t.A.createProduct({ stock: 10 })).variants[0]
    orderMove(t, { variantId: v.id, kind: 'RESERVE', quantity: 4, orderId: 'ord_1' })
    const res = await t.A.send('POST', `/v1/variants/${v.id}/stock/adjust`, { quantity: -7, reason: 'loss' })
    expect(res.status).toBe(409)
    expect(res.body.error.code).toBe('INSUFFICIENT_STOCK')
    expect(res.body.error.message).toContain('stock cannot fall below the 4 units reserved by pending orders (cancel or wait for them), so the largest reduction now is -6')
    expect(res.body.error.details).toEqual([{ variantId: v.id, sku: v.sku, requested: 7, stock: 10, reserved: 4, available: 6 }])
    expect(await t.A.variant(v.id)).toMatchObject({ stock: 10, reserved: 4, available: 6 })
    expect((await expectOk(t.A.send('GET', `/v1/variants/${v.id}/stock/movements`))).total).toBe(2)
  })

  test("another store's variant is a 404 like an unknown id on receive, adjust and movements, and its stock stays", async () => {
    const t = await catalogSetup()
    const v = (await t.A.createProduct({ stock: 3 })).variants[0]
    const unknown = 'var_doesnotexist00000000'
    for (const [method, path, body] of [
      ['POST', 'stock/receive', { quantity: 1 }],
      ['POST', 'stock/adjust', { quantity: -1, reason: 'x' }],
      ['GET', 'stock/movements', undefined],
    ] as const) {
      expectSameNotFound(await t.B.send(method, `/v1/variants/${v.id}/${path}`, body), await t.B.send(method, `/v1/variants/${unknown}/${path}`, body), v.id, unknown)
    }
    expect((await t.A.variant(v.id)).stock).toBe(3)
  })
})

describe('movements made by orders', () => {
  test('reserve, release, sale and return move stock and reserved as orders need, each on the ledger', async () => {
    const t = await catalogSetup()
    const v = (await t.A.createProduct({ stock: 10 })).variants[0]
    const levels = () => t.A.variant(v.id).then((x: any) => [x.stock, x.reserved, x.available])
    orderMove(t, { variantId: v.id, kind: 'RESERVE', quantity: 3, orderId: 'ord_1' })
    expect(await levels()).toEqual([10, 3, 7])
    orderMove(t, { variantId: v.id, kind: 'RELEASE', quantity: 1, orderId: 'ord_1' })
    expect(await levels()).toEqual([10, 2, 8])
    orderMove(t, { variantId: v.id, kind: 'SALE', quantity: 2, orderId: 'ord_1' })
    expect(await levels()).toEqual([8, 0, 8])
    orderMove(t, { variantId: v.id, kind: 'RETURN', quantity: 1, orderId: 'ord_1' })
    expect(await levels()).toEqual([9, 0, 9])
    const ledger = await expectOk(t.A.send('GET', `/v1/variants/${v.id}/stock/movements`))
    expect(ledger.data.map((m: any) => `${m.kind} ${m.quantity} -> ${m.stock}/${m.reserved} ${m.orderId}`)).toEqual([
      'RETURN 1 -> 9/0 ord_1',
      'SALE 2 -> 8/0 ord_1',
      'RELEASE 1 -> 10/2 ord_1',
      'RESERVE 3 -> 10/3 ord_1',
      'RECEIVE 10 -> 10/0 null',
    ])
  })

  test('reserving more than available is INSUFFICIENT_STOCK; releasing more than reserved is refused', async () => {
    const t = await catalogSetup()
    const v = (await t.A.createProduct({ stock: 2 })).variants[0]
    expect(() => orderMove(t, { variantId: v.id, kind: 'RESERVE', quantity: 3 })).toThrow('Only 2 of variant')
    expect(() => orderMove(t, { variantId: v.id, kind: 'RELEASE', quantity: 1 })).toThrow('Cannot release 1 unit of variant')
    expect(await t.A.variant(v.id)).toMatchObject({ stock: 2, reserved: 0 })
  })

  test("a move of an unknown or another store's variant changes nothing; a deleted variant cannot be reserved, but what it holds is released", async () => {
    const t = await catalogSetup()
    const v = (await t.A.createProduct({ stock: 5 })).variants[0]
    const b = (await t.B.createProduct({ stock: 5 })).variants[0]
    const ledger = () => t.deps.db.select().from(stockMovements).where(eq(stockMovements.variantId, v.id)).all().length
    expect(() => orderMove(t, { variantId: b.id, kind: 'RESERVE', quantity: 1 })).toThrow(`No variant with id '${b.id}'`)
    expect(() => orderMove(t, { variantId: b.id, kind: 'RELEASE', quantity: 1 })).toThrow(`variant ${b.id} is not in store`)
    expect(await t.B.variant(b.id)).toMatchObject({ stock: 5, reserved: 0 })
    orderMove(t, { variantId: v.id, kind: 'RESERVE', quantity: 2 })
    await expectOk(t.A.send('DELETE', `/v1/products/${v.productId}`), 204)
    expect(() => orderMove(t, { variantId: v.id, kind: 'RESERVE', quantity: 1 })).toThrow(`No variant with id '${v.id}'`)
    expect(ledger()).toBe(2)
    expect(orderMove(t, { variantId: v.id, kind: 'RELEASE', quantity: 2 })).toMatchObject({ stock: 5, reserved: 0 })
  })

  test('the database itself refuses reserved above stock or below zero', async () => {
    const t = await catalogSetup()
    const v = (await t.A.createProduct({ stock: 2 })).variants[0]
    const set = (sql: string) => () => t.deps.sqlite.run(sql, [v.id])
    expect(set('update variants set reserved = 3 where id = ?')).toThrow('CHECK constraint failed')
    expect(set('update variants set reserved = -1 where id = ?')).toThrow('CHECK constraint failed')
    expect(set('update variants set stock = -1 where id = ?')).toThrow('CHECK constraint failed')
  })
})

describe('product.low_stock', () => {
  test('fires once when available falls from above minStock to it or below, and again only after it recovered', async () => {
    const t = await catalogSetup()
    const p = await t.A.createProduct({ stock: 8, minStock: 5 })
    const v = p.variants[0]
    const adjust = (quantity: number) => expectOk(t.A.send('POST', `/v1/variants/${v.id}/stock/adjust`, { quantity, reason: 'test' }))
    await adjust(-2) // 6: still above
    expect(lowStockEvents(t)).toEqual([])
    await adjust(-1) // 5: at minStock, crosses
    expect(lowStockEvents(t)).toEqual([{ productId: p.id, variantId: v.id, sku: v.sku, available: 5, minStock: 5 }])
    await adjust(-2) // 3: already below, no new event
    orderMove(t, { variantId: v.id, kind: 'RESERVE', quantity: 1 })
    expect(lowStockEvents(t)).toHaveLength(1)
    await expectOk(t.A.send('POST', `/v1/variants/${v.id}/stock/receive`, { quantity: 10 })) // 12 available
    orderMove(t, { variantId: v.id, kind: 'RESERVE', quantity: 8 }) // 4: crosses again, by a reservation
    expect(lowStockEvents(t)).toEqual([
      { productId: p.id, variantId: v.id, sku: v.sku, available: 5, minStock: 5 },
      { productId: p.id, variantId: v.id, sku: v.sku, available: 4, minStock: 5 },
    ])
  })
})

describe('the stock ledger', () => {
  type Command = { kind: 'RECEIVE' | 'ADJUST' | 'RESERVE' | 'RELEASE'; quantity: number }
  const command: fc.Arbitrary<Command> = fc.oneof(
    fc.record({ kind: fc.constant('RECEIVE' as const), quantity: fc.integer({ min: 1, max: 20 }) }),
    fc.record({ kind: fc.constant('ADJUST' as const), quantity: fc.integer({ min: -20, max: 20 }).filter((q) => q !== 0) }),
    fc.record({ kind: fc.constant('RESERVE' as const), quantity: fc.integer({ min: 1, max: 10 }) }),
    fc.record({ kind: fc.constant('RELEASE' as const), quantity: fc.integer({ min: 1, max: 10 }) }),
  )
  const EFFECT = { RECEIVE: [1, 0], ADJUST: [1, 0], RESERVE: [0, 1], RELEASE: [0, -1], SALE: [-1, -1], RETURN: [1, 0] } as const

  test('replays to the current levels for a variant after a random sequence of receives and adjusts', async () => {
    const t = await catalogSetup()
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 15 }), fc.array(command, { maxLength: 12 }), async (initial, commands) => {
        const v = (await t.A.createProduct({ stock: initial })).variants[0]
        let refused = 0
        for (const c of commands) {
          if (c.kind === 'RECEIVE') await expectOk(t.A.send('POST', `/v1/variants/${v.id}/stock/receive`, { quantity: c.quantity }))
          else if (c.kind === 'ADJUST') {
            const res = await t.A.send('POST', `/v1/variants/${v.id}/stock/adjust`, { quantity: c.quantity, reason: 'random' })
            if (res.status === 409) refused++
            else expect(res.status).toBe(200)
          } else {
            try {
              orderMove(t, { variantId: v.id, kind: c.kind, quantity: c.quantity })
            } catch {
              refused++
            }
          }
        }
        const ledger = await expectOk(t.A.send('GET', `/v1/variants/${v.id}/stock/movements?pageSize=100`))
        const rows = [...ledger.data].reverse()
        expect(rows).toHaveLength(commands.length - refused + (initial > 0 ? 1 : 0))
        let [stock, reserved] = [0, 0]
        for (const m of rows) {
          const [s, r] = EFFECT[m.kind as keyof typeof EFFECT]
          stock += s * m.quantity
          reserved += r * m.quantity
          expect([m.stock, m.reserved]).toEqual([stock, reserved])
          expect(0 <= reserved && reserved <= stock).toBe(true)
        }
        const current = await t.A.variant(v.id)
        expect([current.stock, current.reserved, current.available]).toEqual([stock, reserved, stock - reserved])
      }),
      { numRuns: 40 },
    )
  })
})
