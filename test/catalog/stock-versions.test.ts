import { describe, expect, test } from 'bun:test'
import { catalogReadCache } from '../../src/features/catalog/read-cache'
import { STOCK_CHANGES_KEPT } from '../../src/features/catalog/tables'
import { moveStock } from '../../src/features/catalog/stock'
import { writeTransaction } from '../../src/kernel/db/database'
import { bodyText, createTestDeps } from '../helpers/app'
import { storeCtx } from '../helpers/catalog'
import { shopSetup } from '../helpers/orders'
import { expectOk } from '../helpers/world'

type Shop = Awaited<ReturnType<typeof shopSetup>>

/**
 * A change of stock drops only the cached bodies that show the product (read-cache.ts): these check
 * that no cached list or detail ever shows old stock or price, whoever changes it, and that the
 * bodies of other products stay cached.
 */

/** What a shop front sees of a product, in the list and in its detail: each read fills or hits the cache. */
async function seen(s: Shop, productId: string) {
  const list = await s.catalog.list('pageSize=100')
  const inList = list.data.find((p: { id: string }) => p.id === productId)
  const detail = await s.catalog.product(productId)
  const levels = (p: any) => ({ price: p.price, stock: p.stock, reserved: p.variants[0].reserved, available: p.variants[0].available })
  return { list: levels(inList), detail: levels(detail) }
}

const both = (levels: { price: number; stock: number; reserved: number; available: number }) => ({ list: levels, detail: levels })

describe('cached product reads after a change of stock or price', () => {
  test('a checkout, a pay, a cancel, an expiry, a receive and an adjust each show at once in cached lists and details', async () => {
    const s = await shopSetup()
    const p = s.product.id
    expect(await seen(s, p)).toEqual(both({ price: 19.99, stock: 10, reserved: 0, available: 10 }))
    const order = await s.shop.buy(s.variantId, 3)
    expect(await seen(s, p)).toEqual(both({ price: 19.99, stock: 7, reserved: 3, available: 7 }))
    await expectOk(s.shop.pay(order.id))
    expect(await seen(s, p)).toEqual(both({ price: 19.99, stock: 7, reserved: 0, available: 7 }))
    const cancelled = await s.shop.buy(s.variantId, 2)
    expect(await seen(s, p)).toEqual(both({ price: 19.99, stock: 5, reserved: 2, available: 5 }))
    await expectOk(s.shop.cancel(cancelled.id))
    expect(await seen(s, p)).toEqual(both({ price: 19.99, stock: 7, reserved: 0, available: 7 }))
    await s.shop.buy(s.variantId, 1)
    expect(await seen(s, p)).toEqual(both({ price: 19.99, stock: 6, reserved: 1, available: 6 }))
    s.clock.advance(60 * 60_000)
    expect(s.deps.orderExpiry.tick()).toBe(1)
    expect(await seen(s, p)).toEqual(both({ price: 19.99, stock: 7, reserved: 0, available: 7 }))
    await expectOk(s.catalog.send('POST', `/v1/variants/${s.variantId}/stock/receive`, { quantity: 5 }))
    expect(await seen(s, p)).toEqual(both({ price: 19.99, stock: 12, reserved: 0, available: 12 }))
    await expectOk(s.catalog.send('POST', `/v1/variants/${s.variantId}/stock/adjust`, { quantity: -4, reason: 'broken' }))
    expect(await seen(s, p)).toEqual(both({ price: 19.99, stock: 8, reserved: 0, available: 8 }))
    await expectOk(s.catalog.send('PATCH', `/v1/variants/${s.variantId}`, { price: 25 }))
    expect(await seen(s, p)).toEqual(both({ price: 25, stock: 8, reserved: 0, available: 8 }))
  })

  test('a stock change rolled back with its transaction never shows, and the next committed change does', async () => {
    const s = await shopSetup()
    const other = await s.catalog.createProduct({ state: 'PUBLISHED', stock: 4 })
    expect(await seen(s, s.product.id)).toEqual(both({ price: 19.99, stock: 10, reserved: 0, available: 10 }))
    const ctx = storeCtx(s.w.A.group.storeId)
    // A checkout that fails after reserving: its transaction takes the reservation back.
    expect(() =>
      writeTransaction(s.deps.db, (tx) => {
        moveStock(tx, s.deps, ctx, { variantId: s.variantId, kind: 'RESERVE', quantity: 3, reason: 'order' })
        throw new Error('the payment processor refused')
      }),
    ).toThrow('the payment processor refused')
    expect(await seen(s, s.product.id)).toEqual(both({ price: 19.99, stock: 10, reserved: 0, available: 10 }))
    expect(await seen(s, other.id)).toEqual(both({ price: 49.9, stock: 4, reserved: 0, available: 4 }))
    // The committed change takes the numbers the rolled-back one had used.
    await expectOk(s.catalog.send('POST', `/v1/variants/${other.variants[0].id}/stock/receive`, { quantity: 1 }))
    expect(await seen(s, other.id)).toEqual(both({ price: 49.9, stock: 5, reserved: 0, available: 5 }))
    expect(await seen(s, s.product.id)).toEqual(both({ price: 19.99, stock: 10, reserved: 0, available: 10 }))
  })

  test('a read inside a transaction neither keeps nor serves a cached body', async () => {
    const s = await shopSetup()
    const other = await s.catalog.createProduct({ stock: 1 })
    const cache = catalogReadCache(s.deps)
    const ctx = storeCtx(s.w.A.group.storeId)
    const detail = () => JSON.parse(bodyText(cache.read(ctx.storeId, s.deps.publicUrl.for(), `product ${s.product.id}`, () => ({ body: { stock: levelsNow(s) }, shows: [s.product.id] }))))
    expect(detail()).toEqual({ stock: 10 })
    expect(() =>
      writeTransaction(s.deps.db, (tx) => {
        moveStock(tx, s.deps, ctx, { variantId: s.variantId, kind: 'RESERVE', quantity: 3, reason: 'order' })
        expect(detail()).toEqual({ stock: 7 })
        throw new Error('rolled back')
      }),
    ).toThrow('rolled back')
    // Another product's stock change takes the stock version the rolled-back one had.
    await expectOk(s.catalog.send('POST', `/v1/variants/${other.variants[0].id}/stock/receive`, { quantity: 1 }))
    expect(detail()).toEqual({ stock: 10 })
  })
})

