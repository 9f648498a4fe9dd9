import { readdirSync, readlinkSync, renameSync } from 'node:fs'

/**
 * Whether this process still holds `file` open, as each system can tell: Linux lists the process's
 * descriptors in /proc, macOS's lsof does, and Windows refuses to rename a file a process has open
 * (the very refusal that made a closed database's folder undeletable there).
 */
export function holdsOpen(file: string): boolean {
  if (process.platform === 'linux') return openFiles().includes(file)
  if (process.platform === 'win32') {
    try {
      renameSync(file, `${file}.moved`)
      renameSync(`${file}.moved`, file)
      return false
    } catch {
      return true
    }
  }
  const lsof = Bun.spawnSync(['lsof', '-Fn', '-p', String(process.pid)])
  return lsof.stdout.toString().split('\n').includes(`n${file}`)
}

/** What each of this process's descriptors points at (Linux only), a file removed while open ending in " (deleted)". */
function openFiles(): string[] {
  return readdirSync('/proc/self/fd').map((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`)
    } catch {
      return '' // a descriptor closed while listed
    }
  })
}

/**
 * How many files this process holds open that no longer have a name: SQLite's temporary files. Linux
 * shows them; elsewhere this is 0.
 */
export const namelessFilesOpen = () => (process.platform === 'linux' ? openFiles().filter((f) => f.endsWith(' (deleted)')).length : 0)
