import { Database } from 'bun:sqlite'
import { accessSync, constants, existsSync, linkSync, lstatSync, mkdirSync, readdirSync, realpathSync, statfsSync, statSync, type Stats } from 'node:fs'
import { mkdir, mkdtemp, rename, rmdir } from 'node:fs/promises'
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { asideName, DATA_NAMES, DATABASE_FILES, databaseHeld, dataPath, removeStaleWork, serverRunning, workPrefix } from '../../kernel/data-dir'
import { commitGroup } from '../../kernel/db/database'
import { schemaDifferences, type SchemaDifference } from '../../kernel/db/expected-schema'
import { buildName, NewerDataFolder, refuseNewer } from '../../kernel/db/migrate'
import { fileProblem, shellQuoted } from '../../kernel/file-messages'
import { removeTree, removeTreeSync } from '../../kernel/platform'
import { pluralize } from '../../kernel/plural'
import { extractArchive, inspectArchive, isBackupEntry, startsLikeGzip } from './archive'
import { BackupError, printable, quoted, RefusedBackup } from './errors'

export { BackupError, RefusedBackup }

const { database: DB, media: MEDIA } = DATA_NAMES

/**
 * Work in progress in this process (a copy named by workPrefix, data-dir.ts), removed if it exits
 * first (a signal turned into process.exit); one left by a killed process goes with removeStaleWork.
 */
const inProgress = new Set<string>()
process.on('exit', () => {
  for (const path of inProgress) removeTreeSync(path)
})

async function withWork<T>(paths: string[], work: () => Promise<T>): Promise<T> {
  for (const path of paths) inProgress.add(path)
  try {
    return await work()
  } finally {
    for (const path of paths) {
      await removeTree(path)
      inProgress.delete(path)
    }
  }
}

/**
 * A consistent copy of the data: `VACUUM INTO` writes a snapshot of the database on the connection that
 * holds it (a running server's own, which answers no request until the copy is written), and the media
 * files are linked beside it in the same turn (linkMedia); then both are packed into one .tar.gz,
 * readable by its owner only. On a disk without hard links the media folder is packed as it is then:
 * files uploaded after the snapshot may be in it (the next start removes those), and one deleted
 * meanwhile fails the backup, which says to run it again. The snapshot is made inside the
 * data folder, which is private. Only what a restore accepts is packed (archive.ts): a link, or a file
 * someone put in the media folder by hand, is left out. `cancelled` (the command that asked a running
 * server for it went away) stops it before the archive takes the target's name.
 */
export async function backup(sqlite: Database, dataDir: string, file: string, progress: (m: string) => void = () => {}, cancelled?: AbortSignal) {
  const target = resolve(file)
  // `backup data/storefront.db` put the archive in place of the database it copied.
  if (isInside(dataDir, target)) {
    throw new BackupError(
      `${target} is inside the data folder ${resolve(dataDir)}: write the backup outside it, where it can neither replace the database nor go with the folder (a restore moves the folder aside). For example: storefront backup ${shellQuoted(join(dirname(resolve(dataDir)), 'class-backup.tgz'))}`,
    )
  }
  if (!existsSync(dirname(target))) throw new BackupError(`the folder ${dirname(target)} does not exist: create it first, or write the backup into another folder`)
  const replaces = replacedBackup(target)
  const tar = await import('tar') // loaded by the backup command only, not by the server
  removeStaleWork(dataDir)
  removeStaleWork(dirname(target))
  const work = await mkdtemp(join(dataDir, workPrefix('backup')))
  const partial = join(dirname(target), `${basename(work)}.partial`)
  return withWork([work, partial], async () => {
    progress('copying the database')
    // The writes of an open commit group are answered once committed: the copy has them all.
    commitGroup(sqlite)
    sqlite.exec(`VACUUM INTO '${dataPath(work, 'database').replaceAll("'", "''")}'`)
    // In the same turn, the media files as they are now: a file deleted while the archive is packed
    // is still in it, as its record is in the snapshot. Else (a disk without hard links) packed from
    // the data folder itself, the snapshot under the name a data folder gives it.
    const linked = linkMedia(dataDir, work)
    const from = linked ? work : dataDir
    const snapshot = linked ? DB : `${basename(work)}/${DB}`
    progress('packing the files')
    let files = 0
    await told(() => tar.create(
      {
        gzip: true,
        file: partial,
        mode: 0o600,
        cwd: from,
        portable: true,
        // Cancelled: the entries left are skipped, and the archive is dropped below.
        filter: (path, stat) => !cancelled?.aborted && (path === snapshot || isPacked(path, stat as Stats)),
        onWriteEntry: (entry) => {
          if (entry.path === snapshot) entry.path = DB
          if (++files % 100 === 0) progress(`packed ${files} files`)
        },
      },
      [snapshot, ...(existsSync(dataPath(from, 'media')) ? [MEDIA] : [])],
    ), packFailure(dataDir, from, target))
    if (cancelled?.aborted) throw new BackupError(`the backup to ${target} was cancelled; nothing was written`)
    await told(() => rename(partial, target), cannotWrite(target))
    return { file: target, entries: files, replaced: replaces }
  })
}

