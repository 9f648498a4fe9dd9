import { Database } from 'bun:sqlite'
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { mkdir, mkdtemp, rename, rm, symlink } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import { buildName, NewerDataFolder, refuseNewer } from '../../kernel/db/migrate'

export class BackupError extends Error {}

const DB = 'storefront.db'
export const PID_FILE = 'server.pid'

/**
 * A backup or a restore works on a full copy of the database, in a folder (and, for a backup, a
 * partial archive) named after the process doing it: `.storefront-backup-<pid>-…`. If that process
 * ends early the copy is removed on the way out; if it is killed, the next start, backup or restore
 * removes it, once no process has that pid (a live one may still be working on it).
 */
const WORK = /^\.storefront-(?:backup|restore)-(\d+)-/
const workPrefix = (kind: 'backup' | 'restore') => `.storefront-${kind}-${process.pid}-`

/** Removes the work that processes which are gone left in `dir`; returns the names removed. */
export function removeStaleWork(dir: string): string[] {
  const names = existsSync(dir) ? readdirSync(dir).sort() : []
  const stale = names.filter((name) => {
    const pid = WORK.exec(name)?.[1]
    return pid !== undefined && !processAlive(Number(pid))
  })
  for (const name of stale) rmSync(join(dir, name), { recursive: true, force: true })
  return stale
}

function processAlive(pid: number) {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM' // alive, another user's
  }
}

/** Work in progress in this process, removed if it exits first (a signal turned into process.exit). */
const inProgress = new Set<string>()
process.on('exit', () => {
  for (const path of inProgress) rmSync(path, { recursive: true, force: true })
})

async function withWork<T>(paths: string[], work: () => Promise<T>): Promise<T> {
  for (const path of paths) inProgress.add(path)
  try {
    return await work()
  } finally {
    for (const path of paths) {
      await rm(path, { recursive: true, force: true })
      inProgress.delete(path)
    }
  }
}

/**
 * A consistent copy of the data: `VACUUM INTO` writes a snapshot of the database on the connection that
 * holds it (a running server's own, which answers no request until the copy is written), then the
 * snapshot and the media folder are packed into one .tar.gz, readable by its owner only. Files uploaded
 * after the snapshot may be in it too; the next start removes those. The snapshot is made inside the
 * data folder, which is private.
 */
export async function backup(sqlite: Database, dataDir: string, file: string, progress: (m: string) => void = () => {}) {
  const tar = await import('tar') // loaded by the backup command only, not by the server
  const target = resolve(file)
  removeStaleWork(dataDir)
  removeStaleWork(dirname(target))
  const work = await mkdtemp(join(dataDir, workPrefix('backup')))
  const partial = join(dirname(target), `${basename(work)}.partial`)
  return withWork([work, partial], async () => {
    progress('copying the database')
    sqlite.exec(`VACUUM INTO '${join(work, DB).replaceAll("'", "''")}'`)
    await symlink(resolve(dataDir, 'media'), join(work, 'media'))
    let files = 0
    await tar.create(
      {
        gzip: true,
        file: partial,
        mode: 0o600,
        cwd: work,
        portable: true,
        follow: true,
        filter: (path) => !path.split('/').pop()!.startsWith('.tmp-'),
        onWriteEntry: () => {
          if (++files % 100 === 0) progress(`packed ${files} files`)
        },
      },
      [DB, ...(existsSync(join(dataDir, 'media')) ? ['media'] : [])],
    )
    await rename(partial, target)
    return { file: target, entries: files }
  })
}

/**
 * True while a server (or a command) has the folder's database open: it holds the file alone
 * (exclusive locking), so a connection of ours is refused at once. A pid file alone does not tell:
 * after a crash and a reboot its pid may belong to anything.
 */
function databaseHeld(dataDir: string): boolean {
  if (!existsSync(join(dataDir, DB))) return false
  const probe = new Database(join(dataDir, DB))
  try {
    probe.exec('PRAGMA busy_timeout = 0')
    probe.query('SELECT count(*) FROM sqlite_master').get()
    return false
  } catch (e) {
    if ((e as { code?: string }).code === 'SQLITE_BUSY') return true
    throw e
  } finally {
    probe.close()
  }
}

/** The pid in the data dir's pid file, if that process is alive (a server, or a crash's pid reused). */
export function serverRunning(dataDir: string): number | undefined {
  const pidFile = join(dataDir, PID_FILE)
  if (!existsSync(pidFile)) return undefined
  const pid = Number(readFileSync(pidFile, 'utf8'))
  try {
    process.kill(pid, 0)
    return pid
  } catch {
    return undefined // left behind by a crash
  }
}

/**
 * Replaces the data dir's database and media with a backup's. The server must be stopped. What was
 * there is kept aside in `before-restore-<time>/`, and the backup is checked before anything moves: a
 * damaged database, or one a newer build wrote (this build could not open it), changes nothing.
 */
export async function restore(file: string, dataDir: string, now = Date.now()) {
  if (databaseHeld(dataDir)) {
    const pid = serverRunning(dataDir)
    throw new BackupError(`the server is running on this data dir${pid ? ` (pid ${pid})` : ''}; stop it first, then restore`)
  }
  if (!existsSync(file)) throw new BackupError(`no backup file at ${file}`)
  await mkdir(dataDir, { recursive: true })
  removeStaleWork(dataDir)
  const tar = await import('tar')
  const work = await mkdtemp(join(dataDir, workPrefix('restore')))
  return withWork([work], async () => {
    await tar
      .extract({ file, cwd: work, strict: true, filter: (path) => path === DB || path.startsWith('media/') || path === 'media' })
      .catch((e) => {
        throw new BackupError(`${file} is not a Storefront backup (${(e as Error).message})`)
      })
    if (!existsSync(join(work, DB))) throw new BackupError(`${file} holds no ${DB}: it is not a Storefront backup`)
    checkRestorable(file, join(work, DB))
    const present = [DB, `${DB}-wal`, `${DB}-shm`, 'media'].filter((name) => existsSync(join(dataDir, name)))
    const aside = present.length ? join(dataDir, `before-restore-${new Date(now).toISOString().replace(/[:.]/g, '-')}`) : null
    if (aside) await mkdir(aside)
    for (const name of present) await rename(join(dataDir, name), join(aside!, name))
    await rename(join(work, DB), join(dataDir, DB))
    if (existsSync(join(work, 'media'))) await rename(join(work, 'media'), join(dataDir, 'media'))
    else await mkdir(join(dataDir, 'media'))
    return { aside }
  })
}

function checkRestorable(file: string, db: string) {
  const check = new Database(db, { readonly: true })
  try {
    const ok = (check.query('PRAGMA integrity_check').get() as { integrity_check: string }).integrity_check
    if (ok !== 'ok') throw new BackupError(`the database in ${file} is damaged (${ok}); nothing was changed`)
    refuseNewer(check)
  } catch (e) {
    if (!(e instanceof NewerDataFolder)) throw e
    throw new BackupError(`${file} was taken from ${buildName(e.writtenBy)}, newer than this ${buildName(e.thisBuild)}; nothing was changed. Restore it with that build or a later one`)
  } finally {
    check.close()
  }
}
