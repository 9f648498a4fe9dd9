import type { ChildProcess } from 'node:child_process'
import { constants } from 'node:os'

/**
 * Every process a test starts, so that none outlives its test file or the test process, whatever
 * happens to the test. `bun test` ends a timed-out test's processes with SIGTERM only, and a server
 * stopping cleanly finishes the requests in flight first: on a busy machine that can take longer than
 * anyone waits, and one was found still running minutes after its test had failed.
 *
 *   const proc = track(Bun.spawn([...]))     // every Bun.spawn in test/ and the bench helpers tests use
 *   trackGroup(browserServer.process())      // one a library started with node:child_process (Chromium)
 *   await stopChild(proc)                     // SIGTERM, then SIGKILL if it has not ended within STOP_GRACE_MS
 *
 * test/setup.ts reaps what is left when a test file ends, and kills it on exit, SIGINT and SIGTERM.
 */

type Child = Pick<Bun.Subprocess, 'pid' | 'kill' | 'exited' | 'exitCode' | 'signalCode'>

const running = new Set<Child>()

/** How long a child may take to stop cleanly before it is killed. */
export const STOP_GRACE_MS = 10_000

/** Registers `proc` so that it is stopped when the test file ends or the test process does; returns it. */
export function track<P extends Child>(proc: P): P {
  running.add(proc)
  void proc.exited.finally(() => running.delete(proc))
  return proc
}

/**
 * Registers a process that a library started with node:child_process as the leader of a process group
 * of its own (`detached`, as playwright-core starts Chromium): stopping it signals the whole group, so
 * what it started in turn (Chromium's renderers and helpers) goes with it. Returns it as registered.
 */
export function trackGroup(proc: ChildProcess): Child {
  const pid = proc.pid
  if (pid === undefined) throw new Error('trackGroup: the process has no pid (it did not start)')
  const exitCode = () => proc.exitCode ?? 128 + (proc.signalCode ? constants.signals[proc.signalCode] : 0)
  const exited = new Promise<number>((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) resolve(exitCode())
    else proc.once('exit', () => resolve(exitCode()))
  })
  return track({
    pid,
    exited,
    get exitCode() {
      return proc.exitCode
    },
    get signalCode() {
      return proc.signalCode
    },
    kill(signal: number | NodeJS.Signals = 'SIGTERM') {
      try {
        process.kill(-pid, signal)
      } catch {
        // Not the leader of a group (or the group is gone): the process alone.
        proc.kill(signal)
      }
    },
  })
}

const ended = (proc: Child) => proc.exitCode !== null || proc.signalCode !== null

/**
 * Sends `signal` and waits for the exit code; a child still running after `graceMs` is killed
 * (SIGKILL), and then its code is whatever the kill made it, never the clean 0 a test may expect.
 */
export async function stopChild(proc: Child, signal: NodeJS.Signals = 'SIGTERM', graceMs = STOP_GRACE_MS): Promise<number> {
  if (!ended(proc)) proc.kill(signal)
  let timer: Timer | undefined
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), graceMs)))
  const first = await Promise.race([proc.exited, late])
  clearTimeout(timer)
  if (first !== 'late') return first
  proc.kill('SIGKILL')
  return proc.exited
}

/**
 * Kills every child still running and waits until they are gone (at the end of a test file). No clean
 * stop first: its tests are over, and a test that checks how a process stops has stopped it already.
 */
export async function reapChildren(): Promise<void> {
  const left = [...running]
  killChildren()
  await Promise.all(left.map((proc) => proc.exited))
}

/** Kills every child still running at once: for the process's last moments, where nothing can be awaited. */
export function killChildren(): void {
  for (const proc of running) if (!ended(proc)) proc.kill('SIGKILL')
  running.clear()
}
