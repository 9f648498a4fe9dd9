import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

const root = join(import.meta.dir, '..', '..')
const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'))
const readme = readFileSync(join(root, 'README.md'), 'utf8')

describe('npm install on a fresh clone, on the Node version the README names', () => {
  test('every package of the lock accepts that version, so npm warns of no engine; package.json asks for the same', () => {
    const named = /On a machine with Node\.js (\d+\.\d+) or later/.exec(readme)?.[1]
    expect(named).toBeDefined()
    expect(packageJson.engines).toEqual({ node: `>=${named}` })
    const entries = Object.entries(lock.packages as Record<string, { version?: string; engines?: { node?: unknown } }>)
    const refusing = entries
      .filter(([path, p]) => path && typeof p.engines?.node === 'string' && !Bun.semver.satisfies(`${named}.0`, p.engines.node))
      .map(([path, p]) => `${path.replace(/^.*node_modules\//, '')} ${p.version} wants Node ${p.engines!.node}`)
    expect(refusing).toEqual([])
  })

  test('warns of no install script left unreviewed: every package that has one is named in allowScripts', () => {
    const withScripts = Object.entries(lock.packages as Record<string, { hasInstallScript?: boolean }>)
      .filter(([path, p]) => path && p.hasInstallScript)
      .map(([path]) => path.replace(/^.*node_modules\//, ''))
    expect(withScripts).toContain('bun')
    expect([...new Set(withScripts)].filter((name) => packageJson.allowScripts?.[name] !== true)).toEqual([])
  })
})
