import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { emptyDir, SOURCE_SERVER, startExecutable } from '../helpers/executable'

const readme = readFileSync(join(import.meta.dir, '..', '..', 'README.md'), 'utf8')
const BASE_LINE = 'BASE=http://localhost:3000\n'

/** The bash block of the README's "First steps", as a student pastes it. */
function firstStepsInBash(): string {
  const section = readme.split('\n## First steps\n')[1]?.split('\n## ')[0] ?? ''
  const block = /```bash\n([\s\S]*?)```/.exec(section)?.[1]
  if (!block) throw new Error('README.md has no ```bash block in its "## First steps" section')
  return block
}

describe("the README's first steps", () => {
  test('pasted into bash beside a fresh `npm start`, they set every variable from the answers and end with the product list a shop front sees', async () => {
    const steps = firstStepsInBash()
    expect(steps).toStartWith(BASE_LINE)
    // The last call is the shop page's: the publishable key the steps created, never the secret one.
    const calls = steps.split('\n').filter((line) => line.startsWith('curl '))
    expect(calls.at(-1)).toContain('/v1/products?')
    expect(calls.at(-1)).toContain('-H "X-API-Key: $PK"')
    expect(calls.at(-1)).not.toContain('$KEY')
    const dir = emptyDir()
    // As `npm start` runs: from source, with ./data in the folder the steps are pasted in.
    const server = await startExecutable(SOURCE_SERVER, dir)
    try {
      const script = steps.replace(BASE_LINE, `BASE=${server.base}\n`) + 'echo "vars $ADMIN $GROUP_ID $STU $KEY $PK"\n'
      const proc = Bun.spawn(['bash', '-eo', 'pipefail', '-c', script], { cwd: dir, stdout: 'pipe', stderr: 'pipe', env: { PATH: process.env.PATH ?? '' } })
      const [code, stdout, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()])
      expect({ code, stderr: code === 0 ? '' : stderr }).toEqual({ code: 0, stderr: '' })

      // stdout: the answers printed as they are, then the variables; stderr: the answers `pick` read.
      const [health, seeded, products, vars, ...rest] = stdout.split('\n')
      expect(rest).toEqual([''])
      expect(JSON.parse(health!)).toMatchObject({ status: 'ok' })
      expect(JSON.parse(seeded!)).toMatchObject({ products: 40 })
      const list = JSON.parse(products!)
      // The demo catalog's 40 products hold 5 drafts, which a shop front does not see.
      expect(list).toMatchObject({ page: 1, pageSize: 2, total: 35 })
      expect(list.data.map((p: { id: string; state: string }) => [p.id.slice(0, 5), p.state])).toEqual([['prod_', 'PUBLISHED'], ['prod_', 'PUBLISHED']])
      const [, admin, groupId, student, key, publishable] = vars!.split(' ')
      expect(admin).toBe(readFileSync(join(dir, 'data', 'admin-token'), 'utf8').trim())
      expect(groupId).toStartWith('grp_')
      expect(student).toStartWith('stu_')
      expect(key).toStartWith('sk_')
      expect(publishable).toStartWith('pk_')
      expect(stderr).toContain('"mustChangePassword":true')
      expect(stderr).toContain('"mustChangePassword":false')

      // The answers the README shows under each step name fields the real answers have.
      const shown = [...steps.matchAll(/^# (\{.*)$/gm)].flatMap((m) => [...m[1]!.matchAll(/"(\w+)":/g)].map((f) => f[1]!))
      expect(shown.length).toBeGreaterThan(20)
      expect(shown.filter((field) => !`${stdout}${stderr}`.includes(`"${field}":`))).toEqual([])
    } finally {
      await server.stop()
    }
  })
})
