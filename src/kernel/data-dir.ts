import { Database } from 'bun:sqlite'
import { accessSync, constants, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { join } from 'node:path'
import { ConfigError } from '../config'
import { DatabaseInUse, openDatabase, type OpenDatabase } from './db/open'
import { fileProblem, shellQuoted } from './file-messages'
import { migrate, NewerDataFolder } from './db/migrate'
import { platform, processState, removeTreeSync, type Platform } from './platform'
import { tightenDataDir } from './private-files'

/**
 * The data folder: what it holds, under which names, and who holds it. Every other module asks here
 * for a path; none spells a name of its own. A backup archive holds the database and media under the
 * same names, so a backup's or restore's work copy is laid out like a data folder too.
 */
export const DATA_NAMES = {
  database: 'storefront.db',
  media: 'media',
  adminToken: 'admin-token',
  /** Names the server that holds the folder, for the messages of a second server and of the commands. */
  pidFile: 'server.pid',
  controlSocket: 'control.sock',
} as const

export const dataPath = (dataDir: string, what: Exclude<keyof typeof DATA_NAMES, 'controlSocket'>) => join(dataDir, DATA_NAMES[what])

/** The database and the files SQLite keeps beside it while it is open, which go wherever it goes. */
export const DATABASE_FILES = ['', '-wal', '-shm'].map((end) => DATA_NAMES.database + end)

/**
 * A backup or a restore works on a full copy of the database, in a folder (and, for a backup, a
 * partial archive) named after the process doing it: `.storefront-backup-<pid>-…`. If that process
 * is killed, the next start, backup or restore removes it, once no process has that pid (a live one
 * may still be working on it).
 */
const WORK = /^\.storefront-(?:backup|restore)-(\d+)-/
export const workPrefix = (kind: 'backup' | 'restore') => `.storefront-${kind}-${process.pid}-`
/** Where a restore keeps what it replaced. */
const ASIDE = 'before-restore-'
export const asideName = (now: number) => `${ASIDE}${new Date(now).toISOString().replace(/[:.]/g, '-')}`

const KEPT = new Set<string>([...Object.values(DATA_NAMES), ...DATABASE_FILES, `${DATA_NAMES.database}-journal`])
/** What Storefront keeps in a data folder; anything else a teacher put there is left alone. */
export const isOurs = (name: string) => KEPT.has(name) || /^\.storefront-(backup|restore)-./.test(name) || (name.startsWith(ASIDE) && name.length > ASIDE.length)

/**
 * Creates the data dir (and media/) or says, as a configuration error, why it cannot; makes a folder
 * an older build left readable to everyone private, and removes the database copies of backups and
 * restores whose process was killed. Returns what it found, for the log.
 */
export function prepareDataDir(dataDir: string) {
  try {
    mkdirSync(dataPath(dataDir, 'media'), { recursive: true })
    accessSync(dataDir, constants.W_OK)
  } catch (e) {
    throw new ConfigError(`--data / DATA_DIR: cannot create or write the folder ${dataDir} (${fileProblem(e)}); choose a folder you can write to`)
  }
  return { notPrivate: tightenDataDir(dataDir, isOurs), staleWork: removeStaleWork(dataDir) }
}

/** SQLite's answers to a database file this user may not write, or that is not one: the teacher's to fix. */
const NOT_WRITABLE = new Set(['SQLITE_CANTOPEN', 'SQLITE_PERM', 'SQLITE_READONLY', 'SQLITE_AUTH'])
const NOT_A_DATABASE = new Set(['SQLITE_NOTADB', 'SQLITE_CORRUPT'])

/** Why the data dir's database cannot be used, as a configuration error that says what to do; undefined for anything else. */
function unusableDatabase(dataDir: string, e: unknown): ConfigError | undefined {
  const code = (e as { code?: unknown }).code
  const file = dataPath(dataDir, 'database')
  if (typeof code === 'string' && NOT_A_DATABASE.has(code)) {
    return new ConfigError(`--data / DATA_DIR: ${file} is not a Storefront database, or is damaged (${code}); nothing in it was changed. Restore a backup into the folder (storefront restore <file> --data ${shellQuoted(dataDir)}), or choose another folder`)
  }
  if ((typeof code === 'string' && NOT_WRITABLE.has(code)) || code === 'EACCES' || code === 'EPERM') {
    return new ConfigError(`--data / DATA_DIR: cannot open ${file} for reading and writing (${code}). Make the folder's files belong to the user who runs storefront (a restore run with sudo leaves them to root), or choose another folder`)
  }
  return undefined
}

/** The data dir's database, migrated. A folder a newer build wrote is refused, and left as it was. */
export function openDataDatabase(dataDir: string): OpenDatabase {
  let database: OpenDatabase
  try {
    // SQLite opens a file it may only read without a word, and every write would then fail.
    for (const name of DATABASE_FILES) if (existsSync(join(dataDir, name))) accessSync(join(dataDir, name), constants.R_OK | constants.W_OK)
    database = openDatabase(dataPath(dataDir, 'database'))
  } catch (e) {
    throw unusableDatabase(dataDir, e) ?? e
  }
  try {
    migrate(database.db)
    return database
  } catch (e) {
    database.close()
    if (!(e instanceof NewerDataFolder)) throw unusableDatabase(dataDir, e) ?? e
    const newer = e.writtenBy.version ? `Storefront ${e.writtenBy.version}` : 'that build'
    throw new ConfigError(`--data / DATA_DIR: ${dataDir} was ${e.message}; nothing in it was changed. Run ${newer} or a later one on it, or choose another folder`)
  }
}

/** For a server: the database, opened and migrated, or a configuration error that says who holds it. */
export async function openForServer(dataDir: string): Promise<OpenDatabase> {
  const serving = () => new ConfigError(`--data / DATA_DIR: another Storefront (pid ${serverRunning(dataDir)}) is serving ${dataDir}; stop it first, or choose another folder`)
  if (await serverAnswers(dataDir)) throw serving()
  try {
    return openDataDatabase(dataDir)
  } catch (e) {
    if (!(e instanceof DatabaseInUse)) throw e
    if (serverRunning(dataDir)) throw serving()
    throw new ConfigError(`--data / DATA_DIR: ${dataDir} is in use by a storefront command; wait until it ends, then start again`)
  }
}

/**
 * Where the server of a data dir listens for the teacher's commands: `control.sock` in the folder, or,
 * when that path is too long for a socket address, a name in the temp folder made from it; a named
 * pipe on Windows (kernel/platform.ts). Both are named from the folder's final path, as the system
 * resolves it, so that every way of writing one folder finds its server: through a link, a short
 * (8.3) name such as C:\Users\ZO_~1, a subst or mapped drive. The path as given when it cannot be resolved.
 */
export const controlSocketPath = (dataDir: string, on: Platform = platform) => on.controlSocket(finalPath(dataDir), DATA_NAMES.controlSocket)

function finalPath(dataDir: string) {
  try {
    return realpathSync.native(dataDir)
  } catch {
    return dataDir
  }
}

/** True when a live server listens on the data dir's control socket (a pid file alone may be a crash's). */
export function serverAnswers(dataDir: string, on: Platform = platform) {
  return new Promise<boolean>((resolve) => {
    const socket = connect(controlSocketPath(dataDir, on))
    socket.on('connect', () => {
      socket.end()
      resolve(true)
    })
    socket.on('error', () => resolve(false))
  })
}

/** The pid file: written by the server once it listens, removed when it stops. */
export const writePidFile = (dataDir: string) => writeFileSync(dataPath(dataDir, 'pidFile'), String(process.pid))
export const removePidFile = (dataDir: string) => rmSync(dataPath(dataDir, 'pidFile'), { force: true })

/**
 * The pid in the data dir's pid file, if this user may signal that process (a server, or a crash's
 * pid reused). Another user's process is not ours: the folder is private to the user who serves it.
 */
export function serverRunning(dataDir: string): number | undefined {
  const pidFile = dataPath(dataDir, 'pidFile')
  if (!existsSync(pidFile)) return undefined
  const pid = Number(readFileSync(pidFile, 'utf8'))
  // One whose process is gone was left behind by a crash.
  return processState(pid) === 'ours' ? pid : undefined
}

/**
 * True while a server (or a command) has the folder's database open: its process holds the file alone
 * (openDatabase), so a connection of this process is refused at once. A pid file alone does not tell:
 * after a crash and a reboot its pid may belong to anything.
 */
export function databaseHeld(dataDir: string): boolean {
  const file = dataPath(dataDir, 'database')
  if (!existsSync(file)) return false
  const probe = new Database(file)
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

/** Removes the work that processes which are gone left in `dir`; returns the names removed. */
export function removeStaleWork(dir: string): string[] {
  const names = existsSync(dir) ? readdirSync(dir).sort() : []
  const stale = names.filter((name) => {
    const pid = WORK.exec(name)?.[1]
    // Alive, even if another user's: a work copy of theirs is not ours to remove.
    return pid !== undefined && processState(Number(pid)) === 'gone'
  })
  for (const name of stale) removeTreeSync(join(dir, name))
  return stale
}
