import { describe, expect, test } from 'bun:test'
import { constants, Database } from 'bun:sqlite'
import { closeSync, existsSync, mkdirSync, openSync, readSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { startCheckpointer } from '../../src/kernel/db/checkpointer'
import { writeTransaction } from '../../src/kernel/db/database'
import { connectionName, openDatabase } from '../../src/kernel/db/open'
import { readFileAlone } from '../helpers/file-alone'
import { limit } from '../helpers/limits'
import { waitFor } from '../helpers/receivers'
import { tempDir } from '../helpers/temp'

const pragma = (sqlite: Database, name: string) => Object.values(sqlite.query(`PRAGMA ${name}`).get() as object)[0]

/** A fresh database file with a table, and what it takes to look at it from the outside. */
function setUp(vfs?: string | null) {
  const dir = tempDir('checkpoint')
  const file = join(dir, 'storefront.db')
  const database = vfs === undefined ? openDatabase(file) : openDatabase(file, vfs)
  database.sqlite.exec('create table t (n integer not null)')
  // `query`: closing the connection finalizes it (a statement left open would keep the file open).
  const insert = database.sqlite.query('insert into t (n) values (?)')
  const troubles: string[] = []
  /** The rows the database file holds without its log: what the checkpoints have copied into it (-1: look again). */
  const rowsInFileAlone = () => readFileAlone<{ n: number }>(file, 'select count(*) as n from t')?.[0]?.n ?? -1
  /** The log header's checkpoint sequence: it goes up each time the log starts over. */
  const logSequence = () => {
    if (!existsSync(`${file}-wal`)) return -1
    const fd = openSync(`${file}-wal`, 'r')
    const header = Buffer.alloc(16)
    try {
      return readSync(fd, header, 0, 16, 0) === 16 ? header.readUInt32BE(12) : -1
    } finally {
      closeSync(fd)
    }
  }
  /** One row, committed as the server commits (the thread starts with the first commit). */
  const commit = (n: number) => writeTransaction(database.db, () => void insert.run(n))
  return { file, ...database, insert, commit, troubles, rowsInFileAlone, logSequence, trouble: (m: string) => void troubles.push(m) }
}

describe('checkpoints on a thread of their own', () => {
  test('from the first commit on, the thread copies the committed pages into the database file; the connection no longer does', async () => {
    const s = setUp()
    // Never long enough for the connection to be asked to help: what reaches the file is the thread's work.
    expect(s.checkpointInBackground({ everyMs: 2, restartAtFrames: 1e9, trouble: s.trouble })).toBe(true)
    // No thread until a commit changes a row: a server nobody writes to keeps its memory.
    writeTransaction(s.db, () => s.sqlite.query('select count(*) from t').get())
    expect(pragma(s.sqlite, 'wal_autocheckpoint')).toBe(1000)
    for (let n = 0; n < 200; n++) s.commit(n)
    expect(pragma(s.sqlite, 'wal_autocheckpoint')).toBe(0)
    await waitFor(() => s.rowsInFileAlone() === 200, limit(10_000), 'the 200 rows in the database file')
    expect(s.troubles).toEqual([])
    s.close()
  })

  test('under writes that never pause, the log still starts over', async () => {
    const s = setUp()
    s.checkpointInBackground({ everyMs: 1, restartAtFrames: 32, trouble: s.trouble })
    s.commit(0)
    await waitFor(() => s.rowsInFileAlone() === 1, limit(10_000), 'the thread running')
    const first = s.logSequence()
    // One synchronous run of commits: the thread always finds a commit landing while it copies, so only
    // the connection's own short checkpoint after a commit lets the log start over.
    const started = performance.now()
    let commits = 0
    while (s.logSequence() < first + 2 && commits < 20_000 && performance.now() - started < 5_000) {
      for (let k = 0; k < 20; k++) s.commit(++commits)
    }
    expect(s.logSequence()).toBeGreaterThanOrEqual(first + 2)
    expect(s.troubles).toEqual([])
    s.close()
  })

  test('closing stops the thread and closes its connection: the log is folded into the file and removed', async () => {
    const s = setUp()
    s.checkpointInBackground({ everyMs: 2, restartAtFrames: 1e9, trouble: s.trouble })
    for (let n = 0; n < 50; n++) s.commit(n)
    await waitFor(() => s.rowsInFileAlone() === 50, limit(10_000), 'the thread running')
    s.close()
    // SQLite removes the log when its last connection closes: the thread's one was closed first.
    expect(existsSync(`${s.file}-wal`)).toBe(false)
    const reopened = new Database(s.file, { readonly: true })
    expect(reopened.query('select count(*) as n from t').get()).toEqual({ n: 50 })
    reopened.close()
  })

  test('a thread that cannot open the file hands the checkpoints back to the connection, and says why', async () => {
    const s = setUp()
    const flags = constants.SQLITE_OPEN_READWRITE | constants.SQLITE_OPEN_URI
    s.sqlite.exec('PRAGMA wal_autocheckpoint = 0')
    const checkpointer = startCheckpointer(s.sqlite, `file:${resolve(s.file)}?vfs=no-such-vfs`, flags, { everyMs: 2, restartAtFrames: 32, trouble: s.trouble })
    await waitFor(() => s.troubles.length > 0, limit(10_000), 'the thread reporting')
    expect(s.troubles).toEqual([expect.stringMatching(/^the checkpoints' thread stopped \(.*no such vfs: no-such-vfs\); the server checkpoints the database on its own thread from now on$/)])
    expect(pragma(s.sqlite, 'wal_autocheckpoint')).toBe(1000)
    checkpointer.stop()
    s.close()
  })
})

describe('how the file is opened', () => {
  test('where the platform has no process-locking VFS (Windows), the one connection holds the file and checkpoints itself', () => {
    const s = setUp(null)
    expect(pragma(s.sqlite, 'locking_mode')).toBe('exclusive')
    expect(s.checkpointInBackground({ trouble: s.trouble })).toBe(false)
    expect(pragma(s.sqlite, 'wal_autocheckpoint')).toBe(1000)
    s.close()
  })

  test('a SQLite without the VFS falls back to exclusive locking', () => {
    const s = setUp('no-such-vfs')
    expect(pragma(s.sqlite, 'locking_mode')).toBe('exclusive')
    expect(s.checkpointInBackground({ trouble: s.trouble })).toBe(false)
    s.close()
  })

  test('a folder whose name has the characters a URI gives meaning to, and accents, opens the file in it', () => {
    const dir = join(tempDir('uri'), 'Loja #1 ? 100% Programação')
    const file = join(dir, 'storefront.db')
    expect(connectionName(file, 'unix-excl')).toBe(`file:${resolve(dir)}/storefront.db?vfs=unix-excl`.replace('Loja #1 ? 100%', 'Loja %231 %3F 100%25'))
    expect(connectionName(':memory:', 'unix-excl')).toBe(':memory:')
    expect(connectionName(file, null)).toBe(file)
    mkdirSync(dir)
    const database = openDatabase(file)
    database.sqlite.exec('create table t (n integer)')
    database.close()
    expect(existsSync(file)).toBe(true)
  })
})
