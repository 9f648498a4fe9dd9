/**
 * Where a server process's time and writes go, thread by thread, from Linux's /proc (elsewhere: null).
 * A snapshot before and one after a run, divided by the orders the run paid, give per order: the CPU
 * of the event loop's thread, of JavaScriptCore's compiler threads, of the checkpoints' thread
 * (kernel/db/checkpointer.ts) and of the rest; and the bytes and write calls of the event loop's
 * thread, which are the WAL's frames (a 24-byte header and a 4 KiB page, two calls each) and little
 * else: answers go out through send(), which /proc does not count as writes; and its read calls, which
 * are pages SQLite's cache did not hold, read back from the database or its WAL (requests come in
 * through recv(), not counted either).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { cpuSeconds } from './wrk'

interface ThreadSample {
  name: string
  /** User and system CPU, ms. */
  cpuMs: number
  /** Bytes passed to write calls, and the calls. */
  written: number
  writeCalls: number
  readCalls: number
}

/** Each thread of `pid` now, by thread id; null where /proc does not say. */
export function threadSnapshot(pid: number): Map<string, ThreadSample> | null {
  const dir = `/proc/${pid}/task`
  if (!existsSync(dir)) return null
  const out = new Map<string, ThreadSample>()
  for (const tid of readdirSync(dir)) {
    try {
      const io = Object.fromEntries(readFileSync(`${dir}/${tid}/io`, 'utf8').trim().split('\n').map((l) => l.split(': ') as [string, string]))
      out.set(tid, {
        name: readFileSync(`${dir}/${tid}/comm`, 'utf8').trim(),
        cpuMs: cpuSeconds(pid, tid) * 1000,
        written: Number(io.wchar),
        writeCalls: Number(io.syscw),
        readCalls: Number(io.syscr),
      })
    } catch {
      // A thread that ended between the listing and the read.
    }
  }
  return out
}

export interface PerOrder {
  /** CPU µs per order: the event loop's thread, the compiler threads, the checkpoints' thread, the rest. */
  mainUs: number
  jitUs: number
  checkpointsUs: number
  otherUs: number
  /** The event loop's thread's KiB written, write calls and read calls per order. */
  writtenKib: number
  writeCalls: number
  readCalls: number
}

/** What happened between two snapshots of `pid`, per order of `orders`. */
export function perOrder(pid: number, before: Map<string, ThreadSample>, after: Map<string, ThreadSample>, orders: number): PerOrder {
  const sums: PerOrder = { mainUs: 0, jitUs: 0, checkpointsUs: 0, otherUs: 0, writtenKib: 0, writeCalls: 0, readCalls: 0 }
  for (const [tid, end] of after) {
    const start = before.get(tid) ?? { name: end.name, cpuMs: 0, written: 0, writeCalls: 0, readCalls: 0 }
    const cpuUs = (end.cpuMs - start.cpuMs) * 1000
    if (tid === String(pid)) {
      sums.mainUs += cpuUs
      sums.writtenKib += (end.written - start.written) / 1024
      sums.writeCalls += end.writeCalls - start.writeCalls
      sums.readCalls += end.readCalls - start.readCalls
    } else if (/^(JITWorker|JSCWarmUp)/.test(end.name)) sums.jitUs += cpuUs
    else if (end.name === 'Worker') sums.checkpointsUs += cpuUs
    else sums.otherUs += cpuUs
  }
  for (const key of Object.keys(sums) as (keyof PerOrder)[]) sums[key] /= orders
  return sums
}
