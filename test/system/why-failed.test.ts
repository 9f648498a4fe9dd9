import { describe, expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tempDir } from '../helpers/temp'
import { whyFailed } from '../helpers/why-failed'

/** Two files run by bun in parallel, as `npm test` runs them: one fails after logging, the other throws among passing tests. */
async function parallelOutput() {
  const dir = tempDir('why-failed')
  writeFileSync(
    join(dir, 'a.test.ts'),
    `import { expect, test } from 'bun:test'
test('a passes', () => expect(1).toBe(1))
test('a fails', async () => { await Bun.sleep(40); console.error('the server said: disk gone'); expect({ status: 201 }).toEqual({ status: 507 }) })
test('a passes after', () => expect(1).toBe(1))
`,
  )
  writeFileSync(
    join(dir, 'b.test.ts'),
    `import { expect, test } from 'bun:test'
for (let i = 0; i < 4; i++) test('b' + i, async () => { await Bun.sleep(15); expect(i).toBe(i) })
test('b throws', () => { throw new Error('thrown in b') })
`,
  )
  const proc = Bun.spawn([process.execPath, 'test', '--parallel=2', '--no-isolate'], { cwd: dir, stdout: 'pipe', stderr: 'pipe' })
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return out + err
}

describe("npm test's closing summary", () => {
  test('repeats, for each failed test of a parallel run, its error and what it logged, and nothing of the other tests', async () => {
    const blocks = whyFailed(await parallelOutput())
    expect(blocks).toHaveLength(2)
    const a = blocks.find((b) => b.startsWith('(fail) a fails'))!
    const b = blocks.find((b) => b.startsWith('(fail) b throws'))!
    expect(a).toContain('  the server said: disk gone')
    expect(a).toContain('"status": 507')
    expect(a).toContain('"status": 201')
    expect(b).toContain('  error: thrown in b')
    for (const block of [a, b]) {
      expect(block).not.toMatch(/\((pass|fail)\) (a passes|b\d)/)
      expect(block).not.toMatch(/tests? failed:/)
    }
    expect(b).not.toContain('disk gone')
    expect(a).not.toContain('thrown in b')
  })

  test('keeps the last 40 lines of a long failure, and at most 5 failures', () => {
    const long = ['x.test.ts:', ...Array.from({ length: 60 }, (_, i) => `line ${i}`), '(fail) long one']
    const [block] = whyFailed(long.join('\n'))
    expect(block!.split('\n')).toEqual(['(fail) long one', ...Array.from({ length: 40 }, (_, i) => `  line ${i + 20}`)])
    const many = Array.from({ length: 8 }, (_, i) => `error ${i}\n(fail) test ${i}`).join('\n')
    expect(whyFailed(many).map((b) => b.split('\n')[0])).toEqual([0, 1, 2, 3, 4].map((i) => `(fail) test ${i}`))
  })
})
