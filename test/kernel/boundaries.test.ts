import { describe, expect, test } from 'bun:test'
import { Glob } from 'bun'
import { readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

const ROOT = resolve(import.meta.dir, '..', '..')
const SRC = join(ROOT, 'src')

/** Every .ts file under `folder` (relative to src/), with its text. */
function sources(folder = '.', glob = '**/*.ts') {
  return [...new Glob(glob).scanSync(join(SRC, folder))].sort().map((name) => {
    const path = join(SRC, folder, name)
    return { file: relative(SRC, path), text: readFileSync(path, 'utf8') }
  })
}

/** A file's lines of code, without its comments: a comment may name what the code must not use. */
const codeLines = (text: string) =>
  text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .split('\n')
    .filter((line) => !line.trim().startsWith('//'))

/** The lines of code matching `pattern` in every file under src/ but `owner`, as `file: line`. */
const usedOutside = (owner: string, pattern: RegExp) =>
  sources()
    .filter(({ file }) => file !== owner)
    .flatMap(({ file, text }) => codeLines(text).filter((line) => pattern.test(line)).map((line) => `${file}: ${line.trim()}`))

/** What a file imports by relative path (type-only imports, re-exports and import() too), relative to src/. */
function relativeImports(file: string, text: string) {
  const specifiers = [...text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => m[1]!)
  return specifiers.map((s) => relative(SRC, resolve(SRC, dirname(file), s)))
}

/** `features/<name>/...` → `<name>`; undefined for a path outside the features. */
const featureOf = (path: string) => /^features\/([^/]+)\//.exec(path)?.[1]

/**
 * Where a file may enter another feature: its index.ts, the one door. Two kinds of file look past it,
 * each to the same kind: a tables.ts names another feature's table for a foreign key (the table-owners
 * test keeps that to tables.ts), and a model.ts uses another feature's schemas in its own, since the
 * browser panel type-checks the model files it shares (the only files of a feature it imports) and
 * must not pull in routes and services.
 */
function throughTheDoor(from: string, target: string) {
  const inside = target.split('/').slice(2).join('/')
  if (inside === 'index' || inside === '') return true
  const kind = (path: string) => path.split('/').pop()
  if (inside === 'model' && from.startsWith('../panel/')) return true
  return (inside === 'tables' || inside === 'model') && kind(from) === `${inside}.ts`
}

/** Every import of a file under src/ (and the panel's) into a feature not its own, as [file, target]. */
function featureImports() {
  const panel = [...new Glob('**/*.{ts,tsx}').scanSync(join(ROOT, 'panel', 'src'))].map((name) => {
    const path = join(ROOT, 'panel', 'src', name)
    return { file: relative(SRC, path), text: readFileSync(path, 'utf8') }
  })
  return [...sources(), ...panel].flatMap(({ file, text }) =>
    relativeImports(file, text)
      .filter((target) => featureOf(`${target}/`) !== undefined && featureOf(`${target}/`) !== featureOf(file))
      .map((target) => [file, target] as const),
  )
}

/** The cycles of the graph `edges` (each as its nodes, the first repeated at the end), one per strongly connected part. */
function cycles(edges: Map<string, Set<string>>) {
  const found: string[][] = []
  const done = new Set<string>()
  for (const start of [...edges.keys()].sort()) {
    // The shortest way back to `start`, breadth first, through nodes not yet reported.
    const cameFrom = new Map<string, string>()
    let frontier = [start]
    let back: string | undefined
    while (frontier.length > 0 && back === undefined) {
      const next: string[] = []
      for (const node of frontier) {
        for (const to of [...(edges.get(node) ?? [])].sort()) {
          if (to === start) back = node
          else if (!cameFrom.has(to) && !done.has(to)) (cameFrom.set(to, node), next.push(to))
          if (back !== undefined) break
        }
        if (back !== undefined) break
      }
      frontier = next
    }
    done.add(start)
    if (back === undefined) continue
    const path = [start]
    for (let node = back; node !== start; node = cameFrom.get(node)!) path.splice(1, 0, node)
    found.push([...path, start])
    for (const node of path) done.add(node)
  }
  return found.map((cycle) => cycle.join(' -> '))
}

describe('what depends on what', () => {
  test('no file under src/kernel imports from src/features, nor from anything above the kernel but config and version', () => {
    const kernel = sources('kernel')
    expect(kernel.length).toBeGreaterThan(20)
    const leaving = kernel.flatMap(({ file, text }) =>
      relativeImports(file, text)
        .filter((target) => !target.startsWith('kernel/'))
        .map((target) => `${file} -> ${target}`),
    )
    // The two leaves the kernel may read: the parsed settings and the build's version.
    const allowed = (line: string) => line.endsWith('-> config') || line.endsWith('-> version')
    expect(leaving.filter((line) => !allowed(line))).toEqual([])
  })

  test('only src/kernel/data-dir.ts spells the names of what a data folder holds; everything else asks it for a path', () => {
    // A name in quotes, or a folder joined with 'media'; comments may mention them.
    const name = /['"`](storefront\.db|server\.pid|control\.sock|admin-token|before-restore-|\.storefront-)|(join|resolve)\([^()]*['"`]media['"`/]/
    const spelled = usedOutside('kernel/data-dir.ts', name)
    expect(spelled).toEqual([])
  })

  test('only src/kernel/platform.ts asks which system it runs on, probes a process or names a signal; only src/kernel/private-files.ts sets a file mode', () => {
    expect(usedOutside('kernel/platform.ts', /process\.platform|\bos\.platform\(|\{[^}]*\bplatform\b[^}]*\} from ['"](node:)?os['"]|process\.kill\(|['"`]SIG[A-Z]+['"`]/)).toEqual([])
    expect(usedOutside('kernel/private-files.ts', /\bchmod(Sync)?\(|process\.umask\(/)).toEqual([])
  })

  test("a feature is entered from outside it only through its index.ts", () => {
    const imports = featureImports()
    expect(imports.length).toBeGreaterThan(50)
    const pastTheDoor = imports.filter(([file, target]) => !throughTheDoor(file, target)).map(([file, target]) => `${file} -> ${target}`)
    expect(pastTheDoor).toEqual([])
  })

  test('no two features depend on each other, directly or around a loop', () => {
    const edges = new Map<string, Set<string>>()
    for (const { file, text } of sources('features')) {
      const from = featureOf(file)!
      for (const target of relativeImports(file, text)) {
        const to = featureOf(`${target}/`)
        if (to !== undefined && to !== from) edges.set(from, (edges.get(from) ?? new Set()).add(to))
      }
    }
    expect(edges.size).toBeGreaterThan(10)
    expect(cycles(edges)).toEqual([])
  })
})
