/**
 * The processes the whole-system bench drives: the built executable, the ceiling, the webhook
 * receivers, the load generator. Each runs on 127.0.0.1 on a port of its own, pinned to its side of
 * the machine (pinning below).
 */
import { createHash } from 'node:crypto'
import { closeSync, copyFileSync, existsSync, fsyncSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { LabelStats, LoadSpec } from './load'
import { ADMIN_TOKEN } from './seed'

const root = join(import.meta.dir, '..', '..')
const bun = process.execPath

/**
 * Which side of the machine a process belongs to. The server and everything it is compared with (the
 * ceiling, the variant servers, in-process measurements) run on the `server` cores, the load generator
 * and the webhook receivers on the others, so that a ratio compares two servers that had the same core
 * and a load generator that never took it from them.
 */
export type Side = 'server' | 'load'

export interface Pinning {
  pinned: boolean
  /** CPU lists as taskset takes them, e.g. "0" and "1,2,3". */
  server?: string
  load?: string
  /** What the report says about it. */
  note: string
}

/** The CPUs this process may run on (a container or a taskset around the bench may allow fewer than the machine has). */
function allowedCpus(): number[] {
  const list = /Cpus_allowed_list:\s*(\S+)/.exec(existsSync('/proc/self/status') ? readFileSync('/proc/self/status', 'utf8') : '')?.[1]
  if (!list) return Array.from({ length: navigator.hardwareConcurrency }, (_, i) => i)
  return list.split(',').flatMap((part) => {
    const [from, to] = part.split('-').map(Number) as [number, number?]
    return Array.from({ length: (to ?? from) - from + 1 }, (_, i) => from + i)
  })
}

function choosePinning(wanted: boolean): Pinning {
  if (!wanted) return { pinned: false, note: 'not pinned (--unpinned): the server and the load generator share every core' }
  const taskset = Bun.which('taskset')
  const cpus = allowedCpus()
  if (!taskset) return { pinned: false, note: 'not pinned: taskset was not found, so the server and the load generator share every core' }
  if (cpus.length < 2) return { pinned: false, note: `not pinned: this process may use one core only (${cpus.join(',')})` }
  const [server, ...load] = cpus as [number, ...number[]]
  const loadList = load.length === 1 ? String(load[0]) : load.join(',')
  return { pinned: true, server: String(server), load: loadList, note: `pinned with taskset: the server and its ceiling on CPU ${server}, the load generator on CPU ${loadList}` }
}

export let pinning: Pinning = choosePinning(true)

/** `--unpinned`: every process on every core, as the bench ran before it pinned. */
export function setPinning(wanted: boolean) {
  pinning = choosePinning(wanted)
}

/** The command, run on its side's cores when pinning. taskset execs the command, so the pid is the command's. */
export const onSide = (side: Side, command: string[]): string[] => (pinning.pinned ? [Bun.which('taskset')!, '-c', pinning[side]!, ...command] : command)

export const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port
      server.close(() => resolve(port))
    })
  })

export const rssMib = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024

/** Newest modification time of anything the executable is built from. */
function newestSource(dir: string): number {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs)
  }
  return newest
}

/**
 * The executable as `npm run build` makes it, in <tmp>; built again when a source is newer. Each
 * checkout has its own (the folder is named after the checkout's path): several checkouts of the
 * project on one machine would otherwise run each other's build.
 */
export async function freshExecutable(log: (line: string) => void): Promise<string> {
  const checkout = createHash('sha256').update(root).digest('hex').slice(0, 8)
  const outfile = join(tmpdir(), `storefront-bench-bin-${checkout}`, 'storefront')
  const sources = Math.max(newestSource(join(root, 'src')), newestSource(join(root, 'migrations')), statSync(join(root, 'scripts', 'build.ts')).mtimeMs, statSync(join(root, 'package-lock.json')).mtimeMs)
  if (existsSync(outfile) && statSync(outfile).mtimeMs > sources) {
    log(`using the executable built at ${new Date(statSync(outfile).mtimeMs).toISOString()} (${outfile}; no source is newer)`)
    return outfile
  }
  log(`building the executable (scripts/build.ts -> ${outfile})`)
  const proc = Bun.spawn([bun, join(root, 'scripts', 'build.ts'), outfile], { stdout: 'pipe', stderr: 'pipe' })
  if ((await proc.exited) !== 0) throw new Error(await new Response(proc.stderr).text())
  return outfile
}

/** The least a compiled Bun server can do to answer /health: the ceiling of a cold start. */
export async function buildBareServer(work: string): Promise<string> {
  const source = join(work, 'bare.ts')
  writeFileSync(source, `Bun.serve({ port: Number(process.env.PORT), hostname: '127.0.0.1', fetch: () => Response.json({ status: 'ok' }) })\n`)
  const outfile = join(work, 'bare')
  const result = await Bun.build({ entrypoints: [source], compile: { outfile } })
  if (!result.success) throw new Error(result.logs.join('\n'))
  return outfile
}

export interface Server {
  proc: Bun.Subprocess
  base: string
  /** Launch to the first 200 of /health, ms. */
  startMs: number
  rss(): number
  stop(): Promise<void>
}

