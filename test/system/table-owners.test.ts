import { expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

const features = join(import.meta.dir, '../../src/features')

const sourcesOf = (feature: string) =>
  (readdirSync(join(features, feature), { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).map((file) => ({ file, source: readFileSync(join(features, feature, file), 'utf8') }))

/** `feature/file.ts` → the features whose tables.ts it imports, other than its own. */
function foreignTableImports() {
  const found: Record<string, string[]> = {}
  for (const feature of readdirSync(features)) {
    for (const { file, source } of sourcesOf(feature)) {
      const owners = [...source.matchAll(/from '\.\.\/([a-z-]+)\/tables'/g)].map((m) => m[1]!).filter((owner) => owner !== feature)
      if (owners.length > 0) found[`${feature}/${file}`] = owners
    }
  }
  return found
}

test("a feature reaches another feature's tables only through that feature's functions: only a tables.ts imports another's, to name a foreign key", () => {
  const imports = foreignTableImports()
  expect(Object.keys(imports).filter((file) => !file.endsWith('/tables.ts'))).toEqual([])
  // The foreign keys: which tables point at which features' rows.
  expect(imports).toEqual({
    'cart/tables.ts': ['catalog'],
    'catalog/tables.ts': ['taxonomy'],
    'product-images/tables.ts': ['catalog'],
    'reviews/tables.ts': ['catalog', 'media'],
  })
})

test('statements written in SQL write only the tables of their own feature', () => {
  const owner = new Map<string, string>()
  for (const feature of readdirSync(features)) {
    for (const { file, source } of sourcesOf(feature)) {
      if (file === 'tables.ts') for (const m of source.matchAll(/sqliteTable\(\s*'([a-z_]+)'/g)) owner.set(m[1]!, feature)
    }
  }
  expect(owner.get('cart_items')).toBe('cart')
  const foreign: string[] = []
  for (const feature of readdirSync(features)) {
    for (const { file, source } of sourcesOf(feature)) {
      for (const m of source.matchAll(/\b(?:insert into|update|delete from)\s+"?([a-z_]+)"?\s/gi)) {
        const table = m[1]!.toLowerCase()
        if (owner.has(table) && owner.get(table) !== feature) foreign.push(`${feature}/${file} writes ${table}`)
      }
    }
  }
  expect(foreign).toEqual([])
})
