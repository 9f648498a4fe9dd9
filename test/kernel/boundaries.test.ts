import { describe, expect, test } from 'bun:test'
import { Glob } from 'bun'
import { readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

const SRC = resolve(import.meta.dir, '..', '..', 'src')

/** Every .ts file under `folder` (relative to src/), with its text. */
function sources(folder = '.') {
  return [...new Glob('**/*.ts').scanSync(join(SRC, folder))].sort().map((name) => {
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
})
