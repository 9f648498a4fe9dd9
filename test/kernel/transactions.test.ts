import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { moveStock } from '../../src/features/catalog/stock'
import { readTransaction, writeTransaction } from '../../src/kernel/db/database'
import { outboxEvents } from '../../src/kernel/tables'
import { createTestDeps } from '../helpers/app'
import { twoConnections } from '../helpers/two-connections'
import { eventData } from '../helpers/receivers'

describe('transactions', () => {
  test('a write transaction holds the write lock from its start (BEGIN IMMEDIATE), before its first statement', () => {
    const { db, otherWrites, rows } = twoConnections()
    writeTransaction(db, () => {
      expect(otherWrites).toThrow(/locked|busy/i)
    })
    otherWrites()
    expect(rows()).toEqual([99])
  })

  test('a read transaction takes no write lock: another connection writes meanwhile, and the read keeps its snapshot', () => {
    const { db, otherWrites, rows } = twoConnections()
    const seen = readTransaction(db, (tx) => {
      const before = tx.$client.query('select count(*) as n from t').get()
      otherWrites()
      const after = tx.$client.query('select count(*) as n from t').get()
      return [before, after]
    })
    expect(seen).toEqual([{ n: 0 }, { n: 0 }])
    expect(rows()).toEqual([99])
  })

  test('a write transaction commits what its work wrote, through the handle it was given', () => {
    const { db, rows } = twoConnections()
    const answer = writeTransaction(db, (tx) => {
      tx.$client.query('insert into t (n) values (1), (2)').run()
      return 'done'
    })
    expect(answer).toBe('done')
    expect(rows()).toEqual([1, 2])
  })

  test('a write transaction whose work throws leaves nothing behind, and the error reaches the caller', () => {
    const { db, rows } = twoConnections()
    expect(() =>
      writeTransaction(db, (tx) => {
        tx.$client.query('insert into t (n) values (1)').run()
        throw new Error('the rule refused it')
      }),
    ).toThrow('the rule refused it')
    expect(rows()).toEqual([])
  })

  test('a write inside a write is a savepoint: its failure undoes only its own rows', () => {
    const { db, rows } = twoConnections()
    writeTransaction(db, (tx) => {
      tx.$client.query('insert into t (n) values (1)').run()
      expect(() =>
        writeTransaction(tx, (inner) => {
          inner.$client.query('insert into t (n) values (2)').run()
          throw new Error('inner refusal')
        }),
      ).toThrow('inner refusal')
      writeTransaction(tx, (inner) => inner.$client.query('insert into t (n) values (3)').run())
    })
    expect(rows()).toEqual([1, 3])
  })

  test('a callback that returns a promise does not compile, and is refused at run time before anything commits', () => {
    const { db, rows } = twoConnections()
    expect(() =>
      // @ts-expect-error an async callback would commit at its first await
      writeTransaction(db, async (tx) => {
        tx.$client.query('insert into t (n) values (1)').run()
      }),
    ).toThrow('must be synchronous')
    // @ts-expect-error the same for reads
    expect(() => readTransaction(db, async () => 1)).toThrow('must be synchronous')
    // @ts-expect-error a promise returned without async is refused too
    expect(() => writeTransaction(db, () => Promise.resolve(1))).toThrow('must be synchronous')
    expect(rows()).toEqual([])
  })

  test('the outbox and the stock ledger write only through the handle of a write transaction', () => {
    const { deps } = createTestDeps()
    const ctx = { storeId: 'str_1', groupId: 'grp_1', actor: { type: 'secretKey', keyId: 'key_1', rm: null } } as const
    // Type checks only, never run: outside a write transaction there is no handle to give them.
    const outside = () => {
      // @ts-expect-error deps.db is not a write transaction's handle
      deps.outbox.emit(deps.db, 'str_1', 'ping', {})
      // @ts-expect-error nor is the handle of a read transaction
      readTransaction(deps.db, (db) => moveStock(db, deps, ctx, { variantId: 'var_1', kind: 'RECEIVE', quantity: 1, reason: null }))
    }
    void outside
    const id = writeTransaction(deps.db, (tx) => deps.outbox.emit(tx, 'str_1', 'ping', eventData('ping')))
    expect(deps.db.select({ id: outboxEvents.id }).from(outboxEvents).all()).toEqual([{ id }])
  })

  test('src opens transactions only through writeTransaction, readTransaction and groupedWrite', () => {
    const root = join(import.meta.dir, '../../src')
    const files = (readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).map((f) => join(root, f))
    const entryPoints = join(root, 'kernel/db/database.ts')
    const otherWays = /\.transaction\(|['"`]\s*(BEGIN|SAVEPOINT|COMMIT)\b|immediateTransaction/i
    const offenders = files.filter((f) => f !== entryPoints && otherWays.test(readFileSync(f, 'utf8'))).map((f) => relative(root, f))
    expect(offenders).toEqual([])
  })
})
