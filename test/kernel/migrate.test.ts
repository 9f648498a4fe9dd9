import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import type { MigrationMeta } from 'drizzle-orm/migrator'
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { createApp } from '../../src/app'
import { ConfigError, loadConfig } from '../../src/config'
import { openDataDatabase } from '../../src/kernel/data-dir'
import { ManualClock } from '../../src/kernel/clock'
import { writeTransaction } from '../../src/kernel/db/database'
import { openDatabase } from '../../src/kernel/db/open'
import { baselineFor, loadMigrations, migrate, NewerDataFolder, recordedVersion, type Baseline } from '../../src/kernel/db/migrate'
import { systemIds } from '../../src/kernel/ids'
import { memoryLog } from '../../src/kernel/log'
import { VERSION } from '../../src/version'
import { createDeps } from '../../src/wiring'
import { tempDir } from '../helpers/temp'
import { apiKey } from '../helpers/world'
import { openListen } from '../webhooks/listen-stream'
import { eventData } from '../helpers/receivers'

const migrations = loadMigrations()
const last = migrations.at(-1)!.folderMillis

/** A migration made after every real one, as drizzle-kit would write it (one statement per part). */
const later = (n: number, sql: string[]): MigrationMeta => ({ sql, bps: true, folderMillis: last + n, hash: `test-${n}` })

/** A database file in a new folder, migrated with `list`, made from `baseline` when one is given (none in tests: replayed one by one). */
function migrated(list = migrations, baseline?: Baseline) {
  const file = join(tempDir('migrate'), 'storefront.db')
  const database = openDatabase(file)
  migrate(database.db, list, baseline)
  return { ...database, file }
}

const dump = (sqlite: ReturnType<typeof migrated>['sqlite']) => ({
  schema: sqlite.query("select name, sql from sqlite_master order by name").all(),
  migrations: sqlite.query('select hash, created_at from __drizzle_migrations').all(),
})

const parentAndChild = later(1, [
  'CREATE TABLE `parent` (`id` text PRIMARY KEY NOT NULL);',
  'CREATE TABLE `child` (`id` text PRIMARY KEY NOT NULL, `parent_id` text NOT NULL REFERENCES `parent`(`id`) ON DELETE cascade);',
])