/**
 * Hard links, in `work`'s media folder, to the library files of the data folder's (what a restore
 * accepts, archive.ts), made synchronously: a server answers nothing meanwhile, so they are the files
 * of the database snapshot just taken, and a file deleted afterwards keeps its bytes for the archive.
 * A link costs no copy. False, with nothing made, on a disk that has no hard links (FAT, some shares).
 */
function linkMedia(dataDir: string, work: string): boolean {
  const source = dataPath(dataDir, 'media')
  const target = dataPath(work, 'media')
  if (!lstatSync(source, { throwIfNoEntry: false })?.isDirectory()) return true
  try {
    mkdirSync(target)
    for (const store of readdirSync(source, { withFileTypes: true })) {
      if (!store.isDirectory() || !isBackupEntry(`${MEDIA}/${store.name}`, 'folder')) continue
      mkdirSync(join(target, store.name))
      for (const file of readdirSync(join(source, store.name), { withFileTypes: true })) {
        if (file.isFile() && isBackupEntry(`${MEDIA}/${store.name}/${file.name}`, 'file')) linkFile(join(source, store.name, file.name), join(target, store.name, file.name))
      }
    }
    return true
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code !== 'EPERM' && code !== 'EXDEV' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw e
    removeTreeSync(target)
    return false
  }
}

/**
 * A link to one library file, unless it is gone: a deletion whose record went before the copy may
 * remove its file while the links are made (its removal runs off the event loop).
 */
function linkFile(source: string, target: string) {
  try {
    linkSync(source, target)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e
  }
}

/**
 * Whether writing the backup to `target` replaces an earlier one (true) or makes a new file (false).
 * A folder, or a file that is not a .tar.gz (a class list, a document), is refused: `backup
 * turma.csv` replaced the class list with the archive, without a word.
 */
function replacedBackup(target: string): boolean {
  let stat: Stats | undefined
  try {
    stat = statSync(target, { throwIfNoEntry: false })
  } catch (e) {
    throw cannotWrite(target)(e)
  }
  if (!stat) return false
  if (stat.isDirectory()) throw new BackupError(`${target} is a folder: name the backup file in it, e.g. storefront backup ${shellQuoted(join(target, 'class-backup.tgz'))}`)
  const notABackup = () =>
    new BackupError(`${target} exists and is not a backup (a .tgz that storefront backup wrote): nothing was written. Name another file, or delete this one first if it is not needed`)
  // Only a plain file is opened: opening a named pipe waits for a writer, for ever.
  if (!stat.isFile()) throw notABackup()
  let gzip: boolean
  try {
    gzip = startsLikeGzip(target)
  } catch (e) {
    throw cannotWrite(target)(e)
  }
  if (!gzip) throw notABackup()
  return true
}

