import { describe, expect, test } from 'bun:test'
import { groupedWrite, readTransaction, writeTransaction, type Db } from '../../src/kernel/db/database'
import { twoConnections } from '../helpers/two-connections'

// The other connection sees only what is committed: a row it reads has been committed.

const insert = (db: Db, n: number) => db.$client.query('insert into t (n) values (?)').run(n)
const turn = () => new Promise((resolve) => setImmediate(resolve))

describe('grouped writes', () => {
  test('the grouped writes of one turn commit in one transaction, and each settles only after that commit', async () => {
    const { db, rows } = twoConnections()
    const seenAtAnswer: number[][] = []
    const writes = [1, 2, 3].map((n) =>
      groupedWrite(db, (tx) => {
        insert(tx, n)
        return n * 10
      }).then((answer) => {
        seenAtAnswer.push(rows())
        return answer
      }),
    )
    // All three are written, in one open transaction: nothing is committed yet.
    expect(db.$client.inTransaction).toBe(true)
    expect(rows()).toEqual([])
    expect(await Promise.all(writes)).toEqual([10, 20, 30])
    expect(seenAtAnswer).toEqual([
      [1, 2, 3],
      [1, 2, 3],
      [1, 2, 3],
    ])
    expect(db.$client.inTransaction).toBe(false)
  })

  test("a grouped write that fails rolls back its own writes only: the others' commit, and it settles with its own error after the commit", async () => {
    const { db, rows } = twoConnections()
    const first = groupedWrite(db, (tx) => insert(tx, 1))
    const failing = groupedWrite(db, (tx) => {
      insert(tx, 2)
      throw new Error('refused after writing')
    }).catch((e: Error) => ({ error: e.message, committed: rows() }))
    const third = groupedWrite(db, (tx) => insert(tx, 3))
    expect(await failing).toEqual({ error: 'refused after writing', committed: [1, 3] })
    await Promise.all([first, third])
    expect(rows()).toEqual([1, 3])
  })

  test('the first write of a group that fails is refused at once and leaves nothing; the next write opens the group', async () => {
    const { db, rows } = twoConnections()
    const first = groupedWrite(db, (tx) => {
      insert(tx, 1)
      throw new Error('refused')
    })
    expect(db.$client.inTransaction).toBe(false)
    const second = groupedWrite(db, (tx) => insert(tx, 2))
    await expect(first).rejects.toThrow('refused')
    await second
    expect(rows()).toEqual([2])
  })

  test('when the COMMIT itself fails, no write of the group stays and every one is refused with its reason', async () => {
    const { db, rows } = twoConnections()
    db.$client.exec('PRAGMA foreign_keys = ON')
    db.$client.exec('create table parent (id integer primary key)')
    db.$client.exec('create table child (parent_id integer references parent (id) deferrable initially deferred)')
    // A deferred foreign key is checked at COMMIT: the way to make a COMMIT fail here (in the server, a
    // full disk or an I/O error).
    const writes = [
      groupedWrite(db, (tx) => insert(tx, 1)),
      groupedWrite(db, (tx) => tx.$client.query('insert into child (parent_id) values (42)').run()),
      groupedWrite(db, (tx) => insert(tx, 3)),
    ].map((w) => w.then(() => 'committed', (e: Error) => e.message))
    expect(await Promise.all(writes)).toEqual(Array(3).fill('FOREIGN KEY constraint failed'))
    expect(rows()).toEqual([])
    expect(db.$client.inTransaction).toBe(false)
    await groupedWrite(db, (tx) => insert(tx, 4))
    expect(rows()).toEqual([4])
  })

  test('a transaction of other code commits the open group first and runs on its own', async () => {
    const { db, rows } = twoConnections()
    const grouped = groupedWrite(db, (tx) => insert(tx, 1))
    const seen = readTransaction(db, () => rows())
    writeTransaction(db, (tx) => insert(tx, 2))
    expect(seen).toEqual([1])
    expect(rows()).toEqual([1, 2])
    await grouped
    await turn()
    expect(rows()).toEqual([1, 2])
  })

  test('a grouped write inside a transaction of its caller is part of that transaction', async () => {
    const { db, rows } = twoConnections()
    let inner: Promise<unknown> | undefined
    writeTransaction(db, (tx) => {
      inner = groupedWrite(tx, (t) => insert(t, 1))
      expect(rows()).toEqual([])
    })
    expect(rows()).toEqual([1])
    await inner
  })
})
