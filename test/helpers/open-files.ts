import { readdirSync, readlinkSync, renameSync } from 'node:fs'

/**
 * Whether this process still holds `file` open, as each system can tell: Linux lists the process's
 * descriptors in /proc, macOS's lsof does, and Windows refuses to rename a file a process has open
 * (the very refusal that made a closed database's folder undeletable there).
 */
export function holdsOpen(file: string): boolean {
  if (process.platform === 'linux') {
    return readdirSync('/proc/self/fd').some((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`) === file
      } catch {
        return false // a descriptor closed while listed
      }
    })
  }
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