/** `work`, whose failures on files (permissions, a full disk, a file in the way) are told by `refusal`. */
async function told<T>(work: () => Promise<T>, refusal: (e: unknown) => BackupError): Promise<T> {
  try {
    return await work()
  } catch (e) {
    if (!(e as NodeJS.ErrnoException).code) throw e
    throw refusal(e)
  }
}

/**
 * Why packing failed: a file of the data folder that went away or could not be read while it was
 * packed (without hard links, a media file deleted meanwhile), else the target that could not be written.
 */
const packFailure = (dataDir: string, packedFrom: string, target: string) => (e: unknown) => {
  const path = (e as NodeJS.ErrnoException).path
  if (path === undefined || !isInside(dataDir, resolve(packedFrom, path))) return cannotWrite(target)(e)
  return new BackupError(`${printable(path)} in the data folder could not be read while it was packed (${fileProblem(e)}): a file deleted meanwhile, most likely; nothing was written. Run the backup again`)
}

/** The refusal of a backup `target` this user cannot write. */
const cannotWrite = (target: string) => (e: unknown) =>
  new BackupError(`cannot write the backup to ${target} (${fileProblem(e)}); nothing was written. Choose a folder this user can write to, on a disk with room`)

/**
 * Whether `path` (which need not exist yet) is `folder` or inside it, links resolved: on its disk's own
 * spelling of the folders that exist, so that DATA/ and data/ on a disk that ignores case are one.
 */
function isInside(folder: string, path: string): boolean {
  const real = (p: string): string => {
    try {
      return realpathSync.native(p)
    } catch {
      const parent = dirname(p)
      return parent === p ? p : join(real(parent), basename(p))
    }
  }
  const rel = relative(real(resolve(folder)), real(resolve(path)))
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel))
}

/** What a backup packs from the data folder: the plain files and folders a restore accepts. */
const isPacked = (path: string, stat: Stats) => (stat.isFile() || stat.isDirectory()) && isBackupEntry(path, stat.isFile() ? 'file' : 'folder')

/**
 * Replaces the data dir's database and media with a backup's. The server must be stopped. What was
 * there is kept aside in `before-restore-<time>/`, and the backup is checked before anything moves: a
 * damaged database, or one a newer build wrote (this build could not open it), changes nothing.
 *
 * A backup file is passed around (a shared drive, a student's USB stick), so it is trusted no further
 * than a backup can be: every entry is read before anything is written, and an archive holding anything
 * but the files and folders a backup writes (a link, a device, another name) is refused whole
 * (RefusedBackup), as is a database whose schema is not exactly the one its migrations make (an extra
 * trigger would run on the server's own writes). Either way the data folder is left as it was.
 */
