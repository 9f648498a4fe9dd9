import { afterEach, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { track } from '../helpers/children'
import { tempDir } from '../helpers/temp'

const root = join(import.meta.dir, '..', '..')
const FIXTURE = './' + join('test', 'fixtures', 'children', 'never-ends.ts')

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Waits up to `ms` for `pid` to be gone (a killed child is reaped by its parent, or by init once that parent is gone). */
async function goneWithin(pid: number, ms: number) {
  const deadline = Date.now() + ms
  while (alive(pid) && Date.now() < deadline) await Bun.sleep(50)
  return !alive(pid)
}

const leftovers: number[] = []
afterEach(() => {
  // A failure here must not leave the stand-in running either.
  for (const pid of leftovers.splice(0)) if (alive(pid)) process.kill(pid, 'SIGKILL')
})

/**
 * `bun test <fixture>` with `timeout`; resolves with the child's pid as soon as the fixture prints it, and with the run's end.
 * The fixture is stopped before its own clean-up runs, so its temp folders go in one of this file's, removed with it.
 */
function runFixture(timeout: number) {
  const env = { ...process.env, NO_COLOR: '1', TMPDIR: tempDir('leftovers') }
  const proc = track(Bun.spawn([process.execPath, 'test', `--timeout=${timeout}`, FIXTURE], { cwd: root, stdout: 'pipe', stderr: 'pipe', env }))
  let out = ''
  const outputs = Promise.all(
    [proc.stdout, proc.stderr].map(async (stream) => {
      for await (const chunk of stream) out += new TextDecoder().decode(chunk)
    }),
  )
  /** The pids the fixture prints after `label`, as soon as it has. */
  const printed = async (label: string) => {
    for (;;) {
      const found = new RegExp(`${label} ([\\d ]+)\n`).exec(out)
      if (found) return found[1]!.trim().split(' ').map(Number)
      if (proc.exitCode !== null) throw new Error(`the fixture ended without printing its ${label}:\n${out}`)
      await Bun.sleep(20)
    }
  }
  const pids = Promise.all([printed('child pid'), printed('group pids')]).then((lists) => lists.flat())
  void pids.then((found) => leftovers.push(...found), () => {})
  return { proc, pids, output: async () => (await proc.exited, await outputs, out) }
}

describe('no process a test started outlives it', () => {
  test('a test that times out while its server and a process group (as Chromium runs) ignore SIGTERM: all are gone when `bun test` ends', async () => {
    const run = runFixture(2_000)
    const pids = await run.pids
    expect(pids).toHaveLength(3)
    const out = await run.output()
    expect(await run.proc.exited).toBe(1)
    expect(out).toContain('this test timed out after 2000ms')
    for (const pid of pids) expect({ pid, gone: await goneWithin(pid, 5_000) }).toEqual({ pid, gone: true })
  }, 60_000)

  test('a test run ended by SIGTERM (or Ctrl-C) while its server and a process group ignore SIGTERM: all are gone too', async () => {
    const run = runFixture(60_000)
    const pids = await run.pids
    expect(pids.map(alive)).toEqual([true, true, true])
    run.proc.kill('SIGTERM')
    expect(await run.proc.exited).toBe(143)
    for (const pid of pids) expect({ pid, gone: await goneWithin(pid, 5_000) }).toEqual({ pid, gone: true })
  }, 60_000)
})
