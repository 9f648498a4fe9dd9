import { describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { CHECK_STAMPS_ENV, ChangeStamp, untilChanged } from '../../src/kernel/db/change-stamp'
import { writeTransaction } from '../../src/kernel/db/database'
import { openDatabase } from '../../src/kernel/db/open'
import { tempDir } from '../helpers/temp'

/** A table t(k, v) on a fresh file, a memoized read of v by k, and how many times the read ran. */
function setUp() {
  const file = join(tempDir('stamp'), 'storefront.db')
  const { sqlite, db, close } = openDatabase(file)
  sqlite.exec("create table t (k text primary key, v text); insert into t values ('a', 'one')")
  const select = sqlite.query<{ v: string }, [string]>('select v from t where k = ?')
  let reads = 0
  const read = untilChanged(new ChangeStamp(sqlite), (k: string) => (reads++, select.get(k)?.v))
  return { file, sqlite, db, read, reads: () => reads, close }
}

describe('reads kept until the database changes', () => {
  test('a repeated read is answered from memory while nothing changed', () => {
    const { read, reads, close } = setUp()
    expect(read('a')).toBe('one')
    expect(read('a')).toBe('one')
    expect(reads()).toBe(1)
    close()
  })

  test('a write by this process is seen by the very next read: in a transaction, a trigger\'s, a rolled-back one, or one drizzle runs alone', () => {
    const { db, read, close } = setUp()
    read('a')
    writeTransaction(db, (tx) => tx.$client.query("update t set v = 'two' where k = 'a'").run())
    expect(read('a')).toBe('two')
    writeTransaction(db, (tx) => tx.$client.exec("create table log (x); create trigger t_log after insert on log begin update t set v = 'three' where k = 'a'; end"))
    writeTransaction(db, (tx) => tx.$client.query('insert into log values (1)').run())
    expect(read('a')).toBe('three')
    expect(() =>
      writeTransaction(db, (tx) => {
        tx.$client.query("update t set v = 'four' where k = 'a'").run()
        expect(read('a')).toBe('four') // inside a transaction nothing is kept
        throw new Error('undone')
      }),
    ).toThrow('undone')
    expect(read('a')).toBe('three')
    // A statement drizzle runs outside a transaction commits by itself, and is counted as it is prepared.
    db.run(sql`update t set v = 'five' where k = 'a'`)
    expect(read('a')).toBe('five')
    close()
  })

  test('the check the test suite turns on refuses a write that no count saw: raw SQL outside a transaction', () => {
    const { sqlite, read, close } = setUp()
    const saved = process.env[CHECK_STAMPS_ENV]
    process.env[CHECK_STAMPS_ENV] = '1'
    try {
      const checked = untilChanged(new ChangeStamp(sqlite), () => read('a'))
      checked('a')
      sqlite.query("update t set v = 'behind' where k = 'a'").run()
      expect(() => checked('a')).toThrow('rows changed outside a transaction')
    } finally {
      process.env[CHECK_STAMPS_ENV] = saved
    }
    close()
  })

  test('no other process can commit behind its back: the file is held by the process that opened it', () => {
    const { file, read, close } = setUp()
    expect(read('a')).toBe('one')
    const tries = ["update t set v = 'other' where k = 'a'", 'select v from t']
    const other = Bun.spawnSync([
      process.execPath,
      '-e',
      `const { Database } = require('bun:sqlite')
       const other = new Database(${JSON.stringify(file)})
       other.exec('PRAGMA busy_timeout = 0')
       for (const sql of ${JSON.stringify(tries)}) {
         try { other.query(sql).all(); console.log('ran') } catch (e) { console.log(e.message) }
       }`,
    ])
    expect(other.stdout.toString().trim().split('\n')).toEqual(['database is locked', 'database is locked'])
    expect(read('a')).toBe('one')
    close()
    // Closed, the file is free again, and what the first connection wrote is there.
    const after = new Database(file)
    expect(after.query('select v from t').all()).toEqual([{ v: 'one' }])
    after.close()
  })
})
