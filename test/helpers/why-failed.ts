/**
 * A line that ends what one test printed: another test's result, the name of the file whose tests
 * follow, or the list of failed tests bun prints at the end.
 */
const BOUNDARY = /^(\((pass|fail|skip|todo)\) |\S.*\.test\.[jt]sx?:$|\d+ tests? failed:$)/
/** At most this many lines of each failure are repeated, for at most this many failures. */
const WHY_LINES = 40
const WHY_FAILURES = 5

/**
 * For each failed test, its `(fail)` line and the lines bun printed above it since the line that ended
 * the output before: the error, the source line, the stack and whatever the test logged. With
 * `--parallel` bun prints each file's output in blocks, so those lines are the failed test's own.
 * `npm test` repeats them at the end, where a CI log's tail shows them.
 */
export function whyFailed(text: string): string[] {
  const lines = text.split('\n')
  const seen = new Set<string>()
  const blocks: string[] = []
  lines.forEach((line, i) => {
    if (!line.startsWith('(fail) ') || seen.has(line) || blocks.length === WHY_FAILURES) return
    seen.add(line)
    let start = i
    while (start > 0 && !BOUNDARY.test(lines[start - 1]!)) start--
    const own = lines.slice(start, i).join('\n').trim().split('\n').slice(-WHY_LINES)
    blocks.push([line, ...own.map((l) => `  ${l}`)].join('\n'))
  })
  return blocks
}
