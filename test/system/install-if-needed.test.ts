import { describe, expect, test } from 'bun:test'
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { installNeeded } from '../../scripts/install-if-needed.mjs'
import { track } from '../helpers/children'
import { expectHeldInOneOf, expectWithinBaseline } from '../helpers/limits'
import { tempDir } from '../helpers/temp'

const root = join(import.meta.dir, '..', '..')
const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'))

/** A lock of two packages: one every install has, one npm leaves out on other systems. */
const smallLock = () => ({
  packages: {
    '': { dependencies: { commander: '14.0.3' }, devDependencies: { bun: '1.4.5' } },
    'node_modules/commander': { version: '14.0.3' },
    'node_modules/bun': { version: '1.4.5', dev: true },
    'node_modules/@oven/bun-darwin-aarch64': { version: '1.4.5', dev: true, optional: true },
  },
})
const smallPackage = { dependencies: { commander: '14.0.3' }, devDependencies: { bun: '1.4.5' } }
/** What npm records in node_modules/.package-lock.json after installing smallLock on Linux. */
const installedOnLinux = () => {
  const { '': _root, 'node_modules/@oven/bun-darwin-aarch64': _other, ...installed } = smallLock().packages
  return { packages: installed }
}

describe('what decides that npm start and npm test install first', () => {
  test('node_modules as npm installed it from the lock needs nothing, the other systems\' optional builds left out', () => {
    expect(installNeeded({ packageJson: smallPackage, lock: smallLock(), installed: installedOnLinux() })).toBeNull()
  })

  test('no node_modules (a fresh clone) is npm ci', () => {
    expect(installNeeded({ packageJson: smallPackage, lock: smallLock(), installed: undefined })).toEqual({
      command: 'ci',
      reason: 'node_modules is not installed yet',
    })
  })

  test('a package at another version than the lock, or missing, is npm install, naming it', () => {
    const older = installedOnLinux()
    older.packages['node_modules/commander'] = { version: '15.1.0' }
    expect(installNeeded({ packageJson: smallPackage, lock: smallLock(), installed: older })).toEqual({
      command: 'install',
      reason: 'node_modules has commander 15.1.0, package-lock.json wants 14.0.3',
    })
    const { 'node_modules/bun': _bun, ...withoutBun } = installedOnLinux().packages
    expect(installNeeded({ packageJson: smallPackage, lock: smallLock(), installed: { packages: withoutBun } })).toEqual({
      command: 'install',
      reason: 'node_modules lacks bun 1.4.5',
    })
  })

  test('an optional package that is there must be at the lock\'s version too', () => {
    const installed = { packages: { ...installedOnLinux().packages, 'node_modules/@oven/bun-darwin-aarch64': { version: '1.4.4' } } }
    expect(installNeeded({ packageJson: smallPackage, lock: smallLock(), installed })?.reason).toBe(
      'node_modules has @oven/bun-darwin-aarch64 1.4.4, package-lock.json wants 1.4.5',
    )
  })

  test('package.json that the lock does not follow (a version edited by hand), or no lock, is npm install', () => {
    const edited = { ...smallPackage, dependencies: { commander: '14.0.4' } }
    expect(installNeeded({ packageJson: edited, lock: smallLock(), installed: installedOnLinux() })).toEqual({
      command: 'install',
      reason: 'package.json and package-lock.json disagree on commander',
    })
    expect(installNeeded({ packageJson: smallPackage, lock: undefined, installed: installedOnLinux() })?.command).toBe('install')
  })

  test("this repository's package.json and package-lock.json agree", () => {
    const { '': _root, ...all } = lock.packages
    expect(installNeeded({ packageJson, lock, installed: { packages: all } })).toBeNull()
  })
})

/**
 * A copy of the project's install files in a temp folder, with a stand-in for npm that writes down
 * how it was called and exits with FAKE_NPM_EXIT: the pre-script is run exactly as npm runs it.
 */
