import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { openDatabase } from '../../src/kernel/db/open'
import { loadMigrations, migrate, recordedVersion } from '../../src/kernel/db/migrate'
import { VERSION } from '../../src/version'
import { buildExecutable, emptyDir, overHttp, runExecutable, startExecutable } from '../helpers/executable'
import { apiKey, bearer, expectOk } from '../helpers/world'

const bin = await buildExecutable()

/** Data folders written by earlier builds (test/fixtures/data-folders/README.md); new ones are added, never edited. */
const ROOT = join(import.meta.dir, '..', 'fixtures', 'data-folders')
const FIXTURES = readdirSync(ROOT, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
const SCHEMA = loadMigrations().length

/**
 * Tables a migration dropped on purpose because they held no data, only bookkeeping the server keeps
 * for itself, and what took their place. Every other table keeps each of its rows.
 */
const DROPPED: Record<string, string> = {
  product_stock_versions: "which products' cached reads to drop after a stock change; stock_changes keeps that now, and the cache starts empty at every start",
}

interface Fixture {
  writtenBy: { version: string; schema: number }
  adminToken: string
  storeId: string
  groupId: string
  apiKey: string
  students: { rm: string; password: string }[]
  customers: { email: string; password: string }[]
  rows: Record<string, number>
  media: { path: string; sha256: string }[]
}

const readFixture = (name: string) => JSON.parse(readFileSync(join(ROOT, name, 'fixture.json'), 'utf8')) as Fixture
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')

/** A copy of the fixture's data folder (the fixture itself is never opened: SQLite would write beside it). */
function copyOf(name: string) {
  const dir = emptyDir()
  const data = join(dir, 'data')
  cpSync(join(ROOT, name, 'storefront.db'), join(data, 'storefront.db'))
  cpSync(join(ROOT, name, 'media'), join(data, 'media'), { recursive: true })
  return { dir, data }
}

/** Every file of a folder and a checksum of its bytes. */
const contents = (root: string): Record<string, string> =>
  Object.fromEntries(
    readdirSync(root, { withFileTypes: true, recursive: true })
      .filter((e) => e.isFile())
      .map((e) => [relative(root, join(e.parentPath, e.name)), sha256(readFileSync(join(e.parentPath, e.name)))]),
  )

function rowsOf(sqlite: Database, table: string, columns: string[]) {
  const list = columns.map((c) => `"${c}"`).join(', ')
  return sqlite.query(`SELECT ${list} FROM "${table}"`).all().map((r) => JSON.stringify(r)).sort()
}

describe('a data folder written by an earlier build', () => {
  test('the schema of this build has a fixture, so that the next schema change is tested against it', () => {
    expect(FIXTURES.map((name) => readFixture(name).writtenBy.schema)).toContain(SCHEMA)
  })

  for (const name of FIXTURES) {
    test(`${name}: the migrations apply and every row and media file is still there`, () => {
      const fixture = readFixture(name)
      // The database alone, checkpointed: no WAL to go with it.
      expect(readdirSync(join(ROOT, name)).sort()).toEqual(['README.md', 'fixture.json', 'media', 'storefront.db'])
      const before = new Database(join(copyOf(name).data, 'storefront.db'), { readonly: true })
      const { data } = copyOf(name)
      const after = openDatabase(join(data, 'storefront.db'))
      migrate(after.db)
      try {
        expect(after.sqlite.query('SELECT count(*) AS n FROM __drizzle_migrations').get()).toEqual({ n: SCHEMA })
        expect(recordedVersion(after.sqlite)).toBe(VERSION)
        for (const [table, count] of Object.entries(fixture.rows)) {
          // The migrations table grows, and the build that last opened the folder is rewritten (checked above).
          if (table === '__drizzle_migrations' || table === '__storefront_meta') continue
          if (table in DROPPED) {
            expect(after.sqlite.query("SELECT name FROM sqlite_master WHERE name = ?").all(table)).toEqual([])
            continue
          }
          // The fixture is as it was written...
          expect([table, rowsOf(before, table, ['rowid']).length]).toEqual([table, count])
          // ...and each of its rows is still there, with the values it had, whatever columns were added.
          const columns = (before.query(`SELECT name FROM pragma_table_info('${table}')`).all() as { name: string }[]).map((c) => c.name)
          expect(rowsOf(after.sqlite, table, columns)).toEqual(rowsOf(before, table, columns))
        }
        for (const file of fixture.media) expect([file.path, sha256(readFileSync(join(data, file.path)))]).toEqual([file.path, file.sha256])
      } finally {
        before.close()
        after.close()
      }
    })

    test(`${name}: this build serves it: a student logs in with the changed password, a customer buys and pays, the files are served`, async () => {
      const fixture = readFixture(name)
      const { dir, data } = copyOf(name)
      const products = (() => {
        const db = new Database(join(data, 'storefront.db'), { readonly: true })
        const ids = (db.query('SELECT id FROM products WHERE store_id = ? AND deleted_at IS NULL').all(fixture.storeId) as { id: string }[]).map((r) => r.id)
        db.close()
        return ids.sort()
      })()
      const server = await startExecutable(bin, dir, ['--data', data, '--admin-token', fixture.adminToken, '--rate-limit-rps', '0'])
      try {
        const call = overHttp(server.base)
        for (const s of fixture.students) {
          const login = await expectOk(call('POST', '/v1/store/auth/login', { body: { rm: s.rm, password: s.password } }))
          expect([login.student.rm, login.mustChangePassword]).toEqual([s.rm, false])
          expect((await call('POST', '/v1/store/auth/login', { body: { rm: s.rm, password: s.rm } })).status).toBe(401)
        }
        const groups = await expectOk(call('GET', '/v1/admin/groups', { headers: { 'x-admin-token': fixture.adminToken } }))
        expect(groups.data.map((g: { id: string }) => g.id)).toContain(fixture.groupId)

        const key = apiKey(fixture.apiKey)
        const list = await expectOk(call('GET', '/v1/products?pageSize=100', { headers: key }))
        expect(list.data.map((p: { id: string }) => p.id).sort()).toEqual(products)

        const customer = fixture.customers[0]!
        const session = await expectOk(call('POST', '/v1/customers/login', { headers: key, body: customer }))
        const buyer = { ...key, ...bearer(session.token) }
        const variant = list.data.filter((p: any) => p.state === 'PUBLISHED').flatMap((p: any) => p.variants).find((v: any) => v.available > 0)
        await expectOk(call('POST', '/v1/cart/items', { headers: buyer, body: { variantId: variant.id, quantity: 1 } }))
        const order = await expectOk(call('POST', '/v1/orders/checkout', { headers: buyer }), 201)
        const paid = await expectOk(call('POST', `/v1/orders/${order.id}/pay`, { headers: buyer, body: { method: 'PIX' } }))
        expect(paid.status).toBe('PAID')

        for (const file of fixture.media) {
          const res = await fetch(`${server.base}/v1/files/${file.path.split('/').slice(1).join('/')}`)
          expect([file.path, res.status, sha256(new Uint8Array(await res.arrayBuffer()))]).toEqual([file.path, 200, file.sha256])
        }
        const deliveries = await expectOk(call('GET', '/v1/webhooks/deliveries?pageSize=100', { headers: key }))
        expect(deliveries.total).toBeGreaterThanOrEqual(fixture.rows.webhook_deliveries!)
      } finally {
        expect(await server.stop()).toBe(0)
      }
    })
  }
})

/** A copy of a fixture as the next build would leave it: a migration this build lacks, and its version. */
function newerFolder() {
  const copy = copyOf(FIXTURES[0]!)
  const database = openDatabase(join(copy.data, 'storefront.db'))
  migrate(database.db)
  const at = loadMigrations().at(-1)!.folderMillis + 1000
  database.sqlite.query('INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)').run('from-a-newer-build', at)
  database.sqlite.exec("UPDATE __storefront_meta SET value = '9.9.9' WHERE key = 'written_by'")
  database.close()
  return copy
}

describe('a data folder written by a newer build', () => {
  const newer = `Storefront 9.9.9 (schema ${SCHEMA + 1}), newer than this Storefront ${VERSION} (schema ${SCHEMA})`

  test('is refused by the server and by every command that opens it, naming both builds, and left as it was', async () => {
    const { dir, data } = newerFolder()
    writeFileSync(join(dir, 'class.csv'), 'Verde,200,Rui\n')
    const before = contents(data)
    const refusal = `storefront: --data / DATA_DIR: ${data} was written by ${newer}; nothing in it was changed. Run Storefront 9.9.9 or a later one on it, or choose another folder\n`
    for (const args of [['serve', '--port', '0'], ['activity'], ['groups', 'import', 'class.csv'], ['backup', 'class.tgz']]) {
      const res = await runExecutable(bin, [...args, '--data', data], dir)
      expect([args[0], res.code, res.stderr, res.stdout]).toEqual([args[0], 2, refusal, ''])
    }
    expect(contents(data)).toEqual(before)
  })

  test('a backup of it is refused by restore, and the folder it was to replace is left as it was', async () => {
    const { dir, data } = newerFolder()
    const tar = await import('tar')
    await tar.create({ gzip: true, file: join(dir, 'newer.tgz'), cwd: data }, ['storefront.db', 'media'])
    const current = copyOf(FIXTURES[0]!)
    const before = contents(current.data)
    const res = await runExecutable(bin, ['restore', join(dir, 'newer.tgz'), '--data', current.data], dir)
    expect([res.code, res.stderr]).toEqual([1, `storefront: ${join(dir, 'newer.tgz')} was taken from ${newer}; nothing was changed. Restore it with that build or a later one\n`])
    expect(contents(current.data)).toEqual(before)
    expect(readdirSync(current.data).sort()).toEqual(['media', 'storefront.db'])
  })
})