describe('migrations', () => {
  test('a migration that rebuilds a table keeps every row that points at it (ON DELETE CASCADE does not fire)', () => {
    const { db, sqlite, close } = migrated()
    migrate(db, [...migrations, parentAndChild])
    sqlite.exec("INSERT INTO parent VALUES ('p1'), ('p2'); INSERT INTO child VALUES ('c1', 'p1'), ('c2', 'p2')")
    // What drizzle-kit writes to add a NOT NULL column with a default in SQLite.
    const rebuild = later(2, [
      'PRAGMA foreign_keys=OFF;',
      "CREATE TABLE `__new_parent` (`id` text PRIMARY KEY NOT NULL, `note` text DEFAULT '' NOT NULL);",
      'INSERT INTO `__new_parent`(`id`) SELECT `id` FROM `parent`;',
      'DROP TABLE `parent`;',
      'ALTER TABLE `__new_parent` RENAME TO `parent`;',
      'PRAGMA foreign_keys=ON;',
    ])
    migrate(db, [...migrations, parentAndChild, rebuild])
    expect(sqlite.query('select id, parent_id from child order by id').all()).toEqual([
      { id: 'c1', parent_id: 'p1' },
      { id: 'c2', parent_id: 'p2' },
    ])
    expect(sqlite.query('select id, note from parent order by id').all()).toEqual([
      { id: 'p1', note: '' },
      { id: 'p2', note: '' },
    ])
    // And the keys are enforced again afterwards.
    expect(sqlite.query('PRAGMA foreign_keys').get()).toEqual({ foreign_keys: 1 })
    expect(() => sqlite.exec("INSERT INTO child VALUES ('c3', 'nobody')")).toThrow('FOREIGN KEY constraint failed')
    close()
  })

  test('a migration that would leave rows pointing nowhere is rolled back whole, naming the table', () => {
    const { db, sqlite, close } = migrated()
    migrate(db, [...migrations, parentAndChild])
    sqlite.exec("INSERT INTO parent VALUES ('p1'); INSERT INTO child VALUES ('c1', 'p1')")
    const before = dump(sqlite)
    const dropsParents = later(2, ['CREATE TABLE `kept` (`id` text);', "DELETE FROM `parent` WHERE `id` = 'p1';"])
    expect(() => migrate(db, [...migrations, parentAndChild, dropsParents])).toThrow(
      'the migrations would leave 1 row pointing at rows that do not exist (the first: child rowid 1, into parent); nothing was changed',
    )
    expect(dump(sqlite)).toEqual(before)
    expect(sqlite.query('select id from parent').all()).toEqual([{ id: 'p1' }])
    close()
  })

  test('every statement of a part runs, not only the first', () => {
    const { db, sqlite, close } = migrated()
    migrate(db, [...migrations, later(1, ['CREATE TABLE `one` (`id` text); CREATE TABLE `two` (`id` text);'])])
    expect(sqlite.query("select name from sqlite_master where name in ('one', 'two') order by name").all()).toEqual([{ name: 'one' }, { name: 'two' }])
    close()
  })

  test('when the second of two new migrations fails, neither is applied and the database is as it was', () => {
    const { db, sqlite, close } = migrated()
    sqlite.exec("INSERT INTO groups (id, name, created_at) VALUES ('grp_1', 'Azul', 1)")
    const before = dump(sqlite)
    const good = later(1, ['CREATE TABLE `first_half` (`id` text);', "UPDATE groups SET name = 'Changed';"])
    const bad = later(2, ['CREATE TABLE `second_half` (`id` text);', 'CREATE TABLE oops ('])
    expect(() => migrate(db, [...migrations, good, bad])).toThrow()
    expect(dump(sqlite)).toEqual(before)
    expect(sqlite.query('select name from groups').all()).toEqual([{ name: 'Azul' }])
    // The next start, with the migration fixed, applies both.
    migrate(db, [...migrations, good, later(2, ['CREATE TABLE `second_half` (`id` text);'])])
    expect(sqlite.query("select count(*) as n from sqlite_master where name in ('first_half', 'second_half')").get()).toEqual({ n: 2 })
    close()
  })

  test('the database records the version of the build that last opened it', () => {
    const { db, sqlite, close } = migrated()
    expect(recordedVersion(sqlite)).toBe(VERSION)
    sqlite.exec("UPDATE __storefront_meta SET value = '0.0.9' WHERE key = 'written_by'")
    migrate(db)
    expect(sqlite.query('select key, value from __storefront_meta').all()).toEqual([{ key: 'written_by', value: VERSION }])
    close()
  })
})

