/**
 * `npm test`. With arguments (`npm test -- test/orders`) it is `bun test` with them, as one process.
 * Without, it runs every test file in two rounds, then prints the totals of both the way bun does
 * (" N pass", " M fail"; .ci/run reads them) after the list of failed tests, and above that each
 * failed test's error again, read from the round's JUnit report (where a CI log's tail shows it):
 *
 *   1. every file but the drills in ALONE, WORKERS at a time (`bun test --parallel`), the slowest
 *      first as test/timings.json says.
 *   2. the drills in ALONE, one after the other with nothing else running: they measure latencies, or
 *      count what gets done in a window of time, and another test file working beside them would move
 *      what they measure. slow-and-large is among them since a full run beside other files kept its
 *      normal call waiting 4.1 s against its 3 s bound (alone: 0.5 s). (bench/README.md has the
 *      times of both rounds.)
 *
 * Before both it builds the executable that the tests start, once for the whole run, and removes it
 * after (test/helpers/build.ts). `npm test -- --update-timings` runs everything and writes the times
 * of round 1's files into test/timings.json (commit it after adding a slow file).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { build, EXECUTABLE_ENV } from './helpers/build'
import { SLOWDOWN_ENV } from './helpers/limits'
import { failuresOf } from './helpers/why-failed'

/**
 * How much slower this machine is now than with nothing else running, from two measures taken at
 * start: the load per core (processes wanting a core, averaged over the last minute), and the share of
 * a core this process gets right now: a quarter second of work, its wall time against the CPU time it
 * was given (the rest was waiting for a core). Never below 1, never above 8: past that the machine is
 * too busy for any limit to mean much.
 */
function measureSlowdown() {
  const wallStart = performance.now()
  const cpuStart = process.cpuUsage()
  let sink = 0
  while (performance.now() - wallStart < 250) for (let j = 0; j < 10_000; j++) sink = (sink * 31 + j) | 0
  const cpu = process.cpuUsage(cpuStart)
  const waiting = (performance.now() - wallStart) / Math.max(1, (cpu.user + cpu.system) / 1000)
  const perCore = loadavg()[0]! / availableParallelism()
  return { factor: Math.min(8, Math.max(1, perCore, waiting)), perCore, waiting, sink }
}

/** The per-test limit on two quiet cores, scaled by the slowdown (tests that set their own use test/helpers/limits.ts). */
const BASE_TIMEOUT_MS = 30_000
const slowdown = measureSlowdown()
const TIMEOUT = `--timeout=${Math.round(BASE_TIMEOUT_MS * slowdown.factor)}`
process.env[SLOWDOWN_ENV] = slowdown.factor.toFixed(2)
if (slowdown.factor > 1) {
  console.log(`time limits x${slowdown.factor.toFixed(1)}: load ${slowdown.perCore.toFixed(1)} per core, a quarter second of work took x${slowdown.waiting.toFixed(1)} its CPU time`)
}
/**
 * One more than the two cores the suite was tuned on: much of it waits (on webhook receivers, timers,
 * a browser, servers starting), and the third process works meanwhile.
 */
const WORKERS = 3
const ALONE = ['drills/flood', 'drills/public-key-flood', 'drills/hostile-input', 'drills/crash', 'drills/login-timing', 'drills/slow-and-large'].map(
  (name) => relative(process.cwd(), join(import.meta.dir, `${name}.test.ts`)),
)

interface Round {
  code: number
  counts: Record<'pass' | 'fail' | 'skip' | 'todo' | 'errors', number>
  tests: number
  files: number
  failed: string[]
  /** Each failed test with its error, from the round's JUnit report. */
  why: string[]
}

