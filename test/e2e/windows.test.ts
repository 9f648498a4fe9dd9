import { afterAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import { emptyDir, startExecutable } from '../helpers/executable'
import { stopWine, windowsExecutable, wineMissing, type Wine } from '../helpers/wine'

/**
 * The Windows executable, run under Debian's wine with the test-only stand-in for bcryptprimitives.dll
 * (helpers/wine.ts). A missing wine is a failure that says what to install, never a skip: most students
 * carry Windows laptops, and this is the only place their executable runs before they do.
 */
let wine: Wine | undefined
afterAll(async () => {
  if (wine) await stopWine(wine)
})

/** A data folder as a Windows user has one: spaces and a non-ASCII letter in its path. */
const DATA = 'C:\\users\\João Silva\\Storefront data'

test('the Windows executable starts under wine on a data folder whose path has spaces and accents, serves /health, and stops cleanly on Ctrl-C', async () => {
  const missing = wineMissing()
  if (missing) throw new Error(missing)
  const dir = emptyDir()
  wine = await windowsExecutable(dir)
  expect(wine.version).toBe((await Bun.file(join(import.meta.dir, '..', '..', 'package.json')).json()).version)

  const server = await startExecutable(wine.exe, dir, ['--data', DATA, '--rate-limit-rps', '0'], wine.env, 60_000)
  try {
    expect(server.stdout()).toContain(`data dir     ${DATA}`)
    const health = await fetch(`${server.base}/health`)
    expect(await health.json()).toMatchObject({ status: 'ok' })
  } finally {
    // Wine turns SIGINT into the console's Ctrl-C, which the server stops on.
    expect(await server.stop('SIGINT')).toBe(0)
  }
  expect(server.stdout()).toContain('stopped cleanly')
}, 180_000)
