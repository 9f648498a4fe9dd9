import { describe, expect, test } from 'bun:test'
import { eq, sql } from 'drizzle-orm'
import { realpathSync } from 'node:fs'
import type { MigrationMeta } from 'drizzle-orm/migrator'
import { join } from 'node:path'
import { groupedWrite, writeTransaction } from '../../src/kernel/db/database'
import { openDatabase } from '../../src/kernel/db/open'
import { loadMigrations, migrate } from '../../src/kernel/db/migrate'
import { outboxEvents } from '../../src/kernel/tables'
import { createTestDeps } from '../helpers/app'
import { holdsOpen, namelessFilesOpen } from '../helpers/open-files'
import { tempDir } from '../helpers/temp'
import { eventData } from '../helpers/receivers'

const freshDb = () => openDatabase(join(tempDir('db'), 'storefront.db'))

describe('database', () => {
  test('opens in WAL with foreign keys, a busy timeout and a page cache of 32 MiB', () => {
    const { sqlite, close } = freshDb()
    expect(sqlite.query('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' })
    expect(sqlite.query('PRAGMA foreign_keys').get()).toEqual({ foreign_keys: 1 })
    expect(sqlite.query('PRAGMA busy_timeout').get()).toEqual({ timeout: 5000 })
    // Negative: KiB, not pages.
    expect(sqlite.query('PRAGMA cache_size').get()).toEqual({ cache_size: -32 * 1024 })
    close()
  })

  test("a grouped write's savepoint journal stays in memory, however many pages the write changes", async () => {
    const { db, sqlite, close } = freshDb()
    sqlite.exec('create table t (n integer not null, pad text not null)')
    sqlite.exec("with recursive s(n) as (select 1 union all select n + 1 from s where n < 200) insert into t select n, printf('%.1024c', 'x') from s")
    const before = namelessFilesOpen()
    let during = -1
    const first = groupedWrite(db, (tx) => tx.$client.query('update t set n = n where n = 1').run())
    // The second write of the turn runs in a savepoint, and changes every page of the table's 200 rows of 1 KB.
    const second = groupedWrite(db, (tx) => {
      tx.$client.query("update t set pad = printf('%.1024c', 'y')").run()
      during = namelessFilesOpen()
    })
    await Promise.all([first, second])
    expect(during).toBe(before)
    expect(sqlite.query('PRAGMA temp_store').get()).toEqual({ temp_store: 2 })
    expect(sqlite.query("select count(*) as n from t where pad like 'y%'").get()).toEqual({ n: 200 })
    close()
  })

  test('migrations apply once; running them again changes nothing', () => {
    const { db, sqlite, close } = freshDb()
    migrate(db)
    migrate(db)
    const applied = sqlite.query('select count(*) as n from __drizzle_migrations').get() as { n: number }
    expect(applied.n).toBe(loadMigrations().length)
    expect(sqlite.query("select name from sqlite_master where name = 'outbox_events'").get()).toEqual({ name: 'outbox_events' })
    close()
  })

  test('a failing migration leaves nothing behind (one transaction)', () => {
    const { db, sqlite, close } = freshDb()
    const broken: MigrationMeta[] = [
      { sql: ['create table first_half (id text)', 'create table oops ('], bps: true, folderMillis: 1, hash: 'x' },
    ]
    expect(() => migrate(db, broken)).toThrow()
    expect(sqlite.query("select name from sqlite_master where name = 'first_half'").get()).toBeNull()
    close()
  })

  test('close lets go of the file even while statements made through drizzle are still held', () => {
    const file = join(realpathSync(tempDir('db')), 'storefront.db')
    const { db, close } = openDatabase(file)
    migrate(db)
    // A statement held as the hot paths hold theirs (perHandle), and one run as a page of a list is.
    const held = db.select().from(outboxEvents).where(eq(outboxEvents.storeId, sql.placeholder('storeId'))).prepare()
    expect(held.all({ storeId: 'str_none' })).toEqual([])
    expect(db.select().from(outboxEvents).limit(3).all()).toEqual([])
    expect(holdsOpen(file)).toBe(true)
    close()
    // Unfinalized, they kept SQLite's connection alive after close, and with it the file: Windows then
    // refused to delete the folder a failed first start had made.
    expect(holdsOpen(file)).toBe(false)
    // Held to here, so that nothing but close could have let it go.
    expect(held).toBeDefined()
  })

  test('writeTransaction refuses an async callback instead of committing early', () => {
    const { deps } = createTestDeps()
    expect(() => writeTransaction(deps.db, (async () => 1) as never)).toThrow('must be synchronous')
  })
})

describe('event outbox', () => {
  test('emit writes the event in the caller transaction and tells listeners after commit, once for the events of a turn of the event loop', async () => {
    const { deps } = createTestDeps()
    const heard: number[] = []
    deps.outbox.onEmit(() => heard.push(deps.db.select().from(outboxEvents).all().length))
    const id = writeTransaction(deps.db, (tx) => {
      const eventId = deps.outbox.emit(tx, 'str_1', 'order.paid', eventData('order.paid', { orderId: 'ord_1' }))
      expect(heard).toEqual([]) // not yet: still inside the transaction
      return eventId
    })
    writeTransaction(deps.db, (tx) => deps.outbox.emit(tx, 'str_1', 'order.created', eventData('order.created', { orderId: 'ord_2' })))
    await Promise.resolve()
    expect(heard).toEqual([])
    await new Promise((resolve) => setImmediate(resolve))
    expect(heard).toEqual([2])
    const row = deps.db.select().from(outboxEvents).where(eq(outboxEvents.id, id)).get()!
    expect(id).toMatch(/^evt_[0-9a-z]{20}$/)
    expect(row).toEqual({
      seq: 1,
      id,
      storeId: 'str_1',
      type: 'order.paid',
      data: { orderId: 'ord_1', number: 1, total: 59.97 },
      createdAt: deps.clock.now(),
      // No endpoint of the store subscribes to it: written dispatched (webhooks/delivery.test.ts).
      dispatchedAt: deps.clock.now(),
    })
  })

  test('an event emitted in a transaction that fails is never stored', () => {
    const { deps } = createTestDeps()
    expect(() =>
      writeTransaction(deps.db, (tx) => {
        deps.outbox.emit(tx, 'str_1', 'order.cancelled', eventData('order.cancelled', { orderId: 'ord_1' }))
        throw new Error('the state change failed')
      }),
    ).toThrow('the state change failed')
    expect(deps.db.select().from(outboxEvents).all()).toEqual([])
  })
})
