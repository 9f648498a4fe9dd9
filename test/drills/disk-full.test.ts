import { Database } from 'bun:sqlite'
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../src/kernel/db/open'
import { buildExecutable, startExecutable } from '../helpers/executable'
import { streamUpload } from '../helpers/raw-upload'
import { FIXTURES } from '../helpers/world'
import { limit } from '../helpers/limits'

const bin = await buildExecutable()

/**
 * Disk full while uploading: the data dir is a 3 MiB tmpfs, so a 5 MiB upload meets
 * ENOSPC half-way. The answer is 507 INSUFFICIENT_STORAGE, no partial file stays, the database passes
 * its integrity check, and once the space is back the store works as before. Mounting needs root
 * (CAP_SYS_ADMIN): where it is refused the drill is skipped and says so.
 */
const ADMIN = 'adm_disk_drill_token_0123456789'

function mountSmallDisk(): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'storefront-full-'))
  const mount = Bun.spawnSync(['mount', '-t', 'tmpfs', '-o', 'size=3m', 'tmpfs', dir], { stderr: 'pipe' })
  if (mount.exitCode === 0) return dir
  rmSync(dir, { recursive: true, force: true })
  console.warn(`disk-full drill skipped: cannot mount a small tmpfs here (${mount.stderr.toString().trim() || 'not root'})`)
  return undefined
}

const disk = process.platform === 'linux' ? mountSmallDisk() : undefined
/** Only a developer's machine may skip it; in CI (run as root) a disk that cannot be mounted fails the drill. */
const skip = !disk && !process.env.CI
const diskDir = () => {
  if (!disk) throw new Error('the disk-full drill needs a small tmpfs (mount as root), which could not be made here')
  return disk
}

afterAll(() => {
  if (!disk) return
  Bun.spawnSync(['umount', disk])
  rmSync(disk, { recursive: true, force: true })
})

