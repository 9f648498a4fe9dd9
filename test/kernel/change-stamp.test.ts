import { describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { join } from 'node:path'
import { ChangeStamp, untilChanged } from '../../src/kernel/db/change-stamp'
import { openDatabase } from '../../src/kernel/db/database'
import { tempDir } from '../helpers/temp'

/** A table t(k, v) on a fresh file, a memoized read of v by k, and how many times the read ran. */
function setUp() {
  const file = join(tempDir('stamp'), 'storefront.db')
  const { sqlite, close } = openDatabase(file)
  sqlite.exec("create table t (k text primary key, v text); insert into t values ('a', 'one')")
  const select = sqlite.query<{ v: string }, [string]>('select v from t where k = ?')
  let reads = 0
  const read = untilChanged(new ChangeStamp(sqlite), (k: string) => (reads++, select.get(k)?.v))
  return { file, sqlite, read, reads: () => reads, close }
}

describe('reads kept until the database changes', () => {
  test('a repeated read is answered from memory while nothing changed', () => {
    const { read, reads, close } = setUp()
    expect(read('a')).toBe('one')
    expect(read('a')).toBe('one')
    expect(reads()).toBe(1)
    close()
  })

  test('a write by this process is seen by the very next read, a trigger\'s or a rolled-back one too', () => {
    const { sqlite, read, close } = setUp()
    read('a')
    sqlite.exec("update t set v = 'two' where k = 'a'")
    expect(read('a')).toBe('two')
    sqlite.exec("create table log (x); create trigger t_log after insert on log begin update t set v = 'three' where k = 'a'; end")
    sqlite.exec('insert into log values (1)')
    expect(read('a')).toBe('three')
    sqlite.exec("begin; update t set v = 'four' where k = 'a'")
    expect(read('a')).toBe('four') // inside a transaction nothing is kept
    sqlite.exec('rollback')
    expect(read('a')).toBe('three')
    close()
  })

  test('no other connection can commit behind its back: the file is held by the one that opened it', () => {
    const { file, read, close } = setUp()
    expect(read('a')).toBe('one')
    const other = new Database(file)
    other.exec('PRAGMA busy_timeout = 0')
    expect(() => other.exec("update t set v = 'other' where k = 'a'")).toThrow('database is locked')
    expect(() => other.query('select v from t').all()).toThrow('database is locked')
    other.close()
    expect(read('a')).toBe('one')
    close()
    // Closed, the file is free again, and what the first connection wrote is there.
    const after = new Database(file)
    expect(after.query('select v from t').all()).toEqual([{ v: 'one' }])
    after.close()
  })
})