/** Runs `bun test` with `args`, passing its output through as it comes, and reads its summary and its JUnit `report`. */
async function round(args: string[], env: Record<string, string | undefined>, report: string): Promise<Round> {
  const proc = Bun.spawn([process.execPath, 'test', '--reporter=junit', `--reporter-outfile=${report}`, ...args], { stdout: 'pipe', stderr: 'pipe', env })
  current = proc
  let text = ''
  const relay = async (from: ReadableStream<Uint8Array>, to: NodeJS.WriteStream) => {
    const decoder = new TextDecoder()
    for await (const chunk of from) {
      to.write(chunk)
      text += decoder.decode(chunk, { stream: true })
    }
  }
  await Promise.all([relay(proc.stdout, process.stdout), relay(proc.stderr, process.stderr)])
  const code = await proc.exited
  const last = (word: string) => Number([...text.matchAll(new RegExp(`^ *(\\d+) ${word}$`, 'gm'))].at(-1)?.[1] ?? 0)
  const ran = /^Ran (\d+) tests? across (\d+) files?/m.exec(text)
  return {
    code,
    counts: { pass: last('pass'), fail: last('fail'), skip: last('skip'), todo: last('todo'), errors: last('errors?') },
    tests: Number(ran?.[1] ?? 0),
    files: Number(ran?.[2] ?? 0),
    failed: [...new Set(text.match(/^\(fail\) .*$/gm) ?? [])],
    why: existsSync(report) ? failuresOf(readFileSync(report, 'utf8')) : [],
  }
}

const args = process.argv.slice(2)
const updateTimings = args.length === 1 && args[0] === '--update-timings'
if (args.length > 0 && !updateTimings) {
  const proc = Bun.spawn([process.execPath, 'test', TIMEOUT, ...args], { stdio: ['inherit', 'inherit', 'inherit'] })
  process.exit(await proc.exited)
}

const started = performance.now()
const binDir = mkdtempSync(join(tmpdir(), 'storefront-bin-'))
const removeBin = () => rmSync(binDir, { recursive: true, force: true })
/** The `bun test` of the round under way: a signal to `npm test` is passed on, and test/setup.ts there stops what its tests started. */
let current: Bun.Subprocess | undefined
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]] as const) {
  process.on(signal, () => {
    current?.kill(signal)
    removeBin()
    process.exit(code)
  })
}
let rounds: Round[]
try {
  const env = { ...process.env, [EXECUTABLE_ENV]: await build(join(binDir, 'storefront')) }
  const timings = join(import.meta.dir, 'timings.json')
  rounds = [
    await round(
      [TIMEOUT, `--parallel=${WORKERS}`, '--no-isolate', `--timings=${timings}`, ...(updateTimings ? ['--update-timings'] : []), ...ALONE.map((f) => `--path-ignore-patterns=${f}`)],
      env,
      join(binDir, 'round-1.xml'),
    ),
    await round([TIMEOUT, ...ALONE], env, join(binDir, 'round-2.xml')),
  ]
} finally {
  removeBin()
}

const sum = (pick: (r: Round) => number) => rounds.reduce((n, r) => n + pick(r), 0)
const failed = rounds.flatMap((r) => r.failed)
const broken = rounds.map((r, i) => (r.code !== 0 && r.counts.fail === 0 ? `round ${i + 1} ended with exit code ${r.code}` : '')).filter(Boolean)
const why = rounds.flatMap((r) => r.why)
if (why.length > 0) console.log(`\nwhy they failed (repeated from above, at most 5):\n${why.join('\n\n')}`)
console.log(`\nnpm test, both rounds:`)
for (const line of [...failed, ...broken]) console.log(line)
for (const word of ['pass', 'fail', 'skip', 'todo', 'errors'] as const) {
  const n = sum((r) => r.counts[word])
  if (n > 0 || word === 'pass' || word === 'fail') console.log(` ${n} ${word}`)
}
console.log(`Ran ${sum((r) => r.tests)} tests across ${sum((r) => r.files)} files. [${((performance.now() - started) / 1000).toFixed(2)}s]`)
process.exit(rounds.some((r) => r.code !== 0) ? 1 : 0)
