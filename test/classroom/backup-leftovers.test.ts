import type { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { backup } from '../../src/features/backup/service'
import { createTestDeps } from '../helpers/app'
import { track } from '../helpers/children'
import { limit } from '../helpers/limits'
import { buildExecutable, emptyDir, runExecutable, startExecutable } from '../helpers/executable'

const bin = await buildExecutable()

const cli = (args: string[], cwd: string) => runExecutable(bin, args, cwd)

/** What a backup works on: `.storefront-backup-…` folders and partial archives (and the older `<file>.partial`). */
const leftovers = (...dirs: string[]) => dirs.flatMap((dir) => readdirSync(dir).filter((n) => n.startsWith('.storefront-') || n.endsWith('.partial')))

/** A data folder with a group, and the database copy a backup killed with SIGKILL left (pid gone). */
async function folderWithLeftover(dir: string) {
  writeFileSync(join(dir, 'class.csv'), 'Azul,100,Ana\n')
  expect((await cli(['groups', 'import', 'class.csv', '--data', 'data'], dir)).code).toBe(0)
  const gone = Bun.spawn(['true'])
  await gone.exited
  const dead = `.storefront-backup-${gone.pid}-k1ll3d`
  mkdirSync(join(dir, 'data', dead))
  writeFileSync(join(dir, 'data', dead, 'storefront.db'), 'a full copy of the database')
  return { dead, deadPid: gone.pid }
}

/** A data folder with a group. */
async function folderWithClass() {
  const dir = emptyDir()
  writeFileSync(join(dir, 'class.csv'), 'Azul,100,Ana\n')
  await cli(['groups', 'import', 'class.csv', '--data', 'data'], dir)
  return dir
}

/**
 * Enough media that packing takes a while (random bytes do not compress), named as the library names
 * its files, so that a backup packs it. Put there while a server runs: one that starts sweeps it away,
 * as no library row holds it.
 */
function addBigMedia(dir: string) {
  const store = join(dir, 'data', 'media', `str_${'b'.repeat(20)}`)
  mkdirSync(store, { recursive: true })
  writeFileSync(join(store, `med_${'m'.repeat(20)}.mp4`), crypto.getRandomValues(new Uint8Array(40 * 1024 * 1024)))
}

/** `backup class.tgz` started, once the archive is being written: the database copy is done, packing has begun. */
async function caughtHalfWay(dir: string) {
  const proc = track(Bun.spawn([bin, 'backup', 'class.tgz', '--data', 'data'], { cwd: dir, stdout: 'pipe', stderr: 'pipe' }))
  const deadline = Date.now() + 15_000
  while (!readdirSync(dir).some((n) => n.endsWith('.partial'))) {
    if (Date.now() > deadline || proc.exitCode !== null) throw new Error(`the backup was not caught half-way: ${await new Response(proc.stderr).text()}`)
    await Bun.sleep(5)
  }
  return proc
}

describe('a backup that does not finish leaves no copy of the database behind', () => {
  test('stopped with Ctrl-C half-way through, it removes its copy and its partial archive', async () => {
    const dir = await folderWithClass()
    addBigMedia(dir)
    const proc = await caughtHalfWay(dir)
    proc.kill('SIGINT')
    expect(await proc.exited).toBe(130)
    expect(await new Response(proc.stderr).text()).toEndWith('storefront: stopped; the backup is cancelled: its partial file is removed, and nothing is written to the target\n')
    expect(leftovers(dir, join(dir, 'data'))).toEqual([])
    expect(existsSync(join(dir, 'class.tgz'))).toBe(false)
  })

  test('stopped with Ctrl-C while the running server makes it, the server stops it too: no archive, no partial file', async () => {
    const dir = await folderWithClass()
    const server = await startExecutable(bin, dir, ['--data', 'data'])
    try {
      addBigMedia(dir)
      const proc = await caughtHalfWay(dir)
      proc.kill('SIGINT')
      expect(await proc.exited).toBe(130)
      // The server finishes the file it was packing, then drops the archive.
      const deadline = Date.now() + limit(15_000)
      while (leftovers(dir, join(dir, 'data')).length > 0 && Date.now() < deadline) await Bun.sleep(20)
      expect(leftovers(dir, join(dir, 'data'))).toEqual([])
      expect(existsSync(join(dir, 'class.tgz'))).toBe(false)
      // And it still makes the next one.
      const res = await cli(['backup', 'class.tgz', '--data', 'data'], dir)
      expect([res.code, res.stderr]).toEqual([0, ''])
      expect(existsSync(join(dir, 'class.tgz'))).toBe(true)
    } finally {
      expect(await server.stop()).toBe(0)
    }
  })

  test('a copy left by a killed backup is removed by the next backup, in the data folder and beside the archive', async () => {
    const dir = emptyDir()
    const { dead, deadPid } = await folderWithLeftover(dir)
    writeFileSync(join(dir, `.storefront-backup-${deadPid}-k1ll3d.partial`), 'half an archive')
    // One whose process still runs (this test) is someone's backup in progress: it stays.
    const live = `.storefront-backup-${process.pid}-busy`
    mkdirSync(join(dir, 'data', live))
    const res = await cli(['backup', 'class.tgz', '--data', 'data'], dir)
    expect([res.code, res.stderr]).toEqual([0, ''])
    expect(leftovers(dir, join(dir, 'data'))).toEqual([live])
    expect(existsSync(join(dir, 'data', dead))).toBe(false)
  })

  test('a copy left by a killed backup or restore is removed when the server starts, and the log says so', async () => {
    const dir = emptyDir()
    const { dead, deadPid } = await folderWithLeftover(dir)
    mkdirSync(join(dir, 'data', `.storefront-restore-${deadPid}-k1ll3d`))
    const server = await startExecutable(bin, dir)
    expect(await server.stop()).toBe(0)
    expect(leftovers(join(dir, 'data'))).toEqual([])
    expect(server.stdout()).toContain(`removed the database copies of interrupted backups or restores: ${dead}, .storefront-restore-${deadPid}-k1ll3d`)
  })

  test('a copy that fails half-way is removed at once, and the error is the copy\'s', async () => {
    const { deps, dir } = createTestDeps()
    const target = join(emptyDir(), 'class.tgz')
    // VACUUM INTO writes the copy, then the disk fails.
    const failing = {
      exec(sql: string) {
        deps.sqlite.exec(sql)
        throw new Error('disk I/O error')
      },
    } as unknown as Database
    await expect(backup(failing, dir, target)).rejects.toThrow('disk I/O error')
    expect(leftovers(dir, join(target, '..'))).toEqual([])
    expect(existsSync(target)).toBe(false)
  })
})