async function call(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const res = await fetch(`${base}${path}`, { method, headers: { ...headers, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
  return { status: res.status, body: (await res.json()) as any }
}

/** SIGTERM, and exit code 0; else an error with what the server printed. */
async function stopCleanly(server: Awaited<ReturnType<typeof startExecutable>>) {
  const code = await server.stop('SIGTERM')
  if (code !== 0) throw new Error(`the server stopped with exit code ${code}; it printed:\n${server.stdout()}${server.stderr()}`)
}

describe('disk full while uploading', () => {
  test.skipIf(skip)('a 507 INSUFFICIENT_STORAGE, no partial file, the database intact, and the store works once there is room', async () => {
    const dir = diskDir()
    const server = await startExecutable(bin, dir, ['--data', dir, '--admin-token', ADMIN, '--media-quota-mb', '1000'])
    try {
      await call(server.base, 'POST', '/v1/admin/groups', { 'x-admin-token': ADMIN }, { name: 'Full', members: [{ rm: 'd1001', name: 'D' }] })
      const first = (await call(server.base, 'POST', '/v1/store/auth/login', {}, { rm: 'd1001', password: 'd1001' })).body
      const { token } = (await call(server.base, 'POST', '/v1/store/auth/change-password', { authorization: `Bearer ${first.token}` }, { currentPassword: 'd1001', newPassword: 'd1001-password' })).body
      const key = { 'x-api-key': (await call(server.base, 'POST', '/v1/store/api-keys', { authorization: `Bearer ${token}` }, { name: 'k' })).body.apiKey as string }
      const product = await call(server.base, 'POST', '/v1/products', key, { name: 'Before', sku: 'BEFORE', price: 1, stock: 1 })
      expect(product.status).toBe(201)

      const upload = await streamUpload(server.port, key, new Uint8Array(readFileSync(join(FIXTURES, 'sample.mp4'))), 5 * 1024 * 1024)
      expect(upload.status).toBe(507)
      expect(upload.body.error.code).toBe('INSUFFICIENT_STORAGE')
      expect(upload.body.error.message).toContain('disk is full')

      const media = readdirSync(join(dir, 'media'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile())
      expect(media.map((e) => e.name)).toEqual([])
      expect((await call(server.base, 'GET', '/v1/media', key)).body.total).toBe(0)

      // The space came back with the partial file: the store works as before.
      const form = new FormData()
      form.append('file', Bun.file(join(FIXTURES, 'sample.png')), 'sample.png')
      const small = await fetch(`${server.base}/v1/uploads`, { method: 'POST', headers: key, body: form })
      expect(small.status).toBe(201)
      expect((await call(server.base, 'GET', `/v1/products/${product.body.id}`, key)).body.name).toBe('Before')
    } catch (e) {
      // In the error itself, so that npm test's closing summary shows it too.
      if (e instanceof Error) e.message += `\n\nthe server printed:\n${server.stdout()}${server.stderr()}`
      throw e
    } finally {
      await stopCleanly(server)
    }
    // Stopped, everything it printed has been read: the teacher was told what is full and what to do, without a stack trace.
    expect(server.stderr()).toContain(`the disk holding ${dir} is full: requests that write answer 507 until there is room on it`)
    expect(server.stderr()).not.toContain('receiveFile')
    // The server holds its database alone while it runs; stopped, the file is checked.
    const db = new Database(join(dir, 'storefront.db'), { readonly: true })
    expect(db.query('PRAGMA integrity_check').all()).toEqual([{ integrity_check: 'ok' }])
    expect(db.query('SELECT count(*) AS n FROM media').get()).toEqual({ n: 1 })
    db.close()
    expect(readdirSync(join(dir, 'media'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile())).toHaveLength(1)
  }, limit(30_000))

  test.skipIf(skip)('a write to a full disk is a clear error in the envelope, and the database stays intact', async () => {
    const dir = diskDir()
    rmSync(join(dir, 'storefront.db'), { force: true })
    for (const f of readdirSync(dir)) rmSync(join(dir, f), { recursive: true, force: true })
    const server = await startExecutable(bin, dir, ['--data', dir, '--admin-token', ADMIN])
    try {
      // Fill what is left of the disk, then ask for writes.
      const filler = join(dir, 'filler')
      try {
        writeFileSync(filler, new Uint8Array(3 * 1024 * 1024))
      } catch {
        // ENOSPC: the disk is now full, which is the point
      }
      // Writes go on while the log has room it already took on the disk (it starts over once the
      // checkpoints' thread has copied it into the file, until copying finds no room either): the
      // drill writes until the first refusal, and a few more.
      const answers = []
      for (let i = 0; i < 2000 && answers.filter((a) => a.status >= 300).length < 5; i++) {
        answers.push(await call(server.base, 'POST', '/v1/admin/groups', { 'x-admin-token': ADMIN }, { name: `Full ${i}`, members: [{ rm: `e${10000 + i}`, name: 'E' }] }))
      }
      const failed = answers.filter((a) => a.status >= 300)
      expect(failed.length).toBeGreaterThan(0)
      for (const a of failed) expect([a.status, a.body.error.code]).toEqual([507, 'INSUFFICIENT_STORAGE'])
      rmSync(filler, { force: true })
      const after = await call(server.base, 'POST', '/v1/admin/groups', { 'x-admin-token': ADMIN }, { name: 'After', members: [{ rm: 'e9999', name: 'E' }] })
      expect(after.status).toBe(201)
    } catch (e) {
      // In the error itself, so that npm test's closing summary shows it too.
      if (e instanceof Error) e.message += `\n\nthe server printed:\n${server.stdout()}${server.stderr()}`
      throw e
    } finally {
      await stopCleanly(server)
    }
    expect(server.stderr()).toContain(`the disk holding ${dir} is full`)
    expect(server.stderr()).not.toContain('SQLITE_FULL')
    const db = new Database(join(dir, 'storefront.db'), { readonly: true })
    expect(db.query('PRAGMA integrity_check').all()).toEqual([{ integrity_check: 'ok' }])
    expect((db.query("SELECT count(*) AS n FROM groups WHERE name = 'After'").get() as { n: number }).n).toBe(1)
    db.close()
  }, limit(30_000))
})

describe('disk full when the database closes', () => {
  test.skipIf(skip)('the log that cannot be folded into the file stays beside it: the close says so, and nothing is lost', () => {
    const dir = diskDir()
    for (const f of readdirSync(dir)) rmSync(join(dir, f), { recursive: true, force: true })
    const file = join(dir, 'storefront.db')
    const database = openDatabase(file)
    // Half a megabyte of rows in the log only: folding it in grows the file by as much.
    database.sqlite.exec('PRAGMA wal_autocheckpoint = 0')
    database.sqlite.exec('create table t (n integer, v text)')
    const insert = database.sqlite.query('insert into t values (?, ?)')
    database.sqlite.transaction(() => {
      for (let n = 0; n < 250; n++) insert.run(n, 'x'.repeat(2000))
    })()
    const filler = join(dir, 'filler')
    try {
      writeFileSync(filler, new Uint8Array(3 * 1024 * 1024))
    } catch {
      // ENOSPC: the disk is now full, which is the point
    }
    expect(database.close()).toMatch(/^the database's log could not be folded into .*storefront\.db \(database or disk is full\): storefront\.db-wal stays beside it, and is read at the next start; copy the two files together$/)
    rmSync(filler, { force: true })
    const reopened = new Database(file, { readonly: true })
    expect(reopened.query('select count(*) as n, sum(length(v)) as bytes from t').get()).toEqual({ n: 250, bytes: 500_000 })
    expect(reopened.query('PRAGMA integrity_check').all()).toEqual([{ integrity_check: 'ok' }])
    reopened.close()
  })
})
