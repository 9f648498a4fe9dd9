/**
 * wrk, the load generator of the fixed-request measurements (bench/README.md, "How the endpoints are
 * measured"): a C load generator drives a bare Bun.serve several times as fast as the JS one in
 * load.ts does on the same core, so what it reads is the server's ceiling, not its own. It runs on the
 * load side (harness.ts) with wrk.lua, which sends each thread's list of requests in turn and prints
 * one JSON line when done; the CPU time of the process measured is read around the run, which is how
 * a row knows whether the load filled that process's core (the generator check).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { onSide } from './harness'

export const WRK_MISSING =
  'wrk was not found: the endpoint measurements need it (a JS load generator cannot load a bare Bun.serve fully, so every ratio would read its limit). Install it: `sudo apt-get install wrk` (Debian/Ubuntu) or `brew install wrk` (macOS); or leave the endpoints out (--only ...).'

export interface WrkRequest {
  method: 'GET' | 'POST' | 'PATCH'
  path: string
  headers: Record<string, string>
  body?: string
}

export interface WrkStats {
  requests: number
  rps: number
  /** Latencies in ms. */
  p50: number
  p99: number
  max: number
  /** Socket errors and timeouts. */
  socketErrors: number
  /** Answers with a status of 400 or more (wrk counts those). */
  failedStatus: number
  /** CPU time of the process watched over the wall time of the run: 1 is one core kept busy. */
  cpuShare: number
  /** wrk's own CPU time over the same wall time. */
  wrkCpuShare: number
}

/** A process's CPU time (user + system, every thread), seconds; with `tid`, that one thread's. */
const ticks = Number(Bun.spawnSync(['getconf', 'CLK_TCK']).stdout.toString().trim()) || 100
export function cpuSeconds(pid: number, tid?: string): number {
  const stat = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8')
  // Fields after the command's closing parenthesis; utime and stime are the 14th and 15th of the line.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / ticks
}

/** A Lua literal of strings, lists and string maps (JSON's string escapes are Lua's, but for \u, which ASCII never needs). */
function lua(value: unknown): string {
  if (typeof value === 'string') {
    const quoted = JSON.stringify(value)
    if (quoted.includes('\\u')) throw new Error(`wrk.lua: not plain ASCII: ${quoted}`)
    return quoted
  }
  if (Array.isArray(value)) return `{${value.map(lua).join(',')}}`
  return `{${Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `[${lua(k)}]=${lua(v)}`)
    .join(',')}}`
}

/**
 * One wrk run of `seconds` on `base` with `connections` keep-alive connections. One list: one wrk
 * thread sends it in turn over every connection. Several lists, `rotate`: one thread, each list a client
 * whose requests take their turn with the other clients' (wrk.lua). Several lists otherwise: one thread
 * per list, the connections shared out among them. `watch` is the pid whose CPU share is measured (the
 * server or its ceiling).
 */
export async function runWrk(base: string, lists: WrkRequest[][], connections: number, seconds: number, watch: number, work: string, rotate = false): Promise<WrkStats> {
  const data = join(work, 'wrk-data.lua')
  writeFileSync(data, `return ${lua(lists)}\n`)
  const threads = rotate ? 1 : lists.length
  const command = ['wrk', `-t${threads}`, `-c${connections}`, `-d${Math.max(1, Math.round(seconds))}s`, '--latency', '-s', join(import.meta.dir, 'wrk.lua'), base, '--', data, ...(rotate ? ['rotate'] : [])]
  const cpuBefore = cpuSeconds(watch)
  const proc = Bun.spawn(onSide('load', command), { stdout: 'pipe', stderr: 'pipe' })
  const out = await new Response(proc.stdout).text()
  const code = await proc.exited
  const line = out.split('\n').find((l) => l.startsWith('wrk-json '))
  if (code !== 0 || !line) throw new Error(`wrk failed (exit ${code}): ${out}${await new Response(proc.stderr).text()}`)
  const r = JSON.parse(line.slice('wrk-json '.length)) as Record<string, number>
  // Shares of the load's own duration, as wrk measured it: wrk's start (its script reading the request
  // lists, its connections) is not load, and would read as an idle ceiling in a short turn.
  const loaded = r.durationUs! / 1e6
  const cpuShare = (cpuSeconds(watch) - cpuBefore) / loaded
  return {
    requests: r.requests!,
    rps: r.requests! / loaded,
    p50: r.p50! / 1000,
    p99: r.p99! / 1000,
    max: r.max! / 1000,
    socketErrors: r.connect! + r.read! + r.write! + r.timeout!,
    failedStatus: r.status!,
    cpuShare,
    wrkCpuShare: Number(proc.resourceUsage()?.cpuTime.total ?? 0) / 1e6 / loaded,
  }
}
