import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { ConfigError, defaultText, derivePublicUrl, loadConfig, localUrl, SETTINGS } from '../../src/config'

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
    expect(() => loadConfig({}, { ALLOW_INSECURE_WEBHOOKS: 'maybe' })).toThrow(
      new ConfigError('--allow-insecure-webhooks / ALLOW_INSECURE_WEBHOOKS: must be one of 1, true, yes, on (to turn it on) or 0, false, no, off (to leave it off) (got "maybe")'),
    )
  })

  test('loopback webhook targets are allowed by default only when the server listens on a loopback address', () => {
    for (const host of ['127.0.0.1', '127.0.1.1', 'localhost', '::1', '[::1]']) expect(loadConfig({ host }, {}).allowLoopbackWebhooks).toBe(true)
    for (const host of ['0.0.0.0', '::', '192.168.1.20', 'lab-pc.local']) expect(loadConfig({ host }, {}).allowLoopbackWebhooks).toBe(false)
    expect(loadConfig({ host: '127.0.0.1' }, { ALLOW_LOOPBACK_WEBHOOKS: 'off' }).allowLoopbackWebhooks).toBe(false)
    expect(loadConfig({ allowLoopbackWebhooks: true }, { HOST: '0.0.0.0' }).allowLoopbackWebhooks).toBe(true)
    // --allow-insecure-webhooks no longer brings loopback with it.
    expect(loadConfig({ allowInsecureWebhooks: true }, {}).allowLoopbackWebhooks).toBe(false)
  })

  test('the address the start banner gives for this machine is localhost unless the server listens on one address of the LAN', () => {
    expect(['0.0.0.0', '::', '127.0.0.1', 'localhost', '::1', '[::1]'].map((host) => localUrl(host, 3000))).toEqual(Array(6).fill('http://localhost:3000'))
    expect(localUrl('192.168.1.20', 3000)).toBe('http://192.168.1.20:3000')
    expect(localUrl('fe80::1', 3000)).toBe('http://[fe80::1]:3000')
    expect(localUrl('[fe80::1]', 3000)).toBe('http://[fe80::1]:3000')
  })

  test('an empty variable is one not set; an empty flag is refused, naming it', () => {
    expect(loadConfig({}, { PORT: '', HOST: '' })).toMatchObject({ port: 3000, host: '0.0.0.0' })
    expect(() => loadConfig({ port: '' }, {})).toThrow(new ConfigError('--port: needs a value (got ""); leave the flag out for the default'))
    expect(() => loadConfig({ host: '' }, { HOST: '127.0.0.1' })).toThrow(new ConfigError('--host: needs a value (got ""); leave the flag out for the default'))
  })

  test('RETENTION_DAYS is a whole number of days, at least 1', () => {
    expect(loadConfig({}, { RETENTION_DAYS: '7' }).retentionDays).toBe(7)
    expect(() => loadConfig({ retentionDays: '0' }, {})).toThrow('--retention-days / RETENTION_DAYS: must be a whole number from 1 to 3650 (got "0")')
  })

  test('a bad value names the flag, the env var and the value', () => {
    // Past the range, not a number, or not whole: the one rule, in words.
    for (const port of ['70000', 'abc', '3000.5']) expect(() => loadConfig({ port }, {})).toThrow(`--port / PORT: must be a whole number from 0 to 65535 (got "${port}")`)
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

const ROOT = join(import.meta.dir, '..', '..')

/** The rows of the Configuration table in docs/teacher.md, code marks removed. */
function documentedSettings() {
  const guide = readFileSync(join(ROOT, 'docs', 'teacher.md'), 'utf8')
  const section = guide.slice(guide.indexOf('\n## Configuration\n'))
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

describe("the teacher's guide's Configuration table", () => {
  test('lists every setting in order with its flag, variable, default and the help --help shows', () => {
    const expected = Object.values(SETTINGS).map((s) => ({ flag: s.flag, env: s.env, default: defaultText(s), meaning: s.help }))
    expect(documentedSettings()).toEqual(expected)
  })
})

describe('storefront serve --help', () => {
  test("shows each setting's default and environment variable, as the Configuration table does", async () => {
    const proc = Bun.spawn([process.execPath, join(ROOT, 'src', 'main.ts'), 'serve', '--help'], { stdout: 'pipe', stderr: 'pipe' })
    const [code, stdout] = await Promise.all([proc.exited, new Response(proc.stdout).text()])
    expect(code).toBe(0)
    // Commander wraps the help to the terminal's width: read it as one line.
    const help = stdout.replace(/\s+/g, ' ')
    expect(help).toContain('--port <value> TCP port to listen on (0 picks a free one) (default: 3000) [env PORT]')
    expect(help).toContain('(default: off) [env ALLOW_INSECURE_WEBHOOKS]')
    expect(help).toContain('(default: on only when --host is a loopback address) [env ALLOW_LOOPBACK_WEBHOOKS]')
    for (const row of documentedSettings()) {
      const line = new RegExp(`${row.flag}( <value>)? ${RegExp.escape(`${row.meaning} (default: ${row.default}) [env ${row.env}]`)}`)
      expect(help).toMatch(line)
    }
  })

  test('the command list says where the settings and their defaults are', async () => {
    const proc = Bun.spawn([process.execPath, join(ROOT, 'src', 'main.ts'), '--help'], { stdout: 'pipe' })
    const [code, stdout] = await Promise.all([proc.exited, new Response(proc.stdout).text()])
    expect(code).toBe(0)
    expect(stdout.replace(/\s+/g, ' ')).toContain('storefront serve --help lists its settings and their defaults')
  })
})
