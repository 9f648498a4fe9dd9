// @ts-check
/**
 * `npm start` and `npm test` run this first (prestart, pretest), so that a fresh clone needs no
 * `npm install` of its own. It is plain Node (no dependency, no TypeScript): before the first install
 * there is no Bun to run anything else. When node_modules already matches package-lock.json it reads
 * two files and exits, in about the time Node takes to start.
 *
 * "Matches" is read from node_modules/.package-lock.json, the record npm writes of what it installed:
 * every package the lock holds is there at the lock's version, except optional ones (the Bun and
 * esbuild builds for other systems) that npm leaves out.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, realpathSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * @typedef {{ version?: string, dev?: boolean, optional?: boolean, devOptional?: boolean, link?: boolean,
 *   dependencies?: Record<string, string>, devDependencies?: Record<string, string>,
 *   optionalDependencies?: Record<string, string> }} LockEntry
 * @typedef {{ packages?: Record<string, LockEntry> }} Lockfile
 * @typedef {{ dependencies?: Record<string, string>, devDependencies?: Record<string, string>,
 *   optionalDependencies?: Record<string, string> }} PackageJson
 * @typedef {{ command: 'ci' | 'install', reason: string }} Install
 */

const DEPENDENCY_FIELDS = /** @type {const} */ (['dependencies', 'devDependencies', 'optionalDependencies'])

/**
 * What to run, and why, to bring node_modules in line with package.json and package-lock.json; null
 * when it already is. `installed` is node_modules/.package-lock.json, undefined when there is none.
 * Nothing installed yet is `npm ci`, the lock's exact tree, which never rewrites the lock; an install
 * that is out of date (a pull brought a new lock) is `npm install`, which changes only what differs.
 * @param {{ packageJson: PackageJson, lock: Lockfile | undefined, installed: Lockfile | undefined }} state
 * @returns {Install | null}
 */
export function installNeeded({ packageJson, lock, installed }) {
  if (!lock?.packages) return { command: 'install', reason: 'package-lock.json is missing' }
  const root = lock.packages[''] ?? {}
  for (const field of DEPENDENCY_FIELDS) {
    const wanted = packageJson[field] ?? {}
    const locked = root[field] ?? {}
    const changed = Object.keys({ ...wanted, ...locked }).find((name) => wanted[name] !== locked[name])
    // npm ci refuses a lock that disagrees with package.json; npm install brings both in line.
    if (changed) return { command: 'install', reason: `package.json and package-lock.json disagree on ${changed}` }
  }
  if (!installed?.packages) return { command: 'ci', reason: 'node_modules is not installed yet' }
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '' || entry.link || !entry.version) continue
    const found = installed.packages[path]
    const name = path.replace(/^.*node_modules\//, '')
    if (!found) {
      if (entry.optional || entry.devOptional) continue
      return { command: 'install', reason: `node_modules lacks ${name} ${entry.version}` }
    }
    if (found.version !== entry.version) {
      return { command: 'install', reason: `node_modules has ${name} ${found.version}, package-lock.json wants ${entry.version}` }
    }
  }
  return null
}

/**
 * The file's JSON, or undefined when it is missing or damaged (an install stopped half-way): npm then
 * writes it anew.
 * @param {string} file
 */
function readJson(file) {
  if (!existsSync(file)) return undefined
  try {
    return JSON.parse(readFileSync(file, 'utf8'))
  } catch {
    return undefined
  }
}

/**
 * The npm that runs this script (npm tells its path in npm_execpath), or else the `npm` on the PATH,
 * which on Windows is npm.cmd and needs a shell.
 * @param {string[]} args
 */
function runNpm(args) {
  const npm = process.env.npm_execpath
  if (npm && /^npm-cli\.[cm]?js$/.test(basename(npm))) return spawnSync(process.execPath, [npm, ...args], { stdio: 'inherit' })
  return spawnSync('npm', args, { stdio: 'inherit', shell: process.platform === 'win32' })
}

/** @param {string} root */
export function main(root) {
  const needed = installNeeded({
    packageJson: readJson(join(root, 'package.json')) ?? {},
    lock: readJson(join(root, 'package-lock.json')),
    installed: readJson(join(root, 'node_modules', '.package-lock.json')),
  })
  if (!needed) return 0
  const args = [needed.command, '--no-audit', '--no-fund']
  process.stderr.write(`${needed.reason}: running npm ${args.join(' ')} first\n`)
  const result = runNpm(args)
  if (result.status === 0) return 0
  process.stderr.write(`npm ${needed.command} failed (${result.error?.message ?? `exit code ${result.status}`}); fix what it says above, or run npm install yourself, then try again\n`)
  return result.status || 1
}

/** Whether Node runs this file (npm's pre-scripts do), rather than a test importing it. */
function runAsScript() {
  try {
    return realpathSync(process.argv[1] ?? '') === fileURLToPath(import.meta.url)
  } catch {
    return false
  }
}

if (runAsScript()) process.exitCode = main(join(dirname(fileURLToPath(import.meta.url)), '..'))