/** The product's available units, read straight from the database. */
const levelsNow = (s: Shop) => (s.deps.sqlite.query('select stock - reserved as n from variants where id = ?').get(s.variantId) as { n: number }).n

describe('which cached bodies a change drops', () => {
  test("a stock change drops the bodies that show the product and keeps the others' cached", async () => {
    const s = await shopSetup()
    s.clock.advance(1000)
    const newer = await s.catalog.createProduct({ state: 'PUBLISHED', stock: 4 })
    const cache = catalogReadCache(s.deps)
    const readAll = async () => {
      const made = cache.made
      const [first, second] = [await s.catalog.list('pageSize=1'), await s.catalog.list('pageSize=1&page=2')]
      const [detailOfNewer, detail] = [await s.catalog.product(newer.id), await s.catalog.product(s.product.id)]
      expect([first.data[0].id, second.data[0].id]).toEqual([newer.id, s.product.id])
      return { made: cache.made - made, stock: [first.data[0].stock, second.data[0].stock, detailOfNewer.stock, detail.stock] }
    }
    expect(await readAll()).toEqual({ made: 4, stock: [4, 10, 4, 10] })
    expect(await readAll()).toEqual({ made: 0, stock: [4, 10, 4, 10] })
    // An order of the older product: page 2 and its detail are made again, page 1 and the other detail are not.
    await s.shop.buy(s.variantId, 3)
    expect(await readAll()).toEqual({ made: 2, stock: [4, 7, 4, 7] })
    await expectOk(s.catalog.send('POST', `/v1/variants/${newer.variants[0].id}/stock/receive`, { quantity: 2 }))
    expect(await readAll()).toEqual({ made: 2, stock: [6, 7, 6, 7] })
    // Any other change (a price) still makes every body of the store again.
    await expectOk(s.catalog.send('PATCH', `/v1/variants/${s.variantId}`, { price: 25 }))
    expect(await readAll()).toEqual({ made: 4, stock: [6, 7, 6, 7] })
  })

  test("a store's stock changes are kept in a ring of the latest ones: a read behind by more than it keeps drops every body, one across its end only those it shows", async () => {
    const s = await shopSetup()
    const other = await s.catalog.createProduct({ state: 'PUBLISHED', stock: 4 })
    const cache = catalogReadCache(s.deps)
    const ctx = storeCtx(s.w.A.group.storeId)
    const receive = (variantId: string, times: number) =>
      writeTransaction(s.deps.db, (tx) => {
        for (let i = 0; i < times; i++) moveStock(tx, s.deps, ctx, { variantId, kind: 'RECEIVE', quantity: 1, reason: 'ring' })
      })
    const stockVersion = () => (s.deps.sqlite.query('select stock from catalog_versions where store_id = ?').get(ctx.storeId) as { stock: number }).stock
    const details = async () => {
      const made = cache.made
      const stock = [(await s.catalog.product(s.product.id)).stock, (await s.catalog.product(other.id)).stock]
      return { made: cache.made - made, stock }
    }
    expect(await details()).toEqual({ made: 2, stock: [10, 4] })
    // One change of the product, then as many of the other as the ring keeps: the first is no longer in it.
    receive(s.variantId, 1)
    receive(other.variants[0].id, STOCK_CHANGES_KEPT)
    expect(await details()).toEqual({ made: 2, stock: [11, 4 + STOCK_CHANGES_KEPT] })
    expect(await details()).toEqual({ made: 0, stock: [11, 4 + STOCK_CHANGES_KEPT] })
    // The other product's changes up to two slots before the ring's end, then three of the product, across it.
    const toEnd = (2 * STOCK_CHANGES_KEPT - 2 - (stockVersion() % STOCK_CHANGES_KEPT)) % STOCK_CHANGES_KEPT
    expect(toEnd).toBeGreaterThan(0)
    receive(other.variants[0].id, toEnd)
    const otherStock = 4 + STOCK_CHANGES_KEPT + toEnd
    expect(await details()).toEqual({ made: 1, stock: [11, otherStock] })
    receive(s.variantId, 3)
    expect(stockVersion() % STOCK_CHANGES_KEPT).toBe(1)
    expect(await details()).toEqual({ made: 1, stock: [14, otherStock] })
  })

  test('the ring the trigger writes is as large as the cache reads it', () => {
    const { database } = createTestDeps()
    const { sql } = database.sqlite.query("select sql from sqlite_master where type = 'trigger' and name = 'variants_stock_version_update'").get() as { sql: string }
    expect(sql).toContain(`stock % ${STOCK_CHANGES_KEPT},`)
  })

  test('every column of a variant raises, when updated, either the store catalog version or the product stock version', () => {
    const { database } = createTestDeps()
    const columnsOf = (trigger: string) => {
      const { sql } = database.sqlite.query("select sql from sqlite_master where type = 'trigger' and name = ?").get(trigger) as { sql: string }
      return /UPDATE OF (.+?) ON/.exec(sql)![1]!.split(',').map((c) => c.trim())
    }
    const store = columnsOf('variants_version_update')
    const stock = columnsOf('variants_stock_version_update')
    expect(stock).toEqual(['stock', 'reserved', 'updated_at'])
    const columns = (database.sqlite.query("select name from pragma_table_info('variants')").all() as { name: string }[]).map((c) => c.name)
    // A column added to variants must be named by one of them, or its changes would never reach a cached read.
    expect([...store, ...stock].sort()).toEqual(columns.sort())
  })
})
