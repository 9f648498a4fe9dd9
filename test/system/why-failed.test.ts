import { describe, expect, test } from 'bun:test'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tempDir } from '../helpers/temp'
import { failuresOf } from '../helpers/why-failed'

/** Two files run by bun in parallel with a JUnit report, as `npm test` runs them: one fails in a describe, the other throws among passing tests. */
async function parallelReport() {
  const dir = tempDir('why-failed')
  writeFileSync(
    join(dir, 'a.test.ts'),
    `import { describe, expect, test } from 'bun:test'
describe('uploads <big> & "small"', () => {
  test('a passes', () => expect(1).toBe(1))
  test('a fails', async () => { await Bun.sleep(40); expect({ status: 201 }).toEqual({ status: 507 }) })
})
`,
  )
  writeFileSync(
    join(dir, 'b.test.ts'),
    `import { expect, test } from 'bun:test'
for (let i = 0; i < 4; i++) test('b' + i, async () => { await Bun.sleep(15); expect(i).toBe(i) })
test('b throws', () => { throw new Error('thrown in b: <disk gone>') })
`,
  )
  const report = join(dir, 'report.xml')
  const proc = Bun.spawn([process.execPath, 'test', '--parallel=2', '--no-isolate', '--reporter=junit', `--reporter-outfile=${report}`], { cwd: dir, stdout: 'ignore', stderr: 'ignore' })
  expect(await proc.exited).toBe(1)
  return readFileSync(report, 'utf8')
}

describe("npm test's closing summary", () => {
  test('repeats each failed test of a parallel run with its file, describe path and error, and nothing of the tests that passed', async () => {
    const blocks = failuresOf(await parallelReport())
    expect(blocks.map((b) => b.split('\n')[0]).sort()).toEqual(['(fail) b throws (b.test.ts:3)', '(fail) uploads <big> & "small" > a fails (a.test.ts:4)'])
    const a = blocks.find((b) => b.includes('a fails'))!
    const b = blocks.find((b) => b.includes('b throws'))!
    expect(a).toContain('  -   "status": 507,')
    expect(a).toContain('  +   "status": 201,')
    expect(b).toContain('  Error: thrown in b: <disk gone>')
    expect(a).not.toContain('thrown in b')
    expect(b).not.toContain('507')
    for (const block of blocks) expect(block).not.toMatch(/a passes|b\d/)
  })

  test('keeps the first 40 lines of a long failure, and at most 5 failures', () => {
    const failure = (name: string, lines: string[]) => `<testcase name="${name}" classname="" file="x.test.ts" line="1"><failure type="Error">${lines.join('&#10;')}</failure></testcase>`
    const [long] = failuresOf(failure('long', Array.from({ length: 60 }, (_, i) => `line ${i}`)))
    expect(long!.split('\n')).toEqual(['(fail) long (x.test.ts:1)', ...Array.from({ length: 40 }, (_, i) => `  line ${i}`)])
    const many = Array.from({ length: 8 }, (_, i) => failure(`test ${i}`, ['Error: no'])).join('\n')
    expect(failuresOf(many).map((b) => b.split('\n')[0])).toEqual([0, 1, 2, 3, 4].map((i) => `(fail) test ${i} (x.test.ts:1)`))
  })
})
