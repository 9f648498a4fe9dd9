import { loadConfig, type RawSettings } from '../config'
import { createDeps } from '../wiring'
import { systemClock } from '../kernel/clock'
import { randomIds } from '../kernel/ids'
import { consoleLog } from '../kernel/log'
import { openDataDatabase, prepareDataDir } from '../server'
import type { DataDirHandle } from './jobs'

/**
 * For the commands when no server runs on the folder: the data dir's database, migrated, with the same
 * services as the server (cli/jobs.ts runs the work on it).
 */
export function openDataDir(dataDir: string): DataDirHandle & { close(): Promise<void> } {
  const config = loadConfig({ dataDir } as RawSettings, process.env)
  prepareDataDir(config.dataDir)
  const database = openDataDatabase(config.dataDir)
  const deps = createDeps(config, database, { clock: systemClock, ids: randomIds, log: consoleLog, adminToken: '', publicUrl: '' })
  return {
    deps,
    sqlite: database.sqlite,
    dataDir: config.dataDir,
    progress: progressLine,
    async close() {
      await deps.lifecycle.stop()
      database.close()
    },
  }
}

/** Progress lines on a terminal; nothing when the output goes to a file or a pipe. */
export const progressLine = (message: string) => {
  if (process.stderr.isTTY) process.stderr.write(`\r\x1b[2K${message}`)
}
export const endProgress = () => {
  if (process.stderr.isTTY) process.stderr.write('\r\x1b[2K')
}
