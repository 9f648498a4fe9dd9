import type { Database } from 'bun:sqlite'
import { rmSync } from 'node:fs'
import { connect, createServer, type Server } from 'node:net'
import { loadConfig, type RawSettings } from '../config'
import type { Deps } from '../kernel/deps'
import { type ActivityQuery, activityReport } from '../features/activity'
import { backup, BackupError } from '../features/backup'
import { groupIdNamed, importClassList, ImportError, type ImportRow } from '../features/groups'
import { systemClock } from '../kernel/clock'
import { controlSocketPath, openDataDatabase, prepareDataDir, serverRunning } from '../kernel/data-dir'
import { DatabaseInUse } from '../kernel/db/open'
import { AppError } from '../kernel/errors'
import { systemIds } from '../kernel/ids'
import { printable } from '../kernel/control-characters'
import { consoleLog } from '../kernel/log'
import { platform, type Platform } from '../kernel/platform'
import { keepPrivate } from '../kernel/private-files'
import { createDeps } from '../wiring'

/**
 * A failure the user can fix: its lines go to stderr and the exit code is 1, or 2 when what the
 * command was given is refused as it is (a backup holding what no backup writes).
 */
export class CliFailure extends Error {
  constructor(
    readonly lines: string[],
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(lines.join('\n'))
  }
}

/**
 * The work of the teacher's commands that needs the database. The server holds its database file
 * for its process alone (kernel/db/open.ts), so while it runs these go to it over its control
 * socket and it does them on its own connection; with no server, the command opens the folder itself.
 * Either way the same function below does the work, and the answer and the failures are the same.
 */
export type Job =
  | { kind: 'backup'; file: string }
  | { kind: 'import'; rows: ImportRow[] }
  | { kind: 'activity'; query: ActivityQuery; groupName?: string }

export interface DataDirHandle {
  deps: Deps
  sqlite: Database
  dataDir: string
  progress: (message: string) => void
  /** Aborted when the command that asked for the job went away (Ctrl-C): a backup stops and removes its partial file. */
  cancelled?: AbortSignal
}

interface JobResults {
  backup: Awaited<ReturnType<typeof backup>>
  import: ReturnType<typeof importClassList>
  activity: ReturnType<typeof activityReport>
}

async function runJob<K extends Job['kind']>(on: DataDirHandle, job: Extract<Job, { kind: K }>): Promise<JobResults[K]> {
  try {
    const j = job as Job
    switch (j.kind) {
      case 'backup':
        // The calls of the last second are still counted in memory: the copy holds them too.
        on.deps.activity.flush()
        return (await backup(on.sqlite, on.dataDir, j.file, on.progress, on.cancelled)) as JobResults[K]
      case 'import':
        return importClassList(on.deps, j.rows, on.progress) as JobResults[K]
      case 'activity':
        return activityReport(on.deps, j.groupName === undefined ? j.query : { ...j.query, groupId: groupIdNamed(on.deps, j.groupName) }) as JobResults[K]
    }
  } catch (e) {
    throw asCliFailure(e)
  }
}

/** The service errors a user can cause, as CLI failures; anything else as it is. */
export function asCliFailure(e: unknown) {
  if (e instanceof ImportError) return new CliFailure([e.message, ...e.problems.map((p) => `  ${p}`)])
  if (e instanceof AppError || e instanceof BackupError) return new CliFailure([e.message])
  return e
}

/** What the server answers to a job. */
type Answer = { ok: true; result: unknown } | { ok: false; lines: string[] }

/**
 * The control socket carries one job per connection: the command writes the job as one line of JSON,
 * the server answers one line of JSON and closes. It is node:net rather than HTTP because node:net
 * listens on and connects to both a Unix socket and a Windows named pipe, where Bun's HTTP server and
 * fetch reach Unix sockets only.
 */
const LINE_END = 0x0a
/** A job is a few hundred bytes of JSON: a connection that sends more without ending its line is cut. */
const MAX_JOB_BYTES = 64 * 1024

/**
 * The server's side: runs the jobs it is sent, answering `{ ok: true, result }` or `{ ok: false, lines }`.
 * Only the folder's owner can connect to the Unix socket (mode 0600): whoever can, could read the
 * database file anyway; a named pipe takes the default access list Windows gives a user's pipe, which
 * lets other users read from it but not write a job.
 */
export async function serveJobs(on: Omit<DataDirHandle, 'progress'>, system: Platform = platform) {
  const path = controlSocketPath(on.dataDir, system)
  // A socket file left by a server that crashed; this one holds the database now.
  if (system.socketIsFile) rmSync(path, { force: true })
  let server: Server
  try {
    server = await listen(path, on)
    keepPrivate(path, system)
  } catch (e) {
    on.deps.log.error(`the teacher's commands cannot reach this server (${path}: ${(e as Error).message}); stop it to run them`)
    return { stop() {} }
  }
  return {
    stop() {
      server.close()
      if (system.socketIsFile) rmSync(path, { force: true })
    },
  }
}

