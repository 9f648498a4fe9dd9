import { chmodSync, lstatSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { platform, type Platform } from './platform'

/**
 * The data folder holds webhook signing secrets, password hashes and customers' e-mails, and a lab
 * machine has other users: what Storefront writes is for the user running it only (folders 0700, files
 * 0600). This is the one place that sets POSIX modes; where they mean nothing (Windows, see
 * kernel/platform.ts) both functions do nothing.
 */

/**
 * From now on every file and folder this process creates is private (umask 077): the database, its WAL,
 * media, the pid file, the control socket, backups and restores, and whatever a later feature writes.
 */
export function createPrivately(on: Platform = platform) {
  if (on.fileModes) process.umask(0o077)
}

/** Makes one file the owner's only (0600), whatever mode it had before. */
export function keepPrivate(path: string, on: Platform = platform) {
  if (on.fileModes) chmodSync(path, 0o600)
}

/**
 * Takes the group's and others' permissions away from the data folder and what Storefront keeps in
 * it (`isOurs`, from data-dir.ts), as an older build left them (0755 folders, 0644 files). A folder that is already private is not
 * searched: nobody else can reach what is inside it. Returns what could not be changed (a file system
 * without modes, such as a FAT USB stick, or a file of another user), for a warning: never fatal.
 */
export function tightenDataDir(dataDir: string, isOurs: (name: string) => boolean, on: Platform = platform): string[] {
  if (!on.fileModes) return []
  const failed: string[] = []
  const tighten = (path: string, isOurs: (name: string) => boolean) => {
    const stat = lstatSync(path, { throwIfNoEntry: false })
    if (!stat || stat.isSymbolicLink() || (stat.mode & 0o077) === 0) return
    try {
      chmodSync(path, stat.mode & 0o700)
    } catch {
      failed.push(path)
    }
    if (stat.isDirectory()) for (const name of readdirSync(path)) if (isOurs(name)) tighten(join(path, name), () => true)
  }
  tighten(dataDir, isOurs)
  return failed
}
