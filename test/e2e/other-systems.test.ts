import { describe, expect, test } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { build } from '../helpers/build'
import { storeCatalog } from '../helpers/catalog'
import { emptyDir, overHttp, runExecutable, startExecutable } from '../helpers/executable'
import { activeStudent, createKey, expectOk } from '../helpers/world'
import { limit } from '../helpers/limits'

/**
 * The executables `npm run build:all` makes for other systems, run here where an emulator can: the
 * Linux arm64 one under qemu-user (Debian's qemu-user and libc6-arm64-cross). The Windows one runs
 * under wine in windows.test.ts; the macOS ones have nothing to run them here (docs/teacher.md, "Executables
 * for every laptop").
 */
const QEMU = ['qemu-aarch64', '-L', '/usr/aarch64-linux-gnu']
const qemuPresent = Bun.which(QEMU[0]!) !== null && existsSync('/usr/aarch64-linux-gnu/lib')

// .ci/run installs qemu-user: in CI a missing emulator is a failure, not a reason to skip.
describe.skipIf(!qemuPresent && !process.env.CI)('the Linux arm64 executable, under qemu-user', () => {
  test('starts on a free loopback port with a new data folder, serves /health and a store\'s product list to its key, and stops cleanly on SIGTERM', async () => {
    expect(qemuPresent).toBe(true) // qemu-aarch64 and /usr/aarch64-linux-gnu: apt-get install qemu-user libc6-arm64-cross
    const dir = emptyDir()
    const bin = await build(join(dir, 'storefront-linux-arm64'), 'linux-arm64')
    const arm64 = [...QEMU, bin]
    const version = await runExecutable(arm64, ['version'], dir)
    expect([version.code, version.stdout.trim()]).toEqual([0, (await Bun.file(join(import.meta.dir, '..', '..', 'package.json')).json()).version])

    const server = await startExecutable(arm64, dir, ['--rate-limit-rps', '0'], {}, limit(60_000))
    try {
      const health = await fetch(`${server.base}/health`)
      expect(health.status).toBe(200)
      expect(await health.json()).toMatchObject({ status: 'ok' })

      const call = overHttp(server.base)
      const admin = { 'x-admin-token': readFileSync(join(dir, 'data', 'admin-token'), 'utf8').trim() }
      await expectOk(call('POST', '/v1/admin/groups', { headers: admin, body: { name: 'Azul', members: [{ rm: '100', name: 'Ana' }] } }), 201)
      const key = await createKey(call, await activeStudent(call, '100'))
      const catalog = storeCatalog(call, key.apiKey)
      const made = await catalog.createProduct({ name: 'Caneca', price: 19.9 })
      const list = await catalog.list()
      expect(list.data.map((p: { id: string; name: string }) => [p.id, p.name])).toEqual([[made.id, 'Caneca']])
    } finally {
      expect(await server.stop('SIGTERM')).toBe(0)
    }
    expect(server.stdout()).toContain('stopped cleanly')
    // Its checkpoints' thread ran (a worker with its own SQLite connection): nothing was said of it.
    expect(server.stderr()).not.toContain('checkpoint')
  }, limit(180_000))
})
