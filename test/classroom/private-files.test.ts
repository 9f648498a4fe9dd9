import { describe, expect, test } from 'bun:test'
import { chmodSync, cpSync, lstatSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { buildExecutable, emptyDir, overHttp, runExecutable, startExecutable } from '../helpers/executable'
import { activeStudent, apiKey, createKey, expectOk, upload } from '../helpers/world'

const bin = await buildExecutable()

const FIXTURE = join(import.meta.dir, '..', 'fixtures', 'data-folders', '0.1.0-schema9')

const modeOf = (path: string) => lstatSync(path).mode & 0o777
/** Every path under `root` with its mode, as `path: mode` lines (octal). */
const modes = (root: string, under = ''): Record<string, string> =>
  Object.fromEntries(
    readdirSync(join(root, under), { withFileTypes: true }).flatMap((e) => {
      const path = join(under, e.name)
      const own: [string, string][] = [[path, modeOf(join(root, path)).toString(8)]]
      return e.isDirectory() ? [...own, ...Object.entries(modes(root, path))] : own
    }),
  )

// POSIX modes: Linux (and macOS) only; on Windows the program leaves them alone.
describe('the files of a data folder are its owner\'s only', () => {
  test('a new data folder is 0700; the database, its WAL, the admin token, the pid file, the control socket, media and a backup are 0600', async () => {
    const dir = emptyDir()
    const data = join(dir, 'data')
    const server = await startExecutable(bin, dir, ['--rate-limit-rps', '0'])
    try {
      const call = overHttp(server.base)
      const admin = { 'x-admin-token': readFileSync(join(data, 'admin-token'), 'utf8').trim() }
      await expectOk(call('POST', '/v1/admin/groups', { headers: admin, body: { name: 'Azul', members: [{ rm: '100', name: 'Ana' }] } }), 201)
      const key = await createKey(call, await activeStudent(call, '100'))
      const media = await upload(call, apiKey(key.apiKey))
      const [storeId, name] = new URL(media.url).pathname.split('/').slice(-2)

      expect(modeOf(data)).toBe(0o700)
      expect(modes(data)).toEqual({
        'admin-token': '600',
        'control.sock': '600',
        media: '700',
        [`media/${storeId}`]: '700',
        [`media/${storeId}/${name}`]: '600',
        'server.pid': '600',
        'storefront.db': '600',
        'storefront.db-wal': '600',
      })

      const backup = await runExecutable(bin, ['backup', 'class.tgz', '--data', 'data'], dir)
      expect(backup.code).toBe(0)
      expect(modeOf(join(dir, 'class.tgz'))).toBe(0o600)
    } finally {
      expect(await server.stop()).toBe(0)
    }

    // A backup the command makes itself, with no server, is private too.
    const alone = await runExecutable(bin, ['backup', 'alone.tgz', '--data', 'data'], dir)
    expect(alone.code).toBe(0)
    expect(modeOf(join(dir, 'alone.tgz'))).toBe(0o600)
  })

  test('a data folder an older build left readable by everyone is made private at start; files that are not Storefront\'s stay as they are', async () => {
    const dir = emptyDir()
    const data = join(dir, 'data')
    cpSync(join(FIXTURE, 'storefront.db'), join(data, 'storefront.db'))
    cpSync(join(FIXTURE, 'media'), join(data, 'media'), { recursive: true })
    writeFileSync(join(data, 'admin-token'), 'adm_an_older_builds_token_0123\n')
    writeFileSync(join(data, 'notes.txt'), 'the teacher keeps this here\n')
    // As the older build left it: folders 0755, files 0644.
    for (const [path, mode] of Object.entries(modes(data))) chmodSync(join(data, path), mode.startsWith('7') ? 0o755 : 0o644)
    chmodSync(data, 0o755)
    const store = readdirSync(join(data, 'media'))[0]!
    const files = readdirSync(join(data, 'media', store))
    expect(files.length).toBe(4)

    const server = await startExecutable(bin, dir, ['--rate-limit-rps', '0'])
    expect(await server.stop()).toBe(0)
    expect(modeOf(data)).toBe(0o700)
    expect(modes(data)).toEqual({
      'admin-token': '600',
      media: '700',
      [`media/${store}`]: '700',
      ...Object.fromEntries(files.map((f) => [`media/${store}/${f}`, '600'])),
      'notes.txt': '644',
      'storefront.db': '600',
    })
  })
})
