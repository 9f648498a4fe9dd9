import { Database } from 'bun:sqlite'
import { beforeAll, describe, expect, test } from 'bun:test'
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { loadMigrations } from '../../src/kernel/db/migrate'
import { ADMIN_TOKEN } from '../helpers/app'
import { buildExecutable, emptyDir, overHttp, runExecutable, startExecutable } from '../helpers/executable'
import { readFileAlone } from '../helpers/file-alone'
import { limit } from '../helpers/limits'
import { waitFor } from '../helpers/receivers'
import { streamUpload } from '../helpers/raw-upload'
import { activeStudent, admin, bearer, createGroup } from '../helpers/world'

let built: string

beforeAll(async () => {
  built = await buildExecutable()
})

/** The executable copied alone into an empty folder, as a teacher would. */
function copiedAlone() {
  const dir = emptyDir()
  const bin = join(dir, 'storefront')
  copyFileSync(built, bin)
  Bun.spawnSync(['chmod', '+x', bin])
  return { dir, bin }
}

describe('the single executable', () => {
  test('copied alone into an empty folder: serves health, docs, the panel and errors, then stops cleanly on SIGTERM', async () => {
    const { dir, bin } = copiedAlone()
    const server = await startExecutable(bin, dir)

    const health = await fetch(`${server.base}/health`)
    expect(health.status).toBe(200)
    expect(await health.json()).toMatchObject({ status: 'ok', version: expect.any(String), uptimeSeconds: expect.any(Number) })

    const doc = (await (await fetch(`${server.base}/openapi.json`)).json()) as { openapi: string; paths: object }
    expect(doc.openapi).toBe('3.1.0')
    expect(Object.keys(doc.paths)).toContain('/health')

    const page = await fetch(`${server.base}/docs`)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('/docs/assets/scalar.js')
    const asset = await fetch(`${server.base}/docs/assets/scalar.js`)
    expect(asset.status).toBe(200)
    expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(1_000_000)

    // The panel is inside the executable: its page and the script it loads, with no source folder near.
    const panel = await fetch(`${server.base}/panel`)
    expect(panel.status).toBe(200)
    expect(panel.headers.get('content-security-policy')).toContain("default-src 'self'")
    const script = /src="(\/panel\/[^"]+\.js)"/.exec(await panel.text())?.[1]
    expect(script).toBeDefined()
    const bundle = await fetch(`${server.base}${script}`)
    expect(bundle.headers.get('content-type')).toContain('javascript')
    expect(await bundle.text()).toContain("/store/auth/login")

    const missing = await fetch(`${server.base}/v1/no-such-thing`)
    expect(missing.status).toBe(404)
    expect(missing.headers.get('x-request-id')).toMatch(/^req_/)
    expect(((await missing.json()) as any).error.code).toBe('NOT_FOUND')

    const broken = await fetch(`${server.base}/health`, { method: 'POST', body: '{', headers: { 'content-type': 'application/json' } })
    expect(broken.status).toBe(405)

    // The banner says where things are, and shows a generated admin token exactly once.
    const token = readFileSync(join(dir, 'data', 'admin-token'), 'utf8').trim()
    expect(token).toMatch(/^adm_[0-9a-z]{32}$/)
    expect(statSync(join(dir, 'data', 'admin-token')).mode & 0o777).toBe(0o600)
    expect(server.stdout()).toContain(`admin token  ${token}`)
    expect(server.stdout()).toContain(`data dir     ${join(dir, 'data')}`)
    expect(server.stdout()).toContain(`docs         http://localhost:${server.port}/docs`)
    expect(server.stdout()).toContain(`panel        http://localhost:${server.port}/panel`)

    expect(await server.stop('SIGTERM')).toBe(0)
    expect(server.stdout()).toContain('stopped cleanly')

    const db = new Database(join(dir, 'data', 'storefront.db'))
    expect(db.query('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' })
    expect((db.query('select count(*) as n from __drizzle_migrations').get() as { n: number }).n).toBe(loadMigrations().length)
    db.close()

    // Started again on the same data: same token, not shown again. Its days follow TZ, as a lab machine's set to São Paulo would.
    const again = await startExecutable(bin, dir, [], { TZ: 'America/Sao_Paulo' })
    expect(again.stdout()).not.toContain(token)
    expect(again.stdout()).toContain(`admin token  in ${join(dir, 'data', 'admin-token')}`)
    const days = "days are counted in America/Sao_Paulo, this machine's time zone"
    await waitFor(() => again.stdout().includes(days), limit(10_000), 'the line naming the time zone, a moment after the banner')
    const board = (await (await fetch(`${again.base}/v1/admin/board`, { headers: { 'x-admin-token': token } })).json()) as { today: { from: string; timeZone: string } }
    expect([board.today.timeZone, board.today.from.slice(10)]).toEqual(['America/Sao_Paulo', 'T03:00:00.000Z'])
    expect(await again.stop('SIGINT')).toBe(0)
  })

  test("Ctrl-C stops it while live streams are open (a panel tab on the store's requests, the teacher's view of the group): they end, and the server stops cleanly", async () => {
    const dir = emptyDir()
    const server = await startExecutable(built, dir, ['--data', 'data', '--admin-token', ADMIN_TOKEN])
    const call = overHttp(server.base)
    const group = await createGroup(call, 'Azul', [{ rm: '100', name: 'Ana' }])
    const student = await activeStudent(call, '100')
    const open = async (path: string, headers: Record<string, string>) => {
      const answer = await fetch(`${server.base}${path}`, { headers })
      expect(answer.status).toBe(200)
      const reader = answer.body!.getReader()
      expect(new TextDecoder().decode((await reader.read()).value)).toBe(': connected\n\n')
      return reader
    }
    const streams = [
      await open('/v1/store/requests/stream', bearer(student)),
      await open(`/v1/admin/groups/${group.id}/requests/stream`, admin),
    ]
    const stopped = server.stop('SIGINT')
    const ended = await Promise.race([stopped.then(() => 'stopped'), Bun.sleep(20_000).then(() => 'still running after 20 s')])
    if (ended !== 'stopped') await server.stop('SIGKILL')
    expect(ended).toBe('stopped')
    expect(await stopped).toBe(0)
    expect(server.stdout()).toContain('stopped cleanly')
    for (const reader of streams) expect((await reader.read().catch(() => ({ done: true }))).done).toBe(true)
  })

  test('a bad setting stops it with one line naming the setting and exit code 2', async () => {
    const port = await runExecutable(built, ['--port', '70000'])
    expect(port.code).toBe(2)
    expect(port.stderr).toBe('storefront: --port / PORT: must be a whole number from 0 to 65535 (got "70000")\n')

    const dir = emptyDir()
    writeFileSync(join(dir, 'a-file'), 'not a folder')
    const under = join(dir, 'a-file', 'data')
    const data = await runExecutable(built, ['--data', under], dir)
    expect(data.code).toBe(2)
    expect(data.stderr).toBe(`storefront: --data / DATA_DIR: cannot create or write the folder ${under} (a part of the path is a file, not a folder); choose a folder you can write to\n`)
    expect(existsSync(join(dir, 'data'))).toBe(false)

    // A port another server listens on, even one that would share it, is refused: two servers on one port
    // would each answer part of a class's requests from their own data.
    const holder = Bun.serve({ hostname: '127.0.0.1', port: 0, reusePort: true, fetch: () => new Response('another server') })
    try {
      const first = join(emptyDir(), 'data')
      const taken = await runExecutable(built, ['--port', String(holder.port), '--host', '127.0.0.1', '--data', first])
      expect(taken.code).toBe(2)
      expect(taken.stderr).toBe(`storefront: --port / PORT: port ${holder.port} on 127.0.0.1 is already in use; pick another port\n`)
      // The folder that first start made (a mistyped --data, perhaps) is not left behind, nor the admin
      // token it never showed: the next start makes both, and shows the token.
      expect(existsSync(first)).toBe(false)
      const kept = join(emptyDir(), 'data')
      mkdirSync(kept)
      writeFileSync(join(kept, 'notes.txt'), 'the teacher made this folder')
      expect((await runExecutable(built, ['--port', String(holder.port), '--host', '127.0.0.1', '--data', kept])).code).toBe(2)
      expect(readdirSync(kept).sort()).toEqual(['media', 'notes.txt', 'storefront.db'])
      const next = await startExecutable(built, dirname(first), ['--data', first])
      expect(next.stdout()).toContain(`admin token  ${readFileSync(join(first, 'admin-token'), 'utf8').trim()}  (new;`)
      expect(await next.stop('SIGTERM')).toBe(0)
    } finally {
      holder.stop(true)
    }

    // A host that is not this machine's is blamed, not the port.
    const host = await runExecutable(built, ['--host', 'nosuchhost.invalid', '--port', '0', '--data', join(emptyDir(), 'data')])
    // The system's code for it varies with the resolver (ENOENT, EINVAL).
    expect(host.code).toBe(2)
    expect(host.stderr).toMatch(
      /^storefront: --host \/ HOST: cannot listen on nosuchhost\.invalid, which is not an address of this machine \([A-Z]+\); use 0\.0\.0\.0 for every network of this machine, 127\.0\.0\.1 for itself only, or one of its own addresses\n$/,
    )

    const unknown = await runExecutable(built, ['--prot', '3000'])
    expect([unknown.code, unknown.stderr]).toEqual([2, "storefront: unknown option '--prot' (Did you mean --port?) (see storefront --help)\n"])
    // A mistyped command is named as one, not as arguments the server does not take.
    const typo = await runExecutable(built, ['bakup', 'class.tgz'])
    expect([typo.code, typo.stderr]).toEqual([2, "storefront: unknown command 'bakup'; the commands are serve, version, groups, backup, restore, activity, listen (see storefront --help)\n"])
    // A command without the file it needs says so, with the command as it would be typed.
    const bare = await runExecutable(built, ['backup'])
    expect([bare.code, bare.stderr]).toEqual([2, "storefront: missing required argument 'file': for example storefront backup class-backup.tgz (see storefront --help)\n"])
    // A command named without its subcommand shows its help.
    const groups = await runExecutable(built, ['groups'])
    expect([groups.code, groups.stdout]).toEqual([2, ''])
    expect(groups.stderr).toStartWith('Usage: storefront groups [options] [command]')
    expect(groups.stderr).toContain('import [options] <csv>')
  })

  test('version and help', async () => {
    const version = await runExecutable(built, ['version'])
    expect(version.code).toBe(0)
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/)
    const help = await runExecutable(built, ['serve', '--help'])
    expect(help.code).toBe(0)
    for (const s of ['--port', 'PORT', '--data', 'DATA_DIR', '--allow-insecure-webhooks', 'RATE_LIMIT_BURST']) {
      expect(help.stdout).toContain(s)
    }
    // The defaults the teacher's guide lists are in the help too.
    const oneLine = help.stdout.replace(/\s+/g, ' ')
    for (const s of ['(default: 3000) [env PORT]', '(default: ./data) [env DATA_DIR]', '(default: 100) [env RATE_LIMIT_BURST]']) {
      expect(oneLine).toContain(s)
    }
  })
})

