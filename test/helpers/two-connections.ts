import { Database } from 'bun:sqlite'
import { drizzle } from 'drizzle-orm/bun-sqlite'
import { join } from 'node:path'
import type { Db } from '../../src/kernel/db/database'
import { tempDir } from './temp'

/**
 * Two connections on one WAL file, in the default (shared) locking mode, so that the second one can
 * tell which locks the first holds. The server's file is held for its process (openDatabase), where
 * no other process could look.
 */
export function twoConnections() {
  const file = join(tempDir('tx'), 'tx.db')
  const first = new Database(file, { create: true, strict: true })
  first.exec('PRAGMA journal_mode = WAL')
  first.exec('create table t (n integer not null)')
  const other = new Database(file, { strict: true })
  other.exec('PRAGMA busy_timeout = 0')
  const db = drizzle({ client: first }) as Db
  const rows = () => (other.query('select n from t order by n').all() as { n: number }[]).map((r) => r.n)
  const otherWrites = () => other.query('insert into t (n) values (99)').run()
  return { db, rows, otherWrites }
}
