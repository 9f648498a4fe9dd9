/**
 * `npm run build`: writes dist/storefront, one executable for this machine with the migrations, the
 * docs assets and the web panel inside it, runnable from any directory.
 * `npm run build:all`: the same program for every laptop a student may have, into dist/ (TARGETS).
 * `bun scripts/build.ts <file> [target]`: one executable to <file>, for this machine or the target.
 */
import { readMigrationFiles } from 'drizzle-orm/migrator'
import { join } from 'node:path'
import { buildPanel } from '../src/features/panel/bundle'
import { baselineFor, type Baseline } from '../src/kernel/db/migrate'
import { platform } from '../src/kernel/platform'

const root = join(import.meta.dir, '..')

/** Each target's file in dist/, and Bun's name for it (Bun fetches that runtime from npm). */
export const TARGETS = {
  'linux-x64': 'bun-linux-x64',
  'linux-arm64': 'bun-linux-arm64',
  'darwin-arm64': 'bun-darwin-arm64',
  'darwin-x64': 'bun-darwin-x64',
  'windows-x64': 'bun-windows-x64',
} as const
export type Target = keyof typeof TARGETS

/** This machine's target. */
const HOST = `${platform.name === 'win32' ? 'windows' : platform.name}-${process.arch}`

export const fileFor = (target: Target) => join(root, 'dist', `storefront-${target}${target.startsWith('windows') ? '.exe' : ''}`)

/** What every executable carries, made once for however many are built. */
let embedded: Promise<{ migrations: ReturnType<typeof readMigrationFiles>; baseline: Baseline; panel: Awaited<ReturnType<typeof buildPanel>> }> | undefined

/** Writes one executable for `target` (this machine when left out) to `outfile`. */
export async function buildExecutable(outfile: string, target?: Target) {
  embedded ??= buildPanel().then((panel) => {
    const migrations = readMigrationFiles({ migrationsFolder: join(root, 'migrations') })
    // What an empty database is after them: a new folder's first start makes it in one pass (src/kernel/db/migrate.ts).
    return { panel, migrations, baseline: baselineFor(migrations) }
  })
  const { migrations, baseline, panel } = await embedded
  // Bytecode skips parsing at start: the executable starts in about half the time. JavaScriptCore
  // makes it in the Bun running this build; it is only used where an executable so built was seen to
  // run: this machine, and Linux (linux-arm64 under qemu-user starts in 3.5 s instead of 4.9 s). The
  // macOS executables cannot be run here, and the Windows one only under wine, which is not Windows:
  // they parse at start, as a script does.
  const bytecode = target === undefined || target === HOST || target.startsWith('linux-')
  const result = await Bun.build({
    entrypoints: [join(root, 'src', 'main.ts')],
    compile: target ? { outfile, target: TARGETS[target] } : { outfile },
    // Plain --minify renames identifiers and breaks Elysia's compiled handlers, which read their own source.
    minify: { whitespace: true, syntax: true, identifiers: false },
    sourcemap: 'inline',
    bytecode,
    // Bytecode needs CommonJS; every target gets the same format, so they run the same code.
    format: 'cjs',
    define: { STOREFRONT_MIGRATIONS: JSON.stringify(migrations), STOREFRONT_BASELINE: JSON.stringify(baseline), STOREFRONT_PANEL: JSON.stringify(panel) },
  })
  if (!result.success) throw new AggregateError(result.logs, `the build for ${target ?? 'this machine'} failed`)
  return { outfile, migrations: migrations.length, panelFiles: panel.length, bytecode }
}

if (import.meta.main) {
  const [first, second] = process.argv.slice(2)
  const jobs: [string, Target | undefined][] =
    first === '--all' ? Object.keys(TARGETS).map((t) => [fileFor(t as Target), t as Target]) : [[first ?? join(root, 'dist', 'storefront'), second as Target | undefined]]
  for (const [outfile, target] of jobs) {
    if (target && !(target in TARGETS)) {
      console.error(`unknown target ${target}; one of ${Object.keys(TARGETS).join(', ')}`)
      process.exit(2)
    }
    try {
      const built = await buildExecutable(outfile, target)
      console.log(`built ${built.outfile} (${built.migrations} migrations and the ${built.panelFiles}-file panel embedded${built.bytecode ? ', bytecode' : ''})`)
    } catch (e) {
      for (const log of (e as AggregateError).errors ?? [e]) console.error(log)
      process.exit(1)
    }
  }
}
