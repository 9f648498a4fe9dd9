import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { chmodSync, constants, existsSync, mkdirSync, openSync, readdirSync, readFileSync, realpathSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CliFailure, jobOnDataDir, serveJobs } from '../../src/cli/jobs'
import { ActivityQuery } from '../../src/features/activity/model'
import { controlSocketPath, isOurs, serverAnswers, writePidFile } from '../../src/kernel/data-dir'
import { platformFor, processState, removeOneByOne, removeTree, removeTreeSync } from '../../src/kernel/platform'
import { keepPrivate, tightenDataDir } from '../../src/kernel/private-files'
import { restore } from '../../src/features/backup/service'
import { createTestApp, createTestDeps } from '../helpers/app'
import { tempDir } from '../helpers/temp'
import { admin, apiKey, expectOk, twoStores } from '../helpers/world'

const windows = platformFor('win32')
const modeOf = (path: string) => statSync(path).mode & 0o777

describe('what each system is told', () => {
  test('Linux and macOS: modes are set, the control socket is in the data folder or, past 100 bytes, in the temp folder; SIGINT, SIGTERM and SIGHUP stop', () => {
    for (const name of ['linux', 'darwin'] as const) {
      const system = platformFor(name)
      expect(system.fileModes).toBe(true)
      expect(system.stopSignals).toEqual(['SIGINT', 'SIGTERM', 'SIGHUP'])
      expect(system.controlSocket('/home/ana/data', 'control.sock')).toBe('/home/ana/data/control.sock')
      const deep = `/home/ana/${'a-long-folder-name/'.repeat(6)}data`
      const moved = system.controlSocket(deep, 'control.sock')!
      expect(moved).toMatch(new RegExp(`^${tmpdir()}/storefront-[0-9a-f]{16}\\.sock$`))
      // macOS holds 104 bytes in a socket's address, the final NUL included.
      expect(Buffer.byteLength(moved)).toBeLessThan(104)
      expect(system.controlSocket(deep, 'control.sock')).toBe(moved)
    }
  })

  test('Windows: no modes; the control socket is a named pipe named after the data folder\'s full path, whatever its case; Ctrl-C, Ctrl-Break and closing the console window stop', () => {
    expect(windows.fileModes).toBe(false)
    const pipe = windows.controlSocket('C:\\Users\\ana\\data', 'control.sock')
    expect(pipe).toMatch(/^\\\\\.\\pipe\\storefront-[0-9a-f]{16}$/)
    for (const same of ['c:\\users\\ANA\\data', 'C:\\Users\\ana\\data\\', 'C:\\Users\\bia\\..\\ana\\data', 'C:/Users/ana/data']) {
      expect(windows.controlSocket(same, 'control.sock')).toBe(pipe)
    }
    expect(windows.controlSocket('C:\\Users\\ana\\data2', 'control.sock')).not.toBe(pipe)
    expect(windows.controlSocket('D:\\Users\\ana\\data', 'control.sock')).not.toBe(pipe)
    expect([windows.socketIsFile, platformFor('linux').socketIsFile, platformFor('darwin').socketIsFile]).toEqual([false, true, true])
    expect(windows.stopSignals).toEqual(['SIGINT', 'SIGBREAK', 'SIGHUP'])
  })

  test("a folder written another way (through a link; on Windows also a short name or another drive letter) finds the same control socket as the folder itself", () => {
    const real = realpathSync(tempDir('socket'))
    const deep = join(real, 'a-long-folder-name'.repeat(6))
    mkdirSync(deep)
    const links = tempDir('links')
    // A junction on Windows, which needs no privilege; the type is ignored elsewhere.
    symlinkSync(real, join(links, 'data'), 'junction')
    symlinkSync(deep, join(links, 'deep'), 'junction')
    expect(controlSocketPath(join(links, 'data'))).toBe(controlSocketPath(real))
    expect(controlSocketPath(join(links, 'deep'))).toBe(controlSocketPath(deep))
    // A folder that does not exist (yet) is named as written.
    expect(controlSocketPath(join(links, 'none'), platformFor('linux'))).toBe(join(links, 'none', 'control.sock'))
  })

  test('a file is opened for reading without following a link where the system can (O_NOFOLLOW), and plainly on Windows, which has no such flag', () => {
    for (const name of ['linux', 'darwin'] as const) expect(platformFor(name).readNoFollow).toBe(constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
    expect(constants.O_NOFOLLOW).toBeGreaterThan(0)
    expect(windows.readNoFollow).toBe(constants.O_RDONLY)
    const dir = tempDir('nofollow')
    writeFileSync(join(dir, 'secret'), 'adm_x')
    symlinkSync(join(dir, 'secret'), join(dir, 'link'))
    expect(() => openSync(join(dir, 'link'), platformFor('linux').readNoFollow)).toThrow(expect.objectContaining({ code: 'ELOOP' }))
  })

  test("the database is held for the process by SQLite's unix-excl VFS on Linux and macOS, by the one connection on Windows, which has no such VFS", () => {
    expect(['linux', 'darwin', 'win32'].map((name) => platformFor(name as NodeJS.Platform).processLockingVfs)).toEqual(['unix-excl', 'unix-excl', null])
  })

  test('a pid is ours, another user\'s, or gone', () => {
    expect(processState(process.pid)).toBe('ours')
    const exited = Bun.spawnSync(['true'])
    expect(processState(exited.pid)).toBe('gone')
    // pid 1 (init) is root's: alive, and not ours unless these tests run as root.
    expect(processState(1)).toBe(process.getuid?.() === 0 ? 'ours' : "another user's")
  })
})

describe('on Windows, what has no meaning there is left alone', () => {
  test('the data folder is not tightened and a secret file keeps its mode, where Linux makes them 0700 and 0600', () => {
    const made = () => {
      const data = join(tempDir('modes'), 'data')
      mkdirSync(data, { mode: 0o755 })
      chmodSync(data, 0o755)
      writeFileSync(join(data, 'admin-token'), 'adm_x', { mode: 0o644 })
      chmodSync(join(data, 'admin-token'), 0o644)
      return data
    }
    const onWindows = made()
    expect(tightenDataDir(onWindows, isOurs, windows)).toEqual([])
    keepPrivate(join(onWindows, 'admin-token'), windows)
    expect([modeOf(onWindows), modeOf(join(onWindows, 'admin-token'))]).toEqual([0o755, 0o644])

    const onLinux = made()
    expect(tightenDataDir(onLinux, isOurs, platformFor('linux'))).toEqual([])
    expect([modeOf(onLinux), modeOf(join(onLinux, 'admin-token'))]).toEqual([0o700, 0o600])
  })

})

describe('the control socket', () => {
  test('a running server answers a command through it, replacing the socket file a crashed server left; a second server and the commands see it is there, and not once it stopped', async () => {
    const linux = platformFor('linux')
    const { deps, database, dir } = createTestDeps()
    writePidFile(dir)
    writeFileSync(join(dir, 'control.sock'), 'left by a crash')
    expect(await serverAnswers(dir, linux)).toBe(false)
    const jobs = await serveJobs({ deps, sqlite: database.sqlite, dataDir: dir }, linux)
    try {
      expect(statSync(join(dir, 'control.sock')).isSocket()).toBe(true)
      expect(modeOf(join(dir, 'control.sock'))).toBe(0o600)
      expect(await serverAnswers(dir, linux)).toBe(true)
      const report = await jobOnDataDir(dir, { kind: 'activity', query: ActivityQuery.parse({}) }, linux)
      expect(report.groups).toEqual([])
      // A failure of the job comes back as the command's own, with its lines.
      const failure = await jobOnDataDir(dir, { kind: 'backup', file: join(dir, 'no-such-folder', 'x.tar.gz') }, linux).catch((e) => e)
      expect(failure).toBeInstanceOf(CliFailure)
      expect(failure.lines.join('\n')).toContain('no-such-folder')
      // A connection that sends more than a job without ending its line is cut, and the next job is answered.
      const flood = connect(join(dir, 'control.sock'))
      const closed = new Promise<boolean>((resolve) => flood.on('close', () => resolve(true)))
      flood.on('error', () => {})
      flood.write('x'.repeat(256 * 1024))
      expect(await Promise.race([closed, Bun.sleep(5000).then(() => false)])).toBe(true)
      expect((await jobOnDataDir(dir, { kind: 'activity', query: ActivityQuery.parse({}) }, linux)).groups).toEqual([])
    } finally {
      jobs.stop()
    }
    expect(existsSync(join(dir, 'control.sock'))).toBe(false)
    expect(await serverAnswers(dir, linux)).toBe(false)
  })
})

describe('a backup through the running server', () => {
  test('holds the calls of its last second, still counted in memory when it began', async () => {
    const linux = platformFor('linux')
    const t = createTestApp({ settings: { rateLimitRps: '0' } })
    const { A } = await twoStores(t.call, t.deps)
    for (let i = 0; i < 3; i++) await t.call('GET', '/v1/store/settings', { headers: apiKey(A.key.apiKey) })
    writePidFile(t.dir)
    const jobs = await serveJobs({ deps: t.deps, sqlite: t.database.sqlite, dataDir: t.dir }, linux)
    const out = tempDir('backup')
    try {
      await jobOnDataDir(t.dir, { kind: 'backup', file: join(out, 'class.tgz') }, linux)
    } finally {
      jobs.stop()
    }
    const live = (await expectOk(t.call('GET', `/v1/admin/activity?groupId=${A.group.id}`, { headers: admin }))).groups[0].calls
    await restore(join(out, 'class.tgz'), join(out, 'restored'))
    const copy = new Database(join(out, 'restored', 'storefront.db'), { readonly: true })
    try {
      const kept = copy.query<{ n: number }, [string]>('select sum(calls) as n from activity_counts where group_id = ?').get(A.group.id)!.n
      expect([kept, live]).toEqual([live, kept])
      expect(kept).toBeGreaterThan(3)
    } finally {
      copy.close()
    }
  })
})

describe('removing a folder with everything in it', () => {
  /** A work folder as a backup leaves one, with links out of it to a folder and a file that must survive. */
  const tree = () => {
    const dir = tempDir('remove')
    const outside = join(dir, 'outside')
    mkdirSync(join(outside, 'kept'), { recursive: true })
    writeFileSync(join(outside, 'kept', 'photo.png'), 'png')
    writeFileSync(join(outside, 'note.txt'), 'note')
    const work = join(dir, '.storefront-backup-1-x')
    mkdirSync(join(work, 'media', 'sto_1'), { recursive: true })
    mkdirSync(join(work, 'empty'))
    writeFileSync(join(work, 'storefront.db'), 'db')
    writeFileSync(join(work, 'media', 'sto_1', 'med_1.png'), 'png')
    symlinkSync(join(outside, 'kept'), join(work, 'media', 'folder-link'))
    symlinkSync(join(outside, 'note.txt'), join(work, 'media', 'sto_1', 'file-link'))
    return { dir, outside, work }
  }

  test('one entry at a time (where the recursive call fails, as under wine): files, links and folders go, and what a link points to stays', () => {
    const { dir, outside, work } = tree()
    removeOneByOne(work)
    expect(readdirSync(dir)).toEqual(['outside'])
    expect([readFileSync(join(outside, 'kept', 'photo.png'), 'utf8'), readFileSync(join(outside, 'note.txt'), 'utf8')]).toEqual(['png', 'note'])
    removeOneByOne(work) // already gone: nothing to do, as rm -rf
    expect(readdirSync(dir)).toEqual(['outside'])
  })

  test('removeTree and removeTreeSync remove a folder, a single file, and nothing when the path is not there', async () => {
    const a = tree()
    await removeTree(a.work)
    await removeTree(join(a.outside, 'note.txt'))
    await removeTree(join(a.dir, 'nothing'))
    expect([readdirSync(a.dir), readdirSync(a.outside)]).toEqual([['outside'], ['kept']])
    const b = tree()
    removeTreeSync(b.work)
    removeTreeSync(join(b.dir, 'nothing'))
    expect([readdirSync(b.dir), readFileSync(join(b.outside, 'kept', 'photo.png'), 'utf8')]).toEqual([['outside'], 'png'])
  })
})
