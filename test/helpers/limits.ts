/**
 * Time limits that scale with the machine. The suite's limits were set on two cores with nothing else
 * running; `npm test` (test/run.ts) measures how much slower this machine is right now and passes the
 * factor on in STOREFRONT_TEST_SLOWDOWN, so a laptop busy with other work gets longer limits instead of
 * tests that time out. A file run on its own (`npx bun test file`) gets the factor 1.
 */
export const SLOWDOWN_ENV = 'STOREFRONT_TEST_SLOWDOWN'

export const SLOWDOWN = Math.max(1, Number(process.env[SLOWDOWN_ENV]) || 1)

/** A time limit of `ms` on the machine the suite was tuned on, scaled for this one. */
export const limit = (ms: number): number => Math.round(ms * SLOWDOWN)

/** The median of `runs` timings of `work`, in milliseconds: one late turn of a busy machine does not move it. */
export function medianMs(work: () => void, runs = 9): number {
  const times = Array.from({ length: runs }, () => {
    const started = performance.now()
    work()
    return performance.now() - started
  })
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)]!
}

/**
 * The medians of `runs` timings of `a` and of `b`, timed in turn (a, b, a, b, …), in milliseconds: a
 * busy moment of the machine slows both alike, where a baseline timed first and the measure after
 * could fall on either side of it.
 */
export function interleavedMedians(a: () => void, b: () => void, runs = 15, clock: () => number = () => performance.now()): [number, number] {
  const times: [number[], number[]] = [[], []]
  for (let i = 0; i < runs; i++) {
    for (const [side, work] of [a, b].entries()) {
      const started = clock()
      work()
      times[side]!.push(clock() - started)
    }
  }
  const median = (xs: number[]) => xs.sort((x, y) => x - y)[Math.floor(runs / 2)]!
  return [median(times[0]), median(times[1])]
}

/**
 * A timing bound relative to a baseline measured in the same run, on the same machine, just before:
 * `measuredMs` may be at most `factor` times `baselineMs`, plus `slackMs` (scaled like limit()) where the
 * times are too small for their ratio alone to mean anything. A busy machine slows both alike. The
 * failure says that it was a timing bound, and gives both times.
 */
export function expectWithinBaseline(what: string, measuredMs: number, baselineMs: number, { factor, slackMs = 0 }: { factor: number; slackMs?: number }) {
  const scaledSlack = slackMs * SLOWDOWN
  const bound = factor * baselineMs + scaledSlack
  if (measuredMs <= bound) return
  const slack = scaledSlack > 0 ? ` + ${scaledSlack} ms` : ''
  throw new Error(
    `timing bound: ${what} took ${measuredMs.toFixed(3)} ms, over ${factor} × its baseline of ${baselineMs.toFixed(3)} ms${slack} = ${bound.toFixed(3)} ms (the baseline was measured in this run, just before)`,
  )
}

/**
 * A timing bound on a shared machine, measured up to `attempts` times: `measure` returns undefined when
 * the bound held, else what it measured (a few words). One stall of a busy machine misses once; what
 * breaks the bound misses every time. The failure says it was a timing bound and gives every miss.
 */
export async function expectHeldInOneOf(attempts: number, of: string, measure: () => Promise<string | undefined>, bound: string) {
  const missed: string[] = []
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const miss = await measure()
    if (miss === undefined) return
    missed.push(miss)
  }
  throw new Error(`timing bound missed in ${attempts} ${of} (timing-sensitive: rerun alone): ${missed.join(', then ')}; ${bound}`)
}

/**
 * The CPU time this process has used, in milliseconds: what synchronous work costs, without the time
 * the machine gave other processes meanwhile or the process waited for the disk.
 */
export const cpuMs = () => {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

/**
 * expectWithinBaseline for `measured` against `baseline`, the two timed in turn (interleavedMedians,
 * `runs` each) in CPU time (cpuMs), up to `attempts` times: a stall of a busy machine that lands on
 * more turns of one side than of the other misses once; what breaks the bound misses every time.
 * In wall time, a suite busy with other files made one side three to six times as slow three times
 * over, where alone the two took the same (a search beside 60,000 matches of another store reads pages
 * the baseline does not: waiting for them is the likely cause, not confirmed). CPU time counts the
 * process's other threads too (the collector), alike on both sides of the alternated turns.
 */
export async function expectTimedInTurnWithinBaseline(what: string, baseline: () => void, measured: () => void, bound: { factor: number; slackMs?: number }, { attempts = 3, runs = 15 } = {}) {
  const measure = async () => {
    const [alone, beside] = interleavedMedians(baseline, measured, runs, cpuMs)
    try {
      expectWithinBaseline(what, beside, alone, bound)
      return undefined
    } catch (error) {
      return (error as Error).message
    }
  }
  await expectHeldInOneOf(attempts, 'measurements', measure, `medians of ${runs} turns of each, in CPU time`)
}
