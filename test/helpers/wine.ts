import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { build } from './build'
import { track } from './children'

/**
 * The Windows executable, run here under Debian's wine (packages wine, wine64 and, for the stand-in DLL
 * below, gcc-mingw-w64-x86-64; .ci/run installs them). Everything wine keeps (its registry, its C: drive,
 * its wineserver) lives in a prefix inside the test's own folder, and `stopWine` ends what is left of it.
 */
const WINE_PACKAGES = 'wine wine64 gcc-mingw-w64-x86-64'
const MINGW_GCC = 'x86_64-w64-mingw32-gcc'

/** What is missing to run the Windows executable here, as a message that says what to install; undefined when nothing is. */
export function wineMissing(): string | undefined {
  const missing = ['wine', 'wineserver', MINGW_GCC].filter((tool) => Bun.which(tool) === null)
  if (missing.length === 0) return undefined
  return `${missing.join(', ')} not found: the Windows executable is tested under wine; install it with \`apt-get install ${WINE_PACKAGES}\` (Debian or Ubuntu on x86-64)`
}

export interface Wine {
  /** The command that runs the executable under wine, for startExecutable and runExecutable. */
  exe: string[]
  /** The environment wine needs, to add to the bare PATH those helpers give. */
  env: Record<string, string>
  /** The Linux path of a Windows path on the prefix's C: drive (`C:\users\...`). */
  onC(windowsPath: string): string
}

/**
 * Builds the Windows executable into `dir`, with the test-only stand-in for bcryptprimitives.dll beside
 * it (test/fixtures/windows/bcryptprimitives.c: Debian's wine 8 lacks that DLL, which Windows 10 has),
 * and a wine prefix in `dir/wine`, made by running the executable's `version` once.
 */
export async function windowsExecutable(dir: string): Promise<Wine & { version: string }> {
  const exePath = join(dir, 'storefront.exe')
  const shim = track(Bun.spawn([MINGW_GCC, '-O2', '-s', '-shared', '-o', join(dir, 'bcryptprimitives.dll'), join(import.meta.dir, '..', 'fixtures', 'windows', 'bcryptprimitives.c'), '-ladvapi32'], { stdout: 'pipe', stderr: 'pipe' }))
  const [built, shimCode] = await Promise.all([build(exePath, 'windows-x64'), shim.exited])
  if (shimCode !== 0) throw new Error(`${MINGW_GCC} could not build the stand-in bcryptprimitives.dll: ${await new Response(shim.stderr).text()}`)
  const prefix = join(dir, 'wine')
  mkdirSync(prefix)
  const env = {
    WINEPREFIX: prefix,
    HOME: dir,
    // Wine reads the command line in the locale's encoding: UTF-8, so that `João` reaches the program as it was typed.
    LC_ALL: 'C.UTF-8',
    // No debugging output, and no offer to install wine's Mono and Gecko (a .NET and an HTML engine the executable does not use).
    WINEDEBUG: '-all',
    WINEDLLOVERRIDES: 'mscoree=;mshtml=',
  }
  const wine: Wine = { exe: ['wine', built], env, onC: (path) => join(prefix, 'drive_c', ...path.replace(/^C:\\/i, '').split('\\')) }
  const proc = track(Bun.spawn([...wine.exe, 'version'], { cwd: dir, stdout: 'pipe', stderr: 'pipe', env: { PATH: process.env.PATH ?? '', ...env } }))
  const [code, stdout, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()])
  if (code !== 0) throw new Error(`the Windows executable did not run under wine (exit code ${code}): ${stdout}${stderr}`)
  return { ...wine, version: stdout.trim() }
}

/** Ends every process of the prefix, wineserver included, and waits until they are gone. */
export async function stopWine(wine: Pick<Wine, 'env'>) {
  if (!existsSync(wine.env.WINEPREFIX!)) return
  const env = { PATH: process.env.PATH ?? '', ...wine.env }
  await track(Bun.spawn(['wineserver', '-k'], { env, stdout: 'ignore', stderr: 'ignore' })).exited
  await track(Bun.spawn(['wineserver', '-w'], { env, stdout: 'ignore', stderr: 'ignore' })).exited
}
