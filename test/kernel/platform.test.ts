import { describe, expect, test } from 'bun:test'
import { chmodSync, constants, existsSync, mkdirSync, openSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CliFailure, jobOnDataDir, serveJobs } from '../../src/cli/jobs'
import { ActivityQuery } from '../../src/features/activity/model'
import { isOurs, writePidFile } from '../../src/kernel/data-dir'
import { platformFor, processState } from '../../src/kernel/platform'
import { keepPrivate, tightenDataDir } from '../../src/kernel/private-files'
import { createTestDeps } from '../helpers/app'
import { tempDir } from '../helpers/temp'

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

  test('Windows: no control socket, no modes; Ctrl-C, Ctrl-Break and closing the console window stop', () => {
    expect(windows.fileModes).toBe(false)
    expect(windows.controlSocket('C:\\Users\\ana\\data', 'control.sock')).toBeUndefined()
    expect(windows.stopSignals).toEqual(['SIGINT', 'SIGBREAK', 'SIGHUP'])
  })

  test('a file is opened for reading without following a link where the system can (O_NOFOLLOW), and plainly on Windows, which has no such flag', () => {
    for (const name of ['linux', 'darwin'] as const) expect(platformFor(name).readNoFollow).toBe(constants.O_RDONLY | constants.O_NOFOLLOW)
    expect(constants.O_NOFOLLOW).toBeGreaterThan(0)
    expect(windows.readNoFollow).toBe(constants.O_RDONLY)
    const dir = tempDir('nofollow')
    writeFileSync(join(dir, 'secret'), 'adm_x')
    symlinkSync(join(dir, 'secret'), join(dir, 'link'))
    expect(() => openSync(join(dir, 'link'), platformFor('linux').readNoFollow)).toThrow(expect.objectContaining({ code: 'ELOOP' }))
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

  test('a running server opens no control socket, and a command on its folder says to stop it first', async () => {
    const { deps, database, dir } = createTestDeps()
    writePidFile(dir)
    const jobs = serveJobs({ deps, sqlite: database.sqlite, dataDir: dir }, windows)
    try {
      expect(existsSync(join(dir, 'control.sock'))).toBe(false)
      const failure = await jobOnDataDir(dir, { kind: 'activity', query: ActivityQuery.parse({}) }, windows).catch((e) => e)
      expect(failure).toBeInstanceOf(CliFailure)
      expect(failure.lines).toEqual([
        `the server running on ${dir} (pid ${process.pid}) holds the database, and on this system commands cannot reach a running server: stop it (Ctrl-C in its window), run the command, then start the server again`,
      ])
    } finally {
      jobs.stop()
    }

    // The same server on Linux answers the command through its socket.
    const linux = serveJobs({ deps, sqlite: database.sqlite, dataDir: dir }, platformFor('linux'))
    try {
      expect(existsSync(join(dir, 'control.sock'))).toBe(true)
      const report = await jobOnDataDir(dir, { kind: 'activity', query: ActivityQuery.parse({}) }, platformFor('linux'))
      expect(report.groups).toEqual([])
    } finally {
      linux.stop()
    }
  })
})