describe('checkpoints', () => {
  test('run on a thread of their own: a group made a moment ago reaches the database file itself while the server runs', async () => {
    const { dir, bin } = copiedAlone()
    const server = await startExecutable(bin, dir)
    try {
      const adminToken = readFileSync(join(dir, 'data', 'admin-token'), 'utf8').trim()
      const made = await fetch(`${server.base}/v1/admin/groups`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-admin-token': adminToken }, body: JSON.stringify({ name: 'Checkpoint', members: [{ rm: 'rm88', name: 'Caio' }] }) })
      expect(made.status).toBe(201)
      // A few pages of log: SQLite's own checkpoint would wait for a thousand. The file is copied
      // without its log, so only what a checkpoint wrote into the file itself is seen.
      const inFileAlone = () => readFileAlone(join(dir, 'data', 'storefront.db'), "select name from groups where name = 'Checkpoint'") ?? []
      await waitFor(() => inFileAlone().length > 0, limit(10_000), 'the group in the database file')
      expect(inFileAlone()).toEqual([{ name: 'Checkpoint' }])
    } finally {
      expect(await server.stop()).toBe(0)
    }
    expect(server.stderr()).not.toContain('checkpoint')
  }, limit(20_000))
})

describe('secrets at rest', () => {
  test('after a login, a password change and a new key, neither the database, its WAL nor the log holds them in clear', async () => {
    const { dir, bin } = copiedAlone()
    const server = await startExecutable(bin, dir)
    const adminToken = readFileSync(join(dir, 'data', 'admin-token'), 'utf8').trim()
    const post = async (path: string, body: object, headers: Record<string, string> = {}) => {
      const res = await fetch(`${server.base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
      return (await res.json()) as any
    }
    await post('/v1/admin/groups', { name: 'Secretos', members: [{ rm: 'rm77', name: 'Sofia' }] }, { 'x-admin-token': adminToken })
    const first = await post('/v1/store/auth/login', { rm: 'rm77', password: 'rm77' })
    const newPassword = 'correct-horse-battery-staple'
    const changed = await post('/v1/store/auth/change-password', { currentPassword: 'rm77', newPassword }, { authorization: `Bearer ${first.token}` })
    const key = await post('/v1/store/api-keys', { name: 'app' }, { authorization: `Bearer ${changed.token}` })
    const second = await post('/v1/store/auth/login', { rm: 'rm77', password: newPassword })
    expect(key.apiKey).toMatch(/^sk_/)
    expect(second.token).toMatch(/^stu_/)
    // Counted and flushed while running, then stopped (WAL files are read before and after the stop). The
    // recorder writes its counts on a timer; the teacher's report writes them first (the same flush), so
    // once it answers with the student's calls they are in the database, on a busy machine too.
    const report = await fetch(`${server.base}/v1/admin/activity`, { headers: { 'x-admin-token': adminToken } })
    const counted = ((await report.json()) as any).groups.flatMap((g: any) => g.students).map((s: any) => [s.rm, s.calls])
    expect(counted).toEqual([['rm77', 2]])
    const secrets = [newPassword, key.apiKey, key.apiKey.slice(key.prefix.length + 1), first.token, changed.token, second.token]
    const files = ['storefront.db', 'storefront.db-wal', 'storefront.db-shm'].map((f) => join(dir, 'data', f)).filter((f) => existsSync(f))
    const scan = () => files.filter((f) => existsSync(f)).map((f) => readFileSync(f).toString('latin1')).join('')
    const whileRunning = scan()
    expect(whileRunning.length).toBeGreaterThan(0)
    expect(await server.stop()).toBe(0)
    const log = server.stdout() + server.stderr()
    for (const secret of secrets) {
      expect(whileRunning.includes(secret)).toBe(false)
      expect(scan().includes(secret)).toBe(false)
      expect(log.includes(secret)).toBe(false)
    }
    // The key's public prefix is kept in clear on purpose: the panel shows it.
    expect(scan().includes(key.prefix)).toBe(true)
  })
})

describe('uploads in the executable', () => {
  test('a 1 GiB streamed upload is refused with 413 while the server memory stays flat', async () => {
    const { dir, bin } = copiedAlone()
    const server = await startExecutable(bin, dir)
    const adminToken = readFileSync(join(dir, 'data', 'admin-token'), 'utf8').trim()
    const post = async (path: string, body: object, headers: Record<string, string> = {}) =>
      (await (await fetch(`${server.base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })).json()) as any
    await post('/v1/admin/groups', { name: 'Video', members: [{ rm: 'v1', name: 'Vera' }] }, { 'x-admin-token': adminToken })
    const first = await post('/v1/store/auth/login', { rm: 'v1', password: 'v1' })
    const changed = await post('/v1/store/auth/change-password', { currentPassword: 'v1', newPassword: 'a-new-password' }, { authorization: `Bearer ${first.token}` })
    const key = await post('/v1/store/api-keys', { name: 'app' }, { authorization: `Bearer ${changed.token}` })

    const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.proc.pid}/status`, 'utf8'))![1]) * 1024
    const before = rss()
    const head = readFileSync(join(import.meta.dir, '..', 'fixtures', 'media', 'sample.mp4')).subarray(0, 4100)
    const res = await streamUpload(server.port, { 'x-api-key': key.apiKey }, head, 1024 ** 3)
    const growth = rss() - before
    expect(res.status).toBe(413)
    expect(res.body.error.code).toBe('FILE_TOO_LARGE')
    expect(res.body.error.message).toContain('100 MiB, the limit for a video')
    expect(res.sent).toBeLessThan(1024 ** 3) // cut off, not read to the end
    expect(growth).toBeLessThan(50 * 1024 * 1024)
    const storeDir = readdirSync(join(dir, 'data', 'media'))
    for (const store of storeDir) expect(readdirSync(join(dir, 'data', 'media', store))).toEqual([])
    expect(await server.stop()).toBe(0)
  })
})
