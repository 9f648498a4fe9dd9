import { describe, expect, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'

const ROOT = join(import.meta.dir, '..', '..')
/** The project's documents: the README, the guides and design notes in docs/, and the benchmarks'. */
const DOCUMENTS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
  'bench/README.md',
]

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8')

/** The text outside fenced code blocks: a `[x](y)` inside code is code, not a link. */
const prose = (text: string) => text.replace(/^```[\s\S]*?^```/gm, '')

/** Every relative link target of a document: `[text](target)`, web addresses left out. */
function relativeLinks(text: string): string[] {
  return [...prose(text).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((target) => !/^[a-z]+:/i.test(target))
}

/** The anchors GitHub gives a document's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>()
  const out = new Set<string>()
  for (const [, heading] of prose(text).matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = heading!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-')
    const n = seen.get(slug) ?? 0
    seen.set(slug, n + 1)
    out.add(n === 0 ? slug : `${slug}-${n}`)
  }
  return out
}

/** What is wrong with one link of `file`, or null when it leads somewhere. */
function brokenLink(file: string, target: string): string | null {
  const [path, anchor] = target.split('#') as [string, string | undefined]
  const goal = path === '' ? join(ROOT, file) : join(ROOT, dirname(file), decodeURIComponent(path))
  if (!existsSync(goal)) return `${file}: ${target} (no file ${relative(ROOT, goal)})`
  if (anchor === undefined) return null
  if (!goal.endsWith('.md') || statSync(goal).isDirectory()) return `${file}: ${target} (an anchor into a file that is not a document)`
  return anchors(readFileSync(goal, 'utf8')).has(anchor) ? null : `${file}: ${target} (no heading with that anchor in ${relative(ROOT, goal)})`
}

describe("the documents' links", () => {
  test('the anchors are the ones GitHub makes', () => {
    expect([...anchors("# A\n## The classroom mix's arrivals (2026-11-25)\n## Keys: which goes where\n## A\n```\n# not a heading\n```\n")]).toEqual([
      'a',
      'the-classroom-mixs-arrivals-2026-11-25',
      'keys-which-goes-where',
      'a-1',
    ])
  })

  test('every relative link in README.md, docs/*.md and bench/README.md leads to a file that exists, and to a heading it has', () => {
    expect(DOCUMENTS).toContain('docs/student-guide.md')
    const links = DOCUMENTS.flatMap((file) => relativeLinks(read(file)).map((target) => [file, target] as const))
    expect(links.length).toBeGreaterThan(50)
    expect(links.map(([file, target]) => brokenLink(file, target)).filter((broken) => broken !== null)).toEqual([])
  })

  test('a link to a missing file or heading is found', () => {
    expect(brokenLink('README.md', 'docs/nowhere.md')).toBe('README.md: docs/nowhere.md (no file docs/nowhere.md)')
    expect(brokenLink('docs/teacher.md', '../README.md#no-such-heading')).toBe(
      'docs/teacher.md: ../README.md#no-such-heading (no heading with that anchor in README.md)',
    )
    expect(brokenLink('docs/teacher.md', '../README.md#first-steps')).toBeNull()
  })
})

describe('the README', () => {
  const readme = read('README.md')

  test('is at most 300 lines, and opens with a contents list of its own sections', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(300)
    const contents = readme.split('\n## Contents\n')[1]?.split('\n## ')[0] ?? ''
    const listed = [...contents.matchAll(/^- \[[^\]]+\]\(#([^)]+)\)/gm)].map((m) => m[1])
    const sections = [...readme.matchAll(/^## (.+)$/gm)].map((m) => [...anchors(`## ${m[1]}`)][0]).filter((a) => a !== 'contents' && a !== 'license')
    expect(listed).toEqual(sections)
  })

  test('links each guide: the teacher, the student, the guarantees, PowerShell and the benchmarks', () => {
    for (const guide of ['docs/teacher.md', 'docs/student-guide.md', 'docs/guarantees.md', 'docs/powershell.md', 'bench/README.md']) {
      expect(relativeLinks(readme).map((target) => target.split('#')[0])).toContain(guide)
    }
  })
})
