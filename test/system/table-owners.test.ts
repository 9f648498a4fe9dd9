import { expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { triggersFromOtherTables } from '../../src/features/catalog/triggers'

const features = join(import.meta.dir, '../../src/features')
const migrations = join(import.meta.dir, '../../migrations')

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

/** Table name → the feature whose tables.ts declares it, or `kernel` for the kernel's (stores, customers, ...). */
function tableOwners() {
  const owner = new Map<string, string>()
  const declared = (source: string, by: string) => {
    for (const m of source.matchAll(/sqliteTable\(\s*'([a-z_]+)'/g)) owner.set(m[1]!, by)
  }
  for (const feature of readdirSync(features)) {
    for (const { file, source } of sourcesOf(feature)) if (file === 'tables.ts') declared(source, feature)
  }
  declared(readFileSync(join(import.meta.dir, '../../src/kernel/auth/tables.ts'), 'utf8'), 'kernel')
  return owner
}

/** The tables a piece of SQL writes (INSERT INTO, UPDATE, DELETE FROM; an upsert's DO UPDATE SET is not one). */
const writtenBy = (sql: string) =>
  [...sql.matchAll(/\b(?:insert(?:\s+or\s+\w+)?\s+into|(?<!do\s)update|delete\s+from)\s+[`"]?([a-z_]+)[`"]?/gi)]
    .map((m) => m[1]!.toLowerCase())
    .filter((table) => table !== 'set')

/** The triggers the migrations leave, in order (a later DROP TRIGGER removes one): name, the table it fires on, the tables it writes. */
function migratedTriggers() {
  const live = new Map<string, { on: string; writes: string[] }>()
  for (const file of readdirSync(migrations).filter((f) => f.endsWith('.sql')).sort()) {
    for (const statement of readFileSync(join(migrations, file), 'utf8').split('--> statement-breakpoint')) {
      const code = statement.replace(/--.*$/gm, '')
      for (const m of code.matchAll(/drop\s+trigger\s+(?:if\s+exists\s+)?[`"]?(\w+)/gi)) live.delete(m[1]!)
      const created = /create\s+trigger\s+(?:if\s+not\s+exists\s+)?[`"]?(\w+)[`"]?[\s\S]*?\bon\s+[`"]?(\w+)[`"]?[\s\S]*?\bbegin\b([\s\S]*)\bend\b/i.exec(code)
      if (created) live.set(created[1]!, { on: created[2]!.toLowerCase(), writes: [...new Set(writtenBy(created[3]!))] })
    }
  }
  return live
}

test("a trigger writes only its own table's owner's tables, unless the owner of the table it writes declares it", () => {
  const owner = tableOwners()
  const triggers = migratedTriggers()
  expect(triggers.size).toBeGreaterThan(40)
  // What the owners declare (catalog/triggers.ts): trigger name → the owner declaring it and the table it fires on.
  const declared = new Map<string, { by: string; on: string }>(Object.entries(triggersFromOtherTables).flatMap(([on, names]) => names.map((name) => [name, { by: 'catalog', on }] as const)))
  const undeclared: string[] = []
  const used = new Set<string>()
  for (const [name, { on, writes }] of triggers) {
    for (const table of writes) {
      if (!owner.has(table) || owner.get(table) === owner.get(on)) continue
      const declaration = declared.get(name)
      if (declaration && declaration.by === owner.get(table) && declaration.on === on) used.add(name)
      else undeclared.push(`${name} on ${on} (${owner.get(on)}) writes ${table} (${owner.get(table)})`)
    }
  }
  expect(undeclared).toEqual([])
  // Every declaration names a trigger the migrations leave, writing its declarer's table from another owner's.
  expect([...declared.keys()].filter((name) => !used.has(name))).toEqual([])
})

test('statements written in SQL write only the tables of their own feature', () => {
  const owner = tableOwners()
  expect(owner.get('cart_items')).toBe('cart')
  const foreign: string[] = []
  for (const feature of readdirSync(features)) {
    for (const { file, source } of sourcesOf(feature)) {
      for (const m of source.matchAll(/\b(?:insert into|update|delete from)\s+"?([a-z_]+)"?\s/gi)) {
        const table = m[1]!.toLowerCase()
        if (owner.has(table) && owner.get(table) !== feature && owner.get(table) !== 'kernel') foreign.push(`${feature}/${file} writes ${table}`)
      }
    }
  }
  expect(foreign).toEqual([])
})