/** The runtime's options in this process's environment, which `launch` passes on. */
const runtimeOptions = () => Object.fromEntries(Object.entries(process.env).filter(([k]) => /^(BUN_JSC_|MIMALLOC_)/.test(k)))

/** Says which runtime options the servers will run with, when any are set: a run's figures depend on them. */
export function logRuntimeOptions(log: (line: string) => void) {
  const options = runtimeOptions()
  if (Object.keys(options).length > 0) log(`the servers run with the runtime's options ${JSON.stringify(options)}`)
}

/**
 * Launches a command that listens on $PORT / --port and waits for a healthy /health. On the server's
 * cores unless `pinned` is false: a cold start has no load generator to keep apart, and is timed as a
 * teacher would launch it, on the whole machine. Its environment is PATH and PORT, and the runtime's
 * own options set in the bench's (`BUN_JSC_*`, JavaScriptCore's; `MIMALLOC_*`, the allocator's), so
 * an experiment with one reaches the server; nothing else of the shell does.
 */
export async function launch(command: string[], cwd: string, port: number, pinned = true): Promise<Server> {
  const started = performance.now()
  const env = { ...runtimeOptions(), PATH: process.env.PATH ?? '', PORT: String(port) }
  const proc = Bun.spawn(pinned ? onSide('server', command) : command, { cwd, stdin: 'ignore', stdout: 'ignore', stderr: 'inherit', env })
  const base = `http://127.0.0.1:${port}`
  for (;;) {
    const ok = await fetch(`${base}/health`).then((r) => r.ok, () => false)
    if (ok) break
    if (performance.now() - started > 15_000 || proc.exitCode !== null) throw new Error(`${command.join(' ')} did not become healthy`)
    await Bun.sleep(1)
  }
  const startMs = performance.now() - started
  return {
    proc,
    base,
    startMs,
    rss: () => rssMib(proc.pid),
    async stop() {
      proc.kill('SIGTERM')
      await proc.exited
    },
  }
}

/** The executable on a data dir, with the bench's admin token and any extra flags. */
export async function startStorefront(bin: string, dataDir: string, flags: string[] = [], pinned = true) {
  const port = await freePort()
  return launch([bin, '--host', '127.0.0.1', '--port', String(port), '--data', dataDir, '--admin-token', ADMIN_TOKEN, ...flags], dataDir, port, pinned)
}

/**
 * A copy of the seeded data dir for one run, so the cache stays as seeded. The copy is flushed to disk
 * before it is used: unflushed, the server's first checkpoint (whose fsync writes back every dirty
 * page of the file, 230 MB of a fresh copy) stalled every request for 100 to 150 ms, a cost of the
 * bench's copy that a server on its own data never pays.
 */
export function copyData(seeded: string, work: string, name: string): string {
  const dir = join(work, name)
  mkdirSync(join(dir, 'media'), { recursive: true })
  for (const file of ['storefront.db', 'storefront.db-wal']) {
    if (!existsSync(join(seeded, file))) continue
    copyFileSync(join(seeded, file), join(dir, file))
    const fd = openSync(join(dir, file), 'r+')
    fsyncSync(fd)
    closeSync(fd)
  }
  return dir
}

/** A helper process that prints its port on its first line (ceiling and variant servers on the server's side, receivers on the load's). */
export async function startHelper(script: string, args: string[], side: Side = 'server', bunFlags: string[] = []): Promise<{ proc: Bun.Subprocess; base: string; stop(): Promise<void> }> {
  const proc = Bun.spawn(onSide(side, [bun, ...bunFlags, join(import.meta.dir, script), ...args]), { stdout: 'pipe', stderr: 'inherit' })
  const reader = proc.stdout.getReader()
  let out = ''
  while (!out.includes('\n')) {
    const { value, done } = await reader.read()
    if (done) throw new Error(`${script} did not start: ${out}`)
    out += new TextDecoder().decode(value)
  }
  reader.releaseLock()
  return {
    proc,
    base: `http://127.0.0.1:${Number(out.trim())}`,
    async stop() {
      proc.kill('SIGTERM')
      await proc.exited
    },
  }
}

export type LoadResult = Record<string, LabelStats>

/** Runs the load generator in its own process against `spec.base`. */
export const runLoad = (spec: LoadSpec): Promise<LoadResult> => runDriver('load.ts', spec)

/**
 * Runs a driver of this folder (load.ts, open-load.ts) in its own process on the load's side: it reads
 * `spec` from the file named by its argument and prints its result as one line of JSON.
 */
export async function runDriver<T>(script: string, spec: unknown): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'storefront-bench-load-'))
  try {
    const file = join(dir, 'spec.json')
    writeFileSync(file, JSON.stringify(spec))
    const proc = Bun.spawn(onSide('load', [bun, join(import.meta.dir, script), file]), { stdout: 'pipe', stderr: 'inherit' })
    const out = await new Response(proc.stdout).text()
    if ((await proc.exited) !== 0) throw new Error(`${script} failed: ${out}`)
    return JSON.parse(out) as T
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** JSON over HTTP for the set-up steps; throws on anything but 2xx. */
export async function call<T = unknown>(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; text: string; json: T }> {
  const res = await fetch(base + path, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`)
  return { status: res.status, text, json: JSON.parse(text) as T }
}
