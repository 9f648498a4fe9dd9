import { describe, expect, test } from 'bun:test'
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { backup, restore } from '../../src/features/backup/service'
import { fileProblem, shellQuoted } from '../../src/kernel/file-messages'
import { createTestDeps } from '../helpers/app'
import { emptyDir } from '../helpers/executable'

/** A data folder with a database (the test app's) and a folder for backups beside it. */
function setup() {
  const t = createTestDeps()
  const out = emptyDir()
  return { ...t, out, take: (file: string) => backup(t.database.sqlite, t.dir, file) }
}

/** The message of what `work` rejects with (its class checked), or 'done'. */
const refusal = (work: Promise<unknown>) =>
  work.then(
    () => 'done',
    (e: Error) => `${e.constructor.name}: ${e.message}`,
  )

describe('where a backup is written, and where a restore writes', () => {
  test('a folder as the backup file is refused, naming a file in it; nothing is written there', async () => {
    const t = setup()
    const folder = join(t.out, 'backups')
    mkdirSync(folder)
    expect(await refusal(t.take(folder))).toBe(`BackupError: ${folder} is a folder: name the backup file in it, e.g. storefront backup ${join(folder, 'class-backup.tgz')}`)
    expect(readdirSync(folder)).toEqual([])
    expect(readdirSync(t.out)).toEqual(['backups'])
  })

  test('a file that is not a backup is never replaced; an earlier backup is, and the answer says so', async () => {
    const t = setup()
    const list = join(t.out, 'turma.csv')
    writeFileSync(list, 'Azul,100,Ana\n')
    expect(await refusal(t.take(list))).toBe(
      `BackupError: ${list} exists and is not a backup (a .tgz that storefront backup wrote): nothing was written. Name another file, or delete this one first if it is not needed`,
    )
    expect(readFileSync(list, 'utf8')).toBe('Azul,100,Ana\n')
    const empty = join(t.out, 'empty.tgz')
    writeFileSync(empty, '')
    expect(await refusal(t.take(empty))).toStartWith(`BackupError: ${empty} exists and is not a backup`)
    // A named pipe is refused without being opened (which waits for a writer), and stays.
    const pipe = join(t.out, 'pipe.tgz')
    expect(Bun.spawnSync(['mkfifo', pipe]).exitCode).toBe(0)
    expect(await refusal(t.take(pipe))).toStartWith(`BackupError: ${pipe} exists and is not a backup`)

    const file = join(t.out, 'class.tgz')
    expect(await t.take(file)).toMatchObject({ file, replaced: false })
    expect(await t.take(file)).toMatchObject({ file, replaced: true })
    // Only the backup is there: no partial file, no copy.
    expect(readdirSync(t.out).sort()).toEqual(['class.tgz', 'empty.tgz', 'pipe.tgz', 'turma.csv'])
    const restored = join(emptyDir(), 'data')
    expect(await restore(file, restored)).toEqual({ aside: null })
  })

  test('a restore names a folder given as the file, and a data folder it cannot write into; nothing is made', async () => {
    const t = setup()
    const file = join(t.out, 'class.tgz')
    await t.take(file)
    const target = join(emptyDir(), 'data')
    expect(await refusal(restore(t.out, target))).toBe(`BackupError: ${t.out} is a folder: name the backup file (a .tgz that storefront backup wrote)`)
    const notAFolder = join(t.out, 'data-file')
    writeFileSync(notAFolder, 'x')
    expect(await refusal(restore(file, notAFolder))).toBe(
      `BackupError: cannot write into the data folder ${notAFolder} (a file is in the way); nothing was changed. Give --data a folder this user can write to (a server started with sudo leaves its folder to root)`,
    )
    expect(readFileSync(notAFolder, 'utf8')).toBe('x')
  })

  test('file problems in words, and paths quoted where a shell would split them', () => {
    const problem = (code: string) => fileProblem(Object.assign(new Error('raw'), { code }))
    expect(['EACCES', 'EPERM', 'ENOSPC', 'EROFS', 'EXDEV'].map(problem)).toEqual(['permission denied', 'permission denied', 'the disk is full', 'the disk is read-only', 'EXDEV'])
    expect(shellQuoted('/srv/class/backup.tgz')).toBe('/srv/class/backup.tgz')
    expect(shellQuoted('C:\\Users\\João Silva\\class.tgz')).toBe('"C:\\Users\\João Silva\\class.tgz"')
  })
})
