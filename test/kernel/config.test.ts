import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { ConfigError, derivePublicUrl, loadConfig, SETTINGS } from '../../src/config'

describe('configuration: flags, environment and defaults', () => {
  test('defaults', () => {
    const c = loadConfig({}, {})
    expect(c).toEqual({
      port: 3000,
      host: '0.0.0.0',
      dataDir: resolve('./data'),
      adminToken: undefined,
      publicUrl: undefined,
      allowInsecureWebhooks: false,
      allowLoopbackWebhooks: false,
      retentionDays: 30,
      rateLimitRps: 50,
      rateLimitBurst: 100,
      reservationTtlMinutes: 60,
      mediaQuotaMb: 500,
    })
    expect(Object.isFrozen(c)).toBe(true)
  })

  test('flags override env vars, env vars override defaults', () => {
    const env = { PORT: '4000', HOST: '127.0.0.1', RATE_LIMIT_RPS: '0', MEDIA_QUOTA_MB: '50' }
    const c = loadConfig({ port: '5000' }, env)
    expect(c.port).toBe(5000)
    expect(c.host).toBe('127.0.0.1')
    expect(c.rateLimitRps).toBe(0)
    expect(c.mediaQuotaMb).toBe(50)
  })

  test('boolean settings read the usual words from env and a bare flag', () => {
    expect(loadConfig({}, { ALLOW_INSECURE_WEBHOOKS: '1' }).allowInsecureWebhooks).toBe(true)
    expect(loadConfig({}, { ALLOW_INSECURE_WEBHOOKS: 'true' }).allowInsecureWebhooks).toBe(true)
    expect(loadConfig({}, { ALLOW_INSECURE_WEBHOOKS: 'no' }).allowInsecureWebhooks).toBe(false)
    expect(loadConfig({ allowInsecureWebhooks: true }, { ALLOW_INSECURE_WEBHOOKS: '0' }).allowInsecureWebhooks).toBe(true)
    expect(() => loadConfig({}, { ALLOW_INSECURE_WEBHOOKS: 'maybe' })).toThrow(ConfigError)
  })

  test('loopback webhook targets are allowed by default only when the server listens on a loopback address', () => {
    for (const host of ['127.0.0.1', '127.0.1.1', 'localhost', '::1', '[::1]']) expect(loadConfig({ host }, {}).allowLoopbackWebhooks).toBe(true)
    for (const host of ['0.0.0.0', '::', '192.168.1.20', 'lab-pc.local']) expect(loadConfig({ host }, {}).allowLoopbackWebhooks).toBe(false)
    expect(loadConfig({ host: '127.0.0.1' }, { ALLOW_LOOPBACK_WEBHOOKS: 'off' }).allowLoopbackWebhooks).toBe(false)
    expect(loadConfig({ allowLoopbackWebhooks: true }, { HOST: '0.0.0.0' }).allowLoopbackWebhooks).toBe(true)
    // --allow-insecure-webhooks no longer brings loopback with it.
    expect(loadConfig({ allowInsecureWebhooks: true }, {}).allowLoopbackWebhooks).toBe(false)
  })

  test('RETENTION_DAYS is a whole number of days, at least 1', () => {
    expect(loadConfig({}, { RETENTION_DAYS: '7' }).retentionDays).toBe(7)
    expect(() => loadConfig({ retentionDays: '0' }, {})).toThrow('--retention-days / RETENTION_DAYS: Too small: expected number to be >=1 (got "0")')
  })

  test('a bad value names the flag, the env var and the value', () => {
    expect(() => loadConfig({ port: '70000' }, {})).toThrow(
      '--port / PORT: Too big: expected number to be <=65535 (got "70000")',
    )
    expect(() => loadConfig({}, { RATE_LIMIT_RPS: '-1' })).toThrow('--rate-limit-rps / RATE_LIMIT_RPS')
    expect(() => loadConfig({}, { PUBLIC_URL: 'ftp://x' })).toThrow(
      '--public-url / PUBLIC_URL: must be an http:// or https:// URL (got "ftp://x")',
    )
    expect(() => loadConfig({ adminToken: 'short' }, {})).toThrow('--admin-token / ADMIN_TOKEN: must have at least 16 characters')
  })

  test('PUBLIC_URL loses its trailing slash; without it the URL is derived from the listen address', () => {
    expect(loadConfig({}, { PUBLIC_URL: 'http://lab.local:8080/' }).publicUrl).toBe('http://lab.local:8080')
    expect(derivePublicUrl(loadConfig({ host: '127.0.0.1' }, {}), 4321)).toBe('http://127.0.0.1:4321')
    expect(derivePublicUrl(loadConfig({ publicUrl: 'https://shop.example' }, {}), 4321)).toBe('https://shop.example')
    // A wildcard address is not reachable from other machines: a LAN address (or localhost) stands in.
    expect(derivePublicUrl(loadConfig({}, {}), 4321)).toMatch(/^http:\/\/(\d+\.\d+\.\d+\.\d+|localhost):4321$/)
  })
})

/** The rows of README.md's Configuration table, code marks removed. */
function readmeSettings() {
  const readme = readFileSync(join(import.meta.dir, '..', '..', 'README.md'), 'utf8')
  const section = readme.slice(readme.indexOf('\n## Configuration\n'))
  const lines = section.split('\n')
  const header = lines.findIndex((l) => l.startsWith('| flag |'))
  const rows = []
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break
    const [flag, env, byDefault, meaning] = line.slice(2, -2).split(' | ').map((cell) => cell.replaceAll('`', ''))
    rows.push({ flag, env, default: byDefault, meaning })
  }
  return rows
}

describe("README's Configuration table", () => {
  test('lists every setting in order with its flag, variable, default and the help --help shows', () => {
    const expected = Object.values(SETTINGS).map((s) => {
      // A setting whose default depends on something else says so at the end of its help.
      const note = / \(default:? (.*)\)$/.exec(s.help)
      const schemaDefault = s.schema.safeParse(undefined).data
      const shown = typeof schemaDefault === 'boolean' ? (schemaDefault ? 'on' : 'off') : schemaDefault === undefined ? note?.[1] : String(schemaDefault)
      return { flag: s.flag, env: s.env, default: shown, meaning: note ? s.help.slice(0, note.index) : s.help }
    })
    expect(readmeSettings()).toEqual(expected)
  })
})
