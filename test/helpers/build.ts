import { join } from 'node:path'
import type { Target } from '../../scripts/build'
import { track } from './children'

/** Names the executable that test/run.ts built once for the whole run, for every test file to start. */
export const EXECUTABLE_ENV = 'STOREFRONT_TEST_EXECUTABLE'

/** Builds the single executable (about 120 MB) to `out`, as `npm run build` does, or as `npm run build:all` does for `target`. */
export async function build(out: string, target?: Target): Promise<string> {
  const proc = track(Bun.spawn([process.execPath, join(import.meta.dir, '..', '..', 'scripts', 'build.ts'), out, ...(target ? [target] : [])], { stdout: 'pipe', stderr: 'pipe' }))
  if ((await proc.exited) !== 0) throw new Error(`build failed: ${await new Response(proc.stderr).text()}`)
  return out
}
