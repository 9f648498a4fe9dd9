import type { Database } from 'bun:sqlite'
import { createHash } from 'node:crypto'
import { chmodSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Deps } from '../kernel/deps'
import type { ActivityQuery } from '../features/activity/model'
import { activityReport } from '../features/activity/report'
import { backup, serverRunning } from '../features/backup/service'
import { importClassList, ImportError, type ImportRow } from '../features/groups/import'
import { DatabaseInUse } from '../kernel/db/database'
import { AppError } from '../kernel/errors'

/** A failure the user can fix: its lines go to stderr and the exit code is 1. */
export class CliFailure extends Error {
  constructor(readonly lines: string[]) {
    super(lines.join('\n'))
  }
}

/**
 * The work of the teacher's commands that needs the database. The server holds its database file
 * alone (exclusive locking, kernel/db/database.ts), so while it runs these go to it over its control
 * socket and it does them on its own connection; with no server, the command opens the folder itself.
 * Either way the same function below does the work, and the answer and the failures are the same.
 */
export type Job =
  | { kind: 'backup'; file: string }
  | { kind: 'import'; rows: ImportRow[] }
  | { kind: 'activity'; query: ActivityQuery }

export interface DataDirHandle {
  deps: Deps
  sqlite: Database
  dataDir: string
  progress: (message: string) => void
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
        return (await backup(on.sqlite, on.dataDir, j.file, on.progress)) as JobResults[K]
      case 'import':
        return importClassList(on.deps, j.rows, on.progress) as JobResults[K]
      case 'activity':
        return activityReport(on.deps, j.query) as JobResults[K]
    }
  } catch (e) {
    throw asCliFailure(e)
  }
}

/** The service errors a user can cause, as CLI failures; anything else as it is. */
export function asCliFailure(e: unknown) {
  if (e instanceof ImportError) return new CliFailure([e.message, ...e.problems.map((p) => `  ${p}`)])
  if (e instanceof AppError) return new CliFailure([e.message])
  return e
}

/**
 * Where the server of a data dir listens for jobs: `control.sock` in the folder, or, when that path
 * is too long for a socket address (108 bytes on Linux), a name in the temp folder made from it.
 */
export function controlSocketPath(dataDir: string) {
  const inFolder = join(resolve(dataDir), 'control.sock')
  if (Buffer.byteLength(inFolder) <= 100) return inFolder
  return join(tmpdir(), `storefront-${createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 16)}.sock`)
}

/**
 * The server's side: runs the jobs it is sent, one JSON job per request, answering
 * `{ ok: true, result }` or `{ ok: false, lines }`. Only the folder's owner can connect (mode 0600):
 * whoever can, could read the database file anyway.
 */
export function serveJobs(on: Omit<DataDirHandle, 'progress'>) {
  const path = controlSocketPath(on.dataDir)
  rmSync(path, { force: true }) // left by a server that crashed; this one holds the database now
  let server: ReturnType<typeof Bun.serve>
  try {
    server = listen(path, on)
    chmodSync(path, 0o600)
  } catch (e) {
    on.deps.log.error(`the teacher's commands cannot reach this server (${path}: ${(e as Error).message}); stop it to run them`)
    return { stop() {} }
  }
  return {
    stop() {
      server.stop(true)
      rmSync(path, { force: true })
    },
  }
}

function listen(path: string, on: Omit<DataDirHandle, 'progress'>) {
  return Bun.serve({
    unix: path,
    async fetch(request) {
      if (request.method !== 'POST') return Response.json({ ok: true, result: { pid: process.pid } })
      try {
        const result = await runJob({ ...on, progress: () => {} }, (await request.json()) as Job)
        return Response.json({ ok: true, result })
      } catch (e) {
        if (e instanceof CliFailure) return Response.json({ ok: false, lines: e.lines })
        on.deps.log.error('a job from the command line failed', { error: (e as Error).message })
        return Response.json({ ok: false, lines: [`the server could not do it: ${(e as Error).message}`] })
      }
    },
  })
}

/** True when a live server answers on the data dir's control socket (a pid file alone may be a crash's). */
export async function serverAnswers(dataDir: string) {
  return fetch('http://storefront/', { unix: controlSocketPath(dataDir) }).then(
    () => true,
    () => false,
  )
}

/**
 * The command's side: sends the job to the server running on `dataDir`, or, with none, runs it on
 * the folder opened here (`open`, which the caller closes through the returned handle's `close`).
 */
export async function jobOnDataDir<K extends Job['kind']>(
  dataDir: string,
  job: Extract<Job, { kind: K }>,
  open: () => DataDirHandle & { close(): Promise<void> },
): Promise<JobResults[K]> {
  const pid = serverRunning(dataDir)
  const path = controlSocketPath(dataDir)
  if (pid) {
    const answer = await fetch('http://storefront/jobs', { method: 'POST', unix: path, body: JSON.stringify(job) })
      .then((r) => r.json() as Promise<{ ok: true; result: unknown } | { ok: false; lines: string[] }>)
      .catch(() => null) // no server behind the socket: the pid file may be a crash's, its pid reused
    if (answer && !answer.ok) throw new CliFailure(answer.lines)
    if (answer) return answer.result as JobResults[K]
  }
  let handle: DataDirHandle & { close(): Promise<void> }
  try {
    handle = open()
  } catch (e) {
    if (!(e instanceof DatabaseInUse)) throw e
    throw new CliFailure([
      pid
        ? `the server running on ${dataDir} (pid ${pid}) holds the database but does not answer on ${path}; wait until it has started, or stop it and try again`
        : `${dataDir} is in use by another storefront command; wait until it ends, then try again`,
    ])
  }
  try {
    return await runJob(handle, job)
  } finally {
    await handle.close()
  }
}
