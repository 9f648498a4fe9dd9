/** At most this many lines of each failure are repeated, for at most this many failures. */
const WHY_LINES = 40
const WHY_FAILURES = 5

const ENTITIES: Record<string, string> = { quot: '"', apos: "'", lt: '<', gt: '>', amp: '&' }
const fromXml = (text: string) =>
  text.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (whole, name: string) =>
    name.startsWith('#x') || name.startsWith('#X')
      ? String.fromCodePoint(Number.parseInt(name.slice(2), 16))
      : name.startsWith('#')
        ? String.fromCodePoint(Number(name.slice(1)))
        : (ENTITIES[name] ?? whole),
  )

const attributes = (text: string) => Object.fromEntries([...text.matchAll(/(\w+)="([^"]*)"/g)].map(([, k, v]) => [k!, fromXml(v!)]))

/**
 * Each failed test of a JUnit report that `bun test --reporter=junit` wrote: a `(fail)` line with its
 * file, line and describe path, then its error and stack, indented. `npm test` prints them at the end,
 * where a CI log's tail shows them. The report, not the console, says which error is whose: with
 * `--parallel`, bun sometimes prints a test's error after its `(fail)` line instead of before.
 */
export function failuresOf(junit: string): string[] {
  const blocks: string[] = []
  for (const [, head, failure] of junit.matchAll(/<testcase ([^>]*?)>\s*<failure[^>]*>([\s\S]*?)<\/failure>/g)) {
    if (blocks.length === WHY_FAILURES) break
    const { name, classname, file, line } = attributes(head!)
    const path = [...(classname ? classname.split(' > ').reverse() : []), name].join(' > ')
    const text = fromXml(failure!).trim().split('\n').slice(0, WHY_LINES)
    blocks.push([`(fail) ${path} (${file}:${line})`, ...text.map((l) => `  ${l}`)].join('\n'))
  }
  return blocks
}
