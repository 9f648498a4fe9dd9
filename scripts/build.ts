/**
 * `bun run build`: writes dist/storefront, one executable with the migrations, the docs assets and
 * the web panel inside it, runnable from any directory.
 */
import { readMigrationFiles } from 'drizzle-orm/migrator'
import { join } from 'node:path'
import { buildPanel } from '../src/features/panel/bundle'

const root = join(import.meta.dir, '..')
const outfile = process.argv[2] ?? join(root, 'dist', 'storefront')
const migrations = readMigrationFiles({ migrationsFolder: join(root, 'migrations') })
const panel = await buildPanel()

const result = await Bun.build({
  entrypoints: [join(root, 'src', 'main.ts')],
  compile: { outfile },
  // Plain --minify renames identifiers and breaks Elysia's compiled handlers (STYLE, pitfalls).
  minify: { whitespace: true, syntax: true, identifiers: false },
  sourcemap: 'inline',
  // Bytecode skips parsing at start: the executable starts in about half the time. It needs CommonJS.
  bytecode: true,
  format: 'cjs',
  define: { STOREFRONT_MIGRATIONS: JSON.stringify(migrations), STOREFRONT_PANEL: JSON.stringify(panel) },
})
if (!result.success) {
  for (const log of result.logs) console.error(log)
  process.exit(1)
}
console.log(`built ${outfile} (${migrations.length} migrations and the ${panel.length}-file panel embedded)`)
