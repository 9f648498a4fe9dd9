import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { caller } from './app'
import { build, EXECUTABLE_ENV } from './build'
import { stopChild, track } from './children'
import { limit } from './limits'
import { tempDir } from './temp'
import { TEST_CHECKS } from './checks'

/**
 * What an executable a test starts sees of the environment: PATH, and the switches that have it check
 * its own answers and writes as the test process does (test/setup.ts); nothing else of the test's.
 */
const BASE_ENV = { PATH: process.env.PATH ?? '', ...TEST_CHECKS }

const root = join(import.meta.dir, '..', '..')

let building: { dir: string; done: Promise<string> } | undefined

/**
 * The single executable: the one `npm test` built for the whole run, or else built here once per
 * process into a temp folder that goes when the test file is done (a later file builds it again).
 */
export function buildExecutable(): Promise<string> {
  const forRun = process.env[EXECUTABLE_ENV]
  if (forRun) return Promise.resolve(forRun)
  if (!building || !existsSync(building.dir)) {
    const dir = tempDir('bin')
    building = { dir, done: build(join(dir, 'storefront')) }
  }
  return building.done
}

export interface Running {
  proc: Bun.Subprocess<'ignore', 'pipe', 'pipe'>
  port: number
  base: string
  /** Everything printed on stdout so far. */
  stdout(): string
  /** Everything printed on stderr so far (read as it comes, so a server that logs much never waits on the pipe). */
  stderr(): string
  /** Sends `signal` (SIGTERM) and waits for the exit code; killed if still running after children.ts's STOP_GRACE_MS. */
  stop(signal?: NodeJS.Signals): Promise<number>
}

/**
 * The server from source, as `npm start` runs it. Other tests start the executable (buildExecutable),
 * which starts in less than half the time; the panel's browser tests keep to this one, so that the
 * panel is also bundled from source on its first request, as in development.
 */
export const SOURCE_SERVER = [process.execPath, join(root, 'src', 'main.ts')]

/**
 * Starts the executable with --port 0 and waits for its banner to learn the port it got; `env` adds to
 * BASE_ENV. `startsWithin` is longer for an executable run under an emulator.
 */
export async function startExecutable(bin: string | string[], cwd: string, args: string[] = [], env: Record<string, string> = {}, startsWithin = limit(15_000)): Promise<Running> {
  const proc = track(
    Bun.spawn([...[bin].flat(), '--port', '0', '--host', '127.0.0.1', ...args], {
      cwd,
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
      env: { ...BASE_ENV, ...env },
    }),
  )
  let out = ''
  let err = ''
  const collect = async (stream: ReadableStream<Uint8Array>, add: (text: string) => void) => {
    const decoder = new TextDecoder()
    for await (const chunk of stream) add(decoder.decode(chunk, { stream: true }))
  }
  const pump = Promise.all([collect(proc.stdout, (t) => (out += t)), collect(proc.stderr, (t) => (err += t))])
  const deadline = Date.now() + startsWithin
  while (!/stop with Ctrl-C/.test(out)) {
    if (proc.exitCode !== null || Date.now() > deadline) {
      const late = proc.exitCode === null
      if (late) proc.kill('SIGKILL')
      await pump
      throw new Error(`executable did not ${late ? `start within ${startsWithin} ms` : 'start'}: ${out} ${err}`)
    }
    await Bun.sleep(20)
  }
  const port = Number(/listening\s+http:\/\/[^:]+:(\d+)/.exec(out)![1])
  return {
    proc,
    port,
    base: `http://127.0.0.1:${port}`,
    stdout: () => out,
    stderr: () => err,
    async stop(signal = 'SIGTERM') {
      const code = await stopChild(proc, signal)
      await pump
      return code
    },
  }
}

/** A fresh folder for a server or a command to work in, removed when the test file is done. */
export const emptyDir = (): string => tempDir('e2e')

/** Runs the executable to completion (for CLI errors and subcommands); `env` adds to BASE_ENV. */
export async function runExecutable(bin: string | string[], args: string[], cwd = emptyDir(), env: Record<string, string> = {}) {
  const proc = track(Bun.spawn([...[bin].flat(), ...args], { cwd, stdout: 'pipe', stderr: 'pipe', env: { ...BASE_ENV, ...env } }))
  const [code, stdout, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()])
  return { code, stdout, stderr }
}

/** The app's test client (helpers/app.ts `caller`), sent over real HTTP to a started server instead of app.handle. */
export const overHttp = (base: string) =>
  caller({
    handle: (request: Request) => {
      const url = new URL(request.url)
      return fetch(new Request(`${base}${url.pathname}${url.search}`, request))
    },
  })