describe("a new folder's database made from the build's baseline", () => {
  /** Everything a database holds: every schema entry and every row of every table (SQLite's own, the search index's and the bookkeeping's too). */
  function everything(sqlite: Database) {
    const entries = sqlite.query('select type, name, tbl_name, sql from sqlite_master order by type, name').all() as { type: string; name: string }[]
    const rows = Object.fromEntries(
      entries.filter((e) => e.type === 'table').map((e) => [e.name, (sqlite.query(`select * from "${e.name}"`).values() as unknown[][]).map((r) => JSON.stringify(r)).sort()]),
    )
    return { entries, rows, userVersion: sqlite.query('pragma user_version').get() }
  }

  test('is the database the migrations make: every schema entry and every row of every table', () => {
    const replayed = migrated()
    const fromBaseline = migrated(migrations, baselineFor(migrations))
    const want = everything(replayed.sqlite)
    expect(want.entries.length).toBeGreaterThan(100)
    expect(want.rows.credential_changes).toEqual(['[1,0]'])
    expect(everything(fromBaseline.sqlite)).toEqual(want)
    replayed.close()
    fromBaseline.close()
  })

  test('takes the migrations that came after its build as a replayed one does', () => {
    const replayed = migrated()
    const upgraded = migrated(migrations.slice(0, -1), baselineFor(migrations.slice(0, -1)))
    migrate(upgraded.db, migrations)
    expect(everything(upgraded.sqlite)).toEqual(everything(replayed.sqlite))
    replayed.close()
    upgraded.close()
  })

  test('is used only for an empty database, and only when it stands for exactly the migrations of the build', () => {
    const marked = (list: MigrationMeta[]): Baseline => {
      const baseline = baselineFor(list)
      return { ...baseline, schema: [...baseline.schema, 'CREATE TABLE `made_from_baseline` (`id` text)'] }
    }
    const hasMark = (sqlite: Database) => sqlite.query("select 1 from sqlite_master where name = 'made_from_baseline'").get() !== null
    const fresh = migrated(migrations, marked(migrations))
    expect(hasMark(fresh.sqlite)).toBe(true)
    // A baseline of fewer migrations than the build's: they are replayed.
    const older = migrated(migrations, marked(migrations.slice(0, -1)))
    expect(hasMark(older.sqlite)).toBe(false)
    const replayed = migrated()
    expect(everything(older.sqlite)).toEqual(everything(replayed.sqlite))
    // A database with anything in it already: the pending migrations are replayed on it.
    const started = openDatabase(join(tempDir('baseline'), 'storefront.db'))
    started.sqlite.exec('CREATE TABLE `left_by_hand` (`id` text)')
    migrate(started.db, migrations, marked(migrations))
    expect(hasMark(started.sqlite)).toBe(false)
    expect(started.sqlite.query('select count(*) as n from __drizzle_migrations').get()).toEqual({ n: migrations.length })
    for (const d of [fresh, older, replayed, started]) d.close()
  })
})