export async function restore(file: string, dataDir: string, now = Date.now(), freeBytesAt = freeBytes) {
  if (databaseHeld(dataDir)) {
    const pid = serverRunning(dataDir)
    // Held with no server: another command (a backup, an import) has the folder open for a while.
    throw new BackupError(
      pid
        ? `the server is running on this data dir (pid ${pid}); stop it first, then restore`
        : 'another storefront command (a backup, an import, a report) is using this data dir; wait until it ends, then restore',
    )
  }
  if (!existsSync(file)) throw new BackupError(`no backup file at ${file}`)
  try {
    if (statSync(file).isDirectory()) throw new BackupError(`${file} is a folder: name the backup file (a .tgz that storefront backup wrote)`)
    accessSync(file, constants.R_OK)
  } catch (e) {
    if (e instanceof BackupError) throw e
    throw new BackupError(`cannot read ${file} (${fileProblem(e)}); nothing was changed. Make it readable by this user, or copy it somewhere that is`)
  }
  const bytes = await inspectArchive(file)
  const free = freeBytesAt(dataDir)
  if (bytes > free) {
    throw new BackupError(
      `${file} unpacks to ${mebibytes(bytes)} but the disk of ${dataDir} has ${mebibytes(free)} free; nothing was changed. Make room, or restore into a data folder on a larger disk`,
    )
  }
  const created = !existsSync(dataDir)
  const work = await told(
    async () => {
      await mkdir(dataDir, { recursive: true })
      removeStaleWork(dataDir)
      return mkdtemp(join(dataDir, workPrefix('restore')))
    },
    (e) => new BackupError(`cannot write into the data folder ${dataDir} (${fileProblem(e)}); nothing was changed. Give --data a folder this user can write to (a server started with sudo leaves its folder to root)`),
  )
  try {
    return await withWork([work], async () => {
      await extractArchive(file, work, bytes)
      if (!existsSync(dataPath(work, 'database'))) throw new BackupError(`${file} holds no ${DB}: it is not a Storefront backup`)
      checkRestorable(file, dataPath(work, 'database'))
      const present = [...DATABASE_FILES, MEDIA].filter((name) => existsSync(join(dataDir, name)))
      const aside = present.length ? join(dataDir, asideName(now)) : null
      if (aside) await mkdir(aside)
      for (const name of present) await rename(join(dataDir, name), join(aside!, name))
      await rename(dataPath(work, 'database'), dataPath(dataDir, 'database'))
      if (existsSync(dataPath(work, 'media'))) await rename(dataPath(work, 'media'), dataPath(dataDir, 'media'))
      else await mkdir(dataPath(dataDir, 'media'))
      return { aside }
    })
  } catch (e) {
    // A folder made for this restore goes with it, once empty.
    if (created) await rmdir(dataDir).catch(() => {})
    throw e
  }
}

function checkRestorable(file: string, db: string) {
  let check: Database | undefined
  try {
    check = new Database(db, { readonly: true })
    const ok = (check.query('PRAGMA integrity_check').get() as { integrity_check: string }).integrity_check
    if (ok !== 'ok') throw new BackupError(`the database in ${file} is damaged (${printable(ok)}); nothing was changed`)
    refuseNewer(check)
    const differences = schemaDifferences(check)
    if (differences.length) {
      const [first, ...more] = differences.map(described)
      const others = more.length ? ` (and ${pluralize(more.length, 'other difference')})` : ''
      throw new RefusedBackup(
        `the database in ${file} is not as Storefront's migrations make it: ${first}${others}; nothing was changed. Restore a backup that storefront backup wrote`,
      )
    }
  } catch (e) {
    if (e instanceof NewerDataFolder) {
      throw new BackupError(`${file} was taken from ${buildName(e.writtenBy)}, newer than this ${buildName(e.thisBuild)}; nothing was changed. Restore it with that build or a later one`)
    }
    // SQLite could not read it: not a database, or one damaged past its own check.
    if (!(e as { code?: string }).code?.startsWith('SQLITE_')) throw e
    throw new BackupError(`the database in ${file} cannot be read (${printable((e as Error).message)}); nothing was changed`)
  } finally {
    check?.close()
  }
}

function described(d: SchemaDifference): string {
  switch (d.kind) {
    case 'extra':
      return `it has ${/^[aeiou]/.test(d.object.type) ? 'an' : 'a'} ${d.object.type} ${quoted(d.object.name)} that they do not make`
    case 'changed':
      return `its ${d.object.type} ${quoted(d.object.name)} differs from the one they make`
    case 'missing':
      return `it lacks the ${d.object.type} ${quoted(d.object.name)} that they make`
    case 'history':
      return `it records ${pluralize(d.recorded, 'migration')} that are not this build's first ${d.recorded}`
  }
}

/** The bytes free for this process on the disk that holds `path`, or would hold it once made. */
function freeBytes(path: string): number {
  let at = resolve(path)
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at)
  const disk = statfsSync(at)
  return disk.bavail * disk.bsize
}

const mebibytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`
