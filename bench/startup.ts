/**
 * `npm run bench:startup`: how long the single executable takes from launch to a
 * healthy `/health`, and its memory when idle, beside the machine's ceiling measured in the same run:
 * a bare `Bun.serve` answering the same route, compiled the same way.
 *
 *   bun bench/startup.ts [--runs 10] [--before <checkout>]
 *
 * Each run starts in an empty folder (a first start: data dir, migrations, admin token) and again on
 * the data it made (a restart). `--before` also builds another checkout's executable (its own
 * scripts/build.ts, with its own node_modules: run `npm ci` there first) and the two take turns in
 * every run, the order flipping each run, so that a slow moment of the machine falls on both: what
 * "no worse than the build before" is judged by. Writes a table and bench/results/startup.json.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'

const { values: args } = parseArgs({ options: { runs: { type: 'string', default: '10' }, before: { type: 'string' } } })
const RUNS = Number(args.runs)
const root = join(import.meta.dir, '..')
const work = mkdtempSync(join(tmpdir(), 'storefront-startup-'))

/** The executable exactly as `npm run build` makes it, from `checkout`. */
async function buildStorefront(checkout: string, outfile: string) {
  const proc = Bun.spawn([process.execPath, join(checkout, 'scripts', 'build.ts'), outfile], { cwd: checkout, stdout: 'pipe', stderr: 'pipe' })
  if ((await proc.exited) !== 0) throw new Error(await new Response(proc.stderr).text())
}

/** The ceiling: the least a compiled Bun server can do to answer /health. */
async function buildCeiling(outfile: string) {
  const source = join(work, 'ceiling.ts')
  writeFileSync(
    source,
    `Bun.serve({ port: Number(process.env.PORT), hostname: '127.0.0.1', fetch: () => Response.json({ status: 'ok' }) })\n`,
  )
  const result = await Bun.build({ entrypoints: [source], compile: { outfile } })
  if (!result.success) throw new Error(result.logs.join('\n'))
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port
      server.close(() => resolve(port))
    })
  })

const rssMib = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024

/** Launch to the first 200 of /health, and RSS one second later. */
async function measure(command: string[], cwd: string, port: number) {
  const start = performance.now()
  const proc = Bun.spawn(command, { cwd, stdout: 'ignore', stderr: 'ignore', env: { PATH: process.env.PATH ?? '', PORT: String(port) } })
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok, () => false)
    if (ok) break
    if (performance.now() - start > 10_000) throw new Error(`${command[0]} did not become healthy`)
    await Bun.sleep(1)
  }
  const coldMs = performance.now() - start
  await Bun.sleep(1000)
  const idle = rssMib(proc.pid)
  proc.kill('SIGTERM')
  await proc.exited
  return { coldMs, idle }
}

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!
  return { p50: at(0.5), p95: at(0.95), max: s[s.length - 1]! }
}

const storefront = join(work, 'storefront')
const before = args.before ? join(work, 'before') : undefined
const ceiling = join(work, 'ceiling')
await buildStorefront(root, storefront)
if (before) await buildStorefront(args.before!, before)
await buildCeiling(ceiling)

type Run = { coldMs: number; idle: number }
type Row = 'ceiling' | 'first' | 'restart' | 'before: first' | 'before: restart'
const runs: Record<Row, Run[]> = { ceiling: [], first: [], restart: [], 'before: first': [], 'before: restart': [] }
/** A first start in a new folder, then a restart on what it made. */
async function firstAndRestart(executable: string, first: Row, restart: Row, dir: string) {
  mkdirSync(dir)
  const port = await freePort()
  runs[first].push(await measure([executable, '--host', '127.0.0.1', '--port', String(port)], dir, port))
  runs[restart].push(await measure([executable, '--host', '127.0.0.1', '--port', String(port)], dir, port))
}
for (let i = 0; i < RUNS; i++) {
  runs.ceiling.push(await measure([ceiling], work, await freePort()))
  const turns = [() => firstAndRestart(storefront, 'first', 'restart', join(work, `run-${i}`))]
  if (before) turns.push(() => firstAndRestart(before, 'before: first', 'before: restart', join(work, `before-${i}`)))
  for (const turn of i % 2 ? turns.reverse() : turns) await turn()
}

// The before rows only with --before.
const report = Object.fromEntries(
  Object.entries(runs)
    .filter(([, r]) => r.length > 0)
    .map(([name, r]) => [name, { coldMs: stats(r.map((x) => x.coldMs)), idleRssMib: stats(r.map((x) => x.idle)) }]),
)
console.log(`cold start to a healthy /health, ${RUNS} runs each (ms; RSS in MiB one second after)`)
console.log('                       p50     p95     max   idle RSS p50   vs ceiling (p50)')
for (const [name, r] of Object.entries(report)) {
  const vs = name === 'ceiling' ? '' : `${(r.coldMs.p50 / report.ceiling!.coldMs.p50).toFixed(2)}x`
  console.log(`${name.padEnd(20)} ${r.coldMs.p50.toFixed(0).padStart(6)} ${r.coldMs.p95.toFixed(0).padStart(7)} ${r.coldMs.max.toFixed(0).padStart(7)} ${r.idleRssMib.p50.toFixed(1).padStart(13)}   ${vs}`)
}
if (before) {
  for (const kind of ['first', 'restart'] as const) {
    const now = report[kind]!, then = report[`before: ${kind}`]!
    console.log(`${kind}: ${(now.coldMs.p50 / then.coldMs.p50).toFixed(2)}x the build before's cold start, idle RSS ${(now.idleRssMib.p50 - then.idleRssMib.p50).toFixed(1)} MiB from it`)
  }
}
console.log(`targets: cold start under 150 ms, idle RSS under 80 MiB`)
mkdirSync(join(import.meta.dir, 'results'), { recursive: true })
/** The commit a checkout is at, so that the results say which two builds took turns. */
const commitOf = (checkout: string) => Bun.spawnSync(['git', 'rev-parse', '--short', 'HEAD'], { cwd: checkout }).stdout.toString().trim() || undefined
const builds = before ? { now: commitOf(root), before: commitOf(args.before!) } : undefined
writeFileSync(join(import.meta.dir, 'results', 'startup.json'), JSON.stringify({ runs: RUNS, builds, report, at: new Date().toISOString() }, null, 2) + '\n')
