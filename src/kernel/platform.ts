import { createHash } from 'node:crypto'
import { constants, lstatSync, readdirSync, rmdirSync, rmSync, unlinkSync } from 'node:fs'
import { rm, rmdir, unlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve, win32 } from 'node:path'

/**
 * What differs between the systems the executables are built for (Linux, macOS, Windows), in one
 * place: the rest of the program asks `platform` and never looks at the system's name itself. Tests
 * take another system's answers from `platformFor`.
 */
export interface Platform {
  readonly name: NodeJS.Platform
  /**
   * POSIX permission bits exist: folders 0700 and files 0600 keep a lab machine's other users out.
   * On Windows a folder's access list decides (a user's own folders are private by default) and the
   * bits would only toggle "read-only", so nothing is changed there.
   */
  readonly fileModes: boolean
  /**
   * Where the server of a data folder listens for the teacher's commands (cli/jobs.ts): a Unix socket
   * named `name` in the folder, or a named pipe on Windows, which has no socket files. Both are paths
   * that node:net listens on and connects to.
   */
  controlSocket(dataDir: string, name: string): string
  /**
   * The control socket is a file, which a server that crashed leaves behind for the next one to remove.
   * A named pipe is no file: it goes with the process that made it.
   */
  readonly socketIsFile: boolean
  /**
   * The signals that ask the program to stop cleanly: Ctrl-C, `kill`, and the terminal closing (SIGHUP,
   * which on Windows is the console window closing; Ctrl-Break is SIGBREAK there).
   */
  readonly stopSignals: readonly NodeJS.Signals[]
  /**
   * The flags that open a file for reading and fail when its last part is a link (O_NOFOLLOW). Windows
   * has no such flag: there the caller's own lstat is what keeps a link from being followed.
   */
  readonly readNoFollow: number
  /**
   * The SQLite VFS that locks the database file for this process alone, keeps the WAL index in its
   * memory, and still lets other connections of the same process (the checkpointer's thread,
   * kernel/db/checkpointer.ts) open it: `unix-excl`. Windows has no such VFS: there the one connection
   * holds the file in exclusive locking mode and runs the checkpoints itself.
   */
  readonly processLockingVfs: string | null
}

/**
 * Longest socket path kept in the data folder: a socket's address holds 104 bytes on macOS and 108
 * on Linux, both with the final NUL; past it, a name in the temp folder made from the folder's path.
 */
const SOCKET_PATH_BYTES = 100

/** A name made from the data folder's full path: one per folder, the same for the server and the commands. */
const folderHash = (fullPath: string) => createHash('sha256').update(fullPath).digest('hex').slice(0, 16)

export function platformFor(name: NodeJS.Platform): Platform {
  if (name === 'win32') {
    return {
      name,
      fileModes: false,
      // Windows paths ignore case: `C:\Users\Ana\data` and `c:\users\ana\data` are one folder, one pipe.
      controlSocket: (dataDir) => `\\\\.\\pipe\\storefront-${folderHash(win32.resolve(dataDir).toLowerCase())}`,
      socketIsFile: false,
      // SIGTERM is never delivered there: `kill` ends a process without a word.
      stopSignals: ['SIGINT', 'SIGBREAK', 'SIGHUP'],
      readNoFollow: constants.O_RDONLY,
      processLockingVfs: null,
    }
  }
  return {
    name,
    fileModes: true,
    controlSocket(dataDir, socketName) {
      const inFolder = join(resolve(dataDir), socketName)
      if (Buffer.byteLength(inFolder) <= SOCKET_PATH_BYTES) return inFolder
      return join(tmpdir(), `storefront-${folderHash(resolve(dataDir))}.sock`)
    },
    socketIsFile: true,
    stopSignals: ['SIGINT', 'SIGTERM', 'SIGHUP'],
    // O_NONBLOCK: a fifo put in the file's place between the look and the open must not block the open.
    readNoFollow: constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    processLockingVfs: 'unix-excl',
  }
}

/** The system this process runs on. */
export const platform = platformFor(process.platform)

/**
 * Whether a process with this pid exists: `ours` if this user may signal it, `another user's` if it
 * exists but is not ours to signal. Signal 0 only asks; libuv answers the same way on Windows
 * (EPERM when the process belongs to someone else, ESRCH when there is none).
 */
export function processState(pid: number): 'ours' | "another user's" | 'gone' {
  try {
    process.kill(pid, 0)
    return 'ours'
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM' ? "another user's" : 'gone'
  }
}

/**
 * Removes a file, or a folder with everything in it, as `rm -rf`; every recursive removal goes through
 * here. On Windows Bun's recursive removal marks each entry for deletion in a way (POSIX-semantics
 * FileDispositionInformationEx) that Windows 10 has and wine 8 lacks, which Bun reports as EFAULT:
 * there the entries are removed one by one instead, with the calls every Windows has.
 */
export async function removeTree(path: string) {
  await rm(path, { recursive: true, force: true }).catch((e: NodeJS.ErrnoException) => {
    if (e.code !== 'EFAULT') throw e
    removeOneByOne(path)
  })
}

/** removeTree for where nothing may wait (an `exit` handler). */
export function removeTreeSync(path: string) {
  try {
    rmSync(path, { recursive: true, force: true })
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EFAULT') throw e
    removeOneByOne(path)
  }
}

/** Files and links first, then the folder that held them; a link is removed, never followed. */
export function removeOneByOne(path: string) {
  const stat = lstatSync(path, { throwIfNoEntry: false })
  if (!stat) return
  if (!stat.isDirectory()) return unlinkSync(path)
  for (const name of readdirSync(path)) removeOneByOne(join(path, name))
  rmdirSync(path)
}

/** Removes a link itself, never what it points to. On Windows a link to a folder (or a junction) goes with rmdir, which leaves its target alone. */
export async function removeLink(path: string) {
  await unlink(path).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'EPERM' || e.code === 'EISDIR') return rmdir(path)
    throw e
  })
}