describe('a database written by a newer build', () => {
  const newer = later(1, ['CREATE TABLE `from_the_future` (`id` text);'])

  test('is refused before anything is written, naming both builds and their schemas', () => {
    const { db, sqlite, close, file } = migrated()
    migrate(db, [...migrations, newer])
    sqlite.exec("UPDATE __storefront_meta SET value = '9.9.9' WHERE key = 'written_by'")
    const before = dump(sqlite)
    let error: unknown
    try {
      migrate(db)
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(NewerDataFolder)
    expect((error as Error).message).toBe(`written by Storefront 9.9.9 (schema ${migrations.length + 1}), newer than this Storefront ${VERSION} (schema ${migrations.length})`)
    expect(dump(sqlite)).toEqual(before)
    close()
    const bytes = readFileSync(file)
    const again = openDatabase(file)
    expect(() => migrate(again.db)).toThrow(NewerDataFolder)
    again.close()
    expect(readFileSync(file).equals(bytes)).toBe(true)
  })

  test('one that recorded no version is refused too, and named by its schema', () => {
    const { db, sqlite, close } = migrated()
    migrate(db, [...migrations, newer])
    sqlite.exec('DROP TABLE __storefront_meta')
    expect(() => migrate(db)).toThrow(`written by a Storefront of schema ${migrations.length + 1}, newer than this Storefront ${VERSION} (schema ${migrations.length})`)
    close()
  })
})

describe('the outbox sequence', () => {
  // A data folder of the schema before `seq` existed (test/fixtures/data-folders/README.md).
  const FIXTURE = join(import.meta.dir, '..', 'fixtures', 'data-folders', '0.3.0-schema17')

  test('events written before it keep their order (seq is the old rowid), and a listen stream resumes after them', async () => {
    const fixture = JSON.parse(readFileSync(join(FIXTURE, 'fixture.json'), 'utf8'))
    const dir = tempDir('outbox-seq')
    const file = join(dir, 'storefront.db')
    copyFileSync(join(FIXTURE, 'storefront.db'), file)
    // Retention took some events from the middle: the rowids left have a hole.
    const old = new Database(file)
    old.exec('PRAGMA foreign_keys = ON; DELETE FROM outbox_events WHERE rowid BETWEEN 4 AND 6')
    const before = old.query('SELECT rowid AS seq, id, type FROM outbox_events ORDER BY rowid').all() as { seq: number; id: string; type: string }[]
    const deliveries = old.query('SELECT id, event_id FROM webhook_deliveries ORDER BY id').all()
    old.close()
    expect(before.map((e) => e.seq)).toEqual([1, 2, 3, ...Array.from({ length: 11 }, (_, i) => i + 7)])

    const database = openDatabase(file)
    migrate(database.db)
    const { sqlite } = database
    expect(sqlite.query('SELECT seq, id, type FROM outbox_events ORDER BY seq').all()).toEqual(before)
    expect(sqlite.query("SELECT seq FROM sqlite_sequence WHERE name = 'outbox_events'").get()).toEqual({ seq: 17 })
    expect(sqlite.query('SELECT id, event_id FROM webhook_deliveries ORDER BY id').all()).toEqual(deliveries)

    const clock = new ManualClock()
    const deps = createDeps(loadConfig({ dataDir: dir, rateLimitRps: '0' }, {}), database, { clock, ids: systemIds, log: memoryLog(), adminToken: fixture.adminToken, publicUrl: 'http://localhost:3000' })
    try {
      const from = before.findIndex((e) => e.seq === 10)
      const stream = await openListen(createApp(deps), { ...apiKey(fixture.apiKey), 'last-event-id': before[from]!.id })
      expect((await stream.next()).id).toBe(before[from]!.id)
      const missed = before.slice(from + 1)
      expect((await stream.webhooks(missed.length)).map((m) => [m.id, m.data.type])).toEqual(missed.map((e) => [e.id, e.type]))
      const next = writeTransaction(deps.db, (tx) => deps.outbox.emit(tx, fixture.storeId, 'order.paid', eventData('order.paid', { orderId: 'ord_after' })))
      expect((await stream.webhooks(1)).map((m) => [m.id, m.data.type])).toEqual([[next, 'order.paid']])
      expect(sqlite.query('SELECT seq FROM outbox_events WHERE id = ?').get(next)).toEqual({ seq: 18 })
      expect(await stream.nothingMore()).toBe(true)
      await stream.close()
    } finally {
      await deps.lifecycle.stop()
      database.close()
    }
  })
})

describe('a data folder whose database cannot be used', () => {
  const opened = (prepare: (dataDir: string) => void) => {
    const dataDir = tempDir('unusable')
    prepare(dataDir)
    try {
      openDataDatabase(dataDir).close()
    } catch (e) {
      return e
    }
    throw new Error('opened')
  }

  test('a file that is not a database is a configuration error saying to restore a backup, and is left as it was', () => {
    let file = ''
    const error = opened((dataDir) => writeFileSync((file = join(dataDir, 'storefront.db')), 'not a database, but long enough to have a header of a hundred bytes or so: '.repeat(3)))
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as Error).message).toBe(
      `--data / DATA_DIR: ${file} is not a Storefront database, or is damaged (SQLITE_NOTADB); nothing in it was changed. Restore a backup into the folder (storefront restore <file> --data ${dirname(file)}), or choose another folder`,
    )
    expect(readFileSync(file, 'utf8')).toStartWith('not a database')
  })

  test('a database SQLite cannot open is a configuration error about who owns the files', () => {
    let file = ''
    const error = opened((dataDir) => mkdirSync((file = join(dataDir, 'storefront.db'))))
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as Error).message).toBe(
      `--data / DATA_DIR: cannot open ${file} for reading and writing (SQLITE_CANTOPEN). Make the folder's files belong to the user who runs storefront (a restore run with sudo leaves them to root), or choose another folder`,
    )
  })
})