function project(options: { installed: boolean }) {
  const dir = tempDir('install')
  mkdirSync(join(dir, 'scripts'))
  for (const file of ['package.json', 'package-lock.json', 'scripts/install-if-needed.mjs']) copyFileSync(join(root, file), join(dir, file))
  if (options.installed) {
    // What npm records after installing the lock: every package but optional ones (the builds for other systems).
    const { '': _root, ...all } = lock.packages as Record<string, { optional?: boolean }>
    const installed = Object.fromEntries(Object.entries(all).filter(([, p]) => !p.optional))
    mkdirSync(join(dir, 'node_modules'))
    writeFileSync(join(dir, 'node_modules', '.package-lock.json'), JSON.stringify({ ...lock, packages: installed }))
  }
  mkdirSync(join(dir, 'fake-npm'))
  const npm = join(dir, 'fake-npm', 'npm-cli.js')
  const calls = join(dir, 'npm-calls.txt')
  writeFileSync(npm, `import { appendFileSync } from 'node:fs'\nappendFileSync(${JSON.stringify(calls)}, process.argv.slice(2).join(' ') + '\\n')\nprocess.exit(Number(process.env.FAKE_NPM_EXIT))\n`)
  return {
    dir,
    calls: () => (existsSync(calls) ? readFileSync(calls, 'utf8') : ''),
    run: (script: 'prestart' | 'pretest', npmExit = 0) => spawned(packageJson.scripts[script].split(' '), npmExit),
    /** Node starting and doing nothing, started the same way: the cost a pre-script that does nothing is compared with. */
    nodeAlone: () => spawned(['node', '-e', '']),
  }

  async function spawned(command: string[], npmExit = 0) {
    const started = performance.now()
    const proc = track(
      Bun.spawn(command, {
        cwd: dir,
        stdout: 'pipe',
        stderr: 'pipe',
        env: { PATH: process.env.PATH ?? '', npm_execpath: npm, FAKE_NPM_EXIT: String(npmExit) },
      }),
    )
    const [code, stdout, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()])
    return { code, stdout, stderr, ms: performance.now() - started }
  }
}

describe('npm start and npm test on a clone', () => {
  test('with node_modules installed from the lock, the pre-scripts of both do nothing, quietly and at once', async () => {
    const p = project({ installed: true })
    const times: number[] = []
    for (const script of ['prestart', 'pretest'] as const) {
      const res = await p.run(script)
      expect({ script, code: res.code, stdout: res.stdout, stderr: res.stderr }).toEqual({ script, code: 0, stdout: '', stderr: '' })
      times.push(res.ms)
    }
    expect(p.calls()).toBe('')
    // An npm ci takes tens of seconds; this is Node starting and reading two files. The best of each
    // (a busy machine only ever adds time), the pre-script and Node starting alone timed in turn, and
    // measured again when a busy suite's stall lands on one side (it did once in CI: 203 against 34 ms).
    const script = async () => (await p.run('prestart')).ms
    const alone = async () => (await p.nodeAlone()).ms
    await expectHeldInOneOf(3, 'rounds of three starts each', async () => {
      const [best, baseline] = [[...times], [] as number[]]
      for (let i = 0; i < 3; i++) {
        baseline.push(await alone())
        best.push(await script())
      }
      try {
        expectWithinBaseline('the pre-script with nothing to install (baseline: node -e "")', Math.min(...best), Math.min(...baseline), { factor: 5 })
        return undefined
      } catch (e) {
        return (e as Error).message
      }
    }, 'at most 5 times Node starting alone')
  })

  test('on a fresh clone the pre-script runs npm ci once, says why, and the start goes on', async () => {
    const p = project({ installed: false })
    const res = await p.run('prestart')
    expect([res.code, res.stderr]).toEqual([0, 'node_modules is not installed yet: running npm ci --no-audit --no-fund first\n'])
    expect(p.calls()).toBe('ci --no-audit --no-fund\n')
  })

  test('when the install fails, so does the pre-script, with its exit code and what to do', async () => {
    const p = project({ installed: false })
    const res = await p.run('pretest', 3)
    expect(res.code).toBe(3)
    expect(res.stderr).toEndWith('npm ci failed (exit code 3); fix what it says above, or run npm install yourself, then try again\n')
  })
})