function listen(path: string, on: Omit<DataDirHandle, 'progress'>): Promise<Server> {
  const server = createServer((socket) => {
    const chunks: Buffer[] = []
    let bytes = 0
    let asked = false
    // The command going away (Ctrl-C) cancels its job; read on after the job's line to see it go.
    const gone = new AbortController()
    socket.on('close', () => gone.abort())
    // A command that went away before its answer: nothing to tell it.
    socket.on('error', () => {})
    socket.on('data', (chunk) => {
      if (asked) return
      chunks.push(chunk)
      bytes += chunk.length
      if (!chunk.includes(LINE_END)) {
        if (bytes > MAX_JOB_BYTES) socket.destroy()
        return
      }
      asked = true
      void answer(Buffer.concat(chunks).toString('utf8'), { ...on, cancelled: gone.signal }).then((reply) => {
        if (!socket.destroyed) socket.end(`${JSON.stringify(reply)}\n`)
      })
    })
  })
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(path, () => {
      server.off('error', reject)
      resolve(server)
    })
  })
}

async function answer(line: string, on: Omit<DataDirHandle, 'progress'>): Promise<Answer> {
  try {
    return { ok: true, result: await runJob({ ...on, progress: () => {} }, JSON.parse(line) as Job) }
  } catch (e) {
    if (e instanceof CliFailure) return { ok: false, lines: e.lines }
    if (on.cancelled?.aborted) return { ok: false, lines: ['cancelled'] }
    on.deps.log.error('a job from the command line failed', { error: (e as Error).message })
    return { ok: false, lines: [`the server could not do it: ${(e as Error).message}`] }
  }
}

/** The command's side of one job; fails when nothing answers there. */
function ask(path: string, job: Job): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = connect(path)
    const chunks: Buffer[] = []
    socket.on('connect', () => socket.write(`${JSON.stringify(job)}\n`))
    socket.on('data', (chunk) => chunks.push(chunk))
    // A server that stopped before answering closes with nothing written: not JSON, so a failure.
    socket.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Answer)
      } catch (e) {
        reject(e)
      }
    })
    socket.on('error', reject)
  })
}

/**
 * The command's side: sends the job to the server running on `dataDir`, or, with none, runs it on
 * the folder opened here.
 */
export async function jobOnDataDir<K extends Job['kind']>(dataDir: string, job: Extract<Job, { kind: K }>, system: Platform = platform): Promise<JobResults[K]> {
  const pid = serverRunning(dataDir)
  const path = controlSocketPath(dataDir, system)
  if (pid) {
    // Null when no server answers there: the pid file may be a crash's, its pid reused.
    const answer = await ask(path, job).catch(() => null)
    if (answer && !answer.ok) throw new CliFailure(answer.lines)
    if (answer) return answer.result as JobResults[K]
  }
  let handle: DataDirHandle & { close(): Promise<void> }
  try {
    handle = openDataDir(dataDir)
  } catch (e) {
    if (!(e instanceof DatabaseInUse)) throw e
    throw new CliFailure([heldBy(dataDir, pid, path)])
  }
  try {
    return await runJob(handle, job)
  } finally {
    await handle.close()
  }
}

/** Why the folder cannot be opened now, and what to do about it. */
function heldBy(dataDir: string, pid: number | undefined, path: string) {
  if (!pid) return `${dataDir} is in use by another storefront command; wait until it ends, then try again`
  return `the server running on ${dataDir} (pid ${pid}) holds the database but does not answer on ${path}; wait until it has started, or stop it and try again`
}

/** With no server on the folder: its database, migrated, with the same services as the server. */
function openDataDir(dataDir: string): DataDirHandle & { close(): Promise<void> } {
  const config = loadConfig({ dataDir } as RawSettings, process.env)
  prepareDataDir(config.dataDir)
  const database = openDataDatabase(config.dataDir)
  const deps = createDeps(config, database, { clock: systemClock, ids: systemIds, log: consoleLog, adminToken: '', publicUrl: '' })
  return {
    deps,
    sqlite: database.sqlite,
    dataDir: config.dataDir,
    progress: progressLine,
    async close() {
      await deps.lifecycle.stop()
      const kept = database.close()
      if (kept) consoleLog.error(kept)
    },
  }
}

/** Progress lines on a terminal; nothing when the output goes to a file or a pipe. */
const progressLine = (message: string) => {
  if (process.stderr.isTTY) process.stderr.write(`\r\x1b[2K${printable(message)}`)
}
export const endProgress = () => {
  if (process.stderr.isTTY) process.stderr.write('\r\x1b[2K')
}
