import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const made: string[] = []

/**
 * A fresh folder `storefront-<name>-XXXXXX` in the system's temp directory, removed with everything in
 * it when the test file is done (test/setup.ts); a test that needs it gone sooner removes it itself.
 */
export function tempDir(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `storefront-${name}-`))
  made.push(dir)
  return dir
}

export function removeTempDirs() {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
}
