import { isIPv4 } from 'node:net'
import { networkInterfaces } from 'node:os'
import { resolve } from 'node:path'
import { z } from 'zod'

const boolText = z
  .union([z.boolean(), z.enum(['1', 'true', 'yes', 'on', '0', 'false', 'no', 'off', ''])], { error: 'must be one of 1, true, yes, on (to turn it on) or 0, false, no, off (to leave it off)' })
  .transform((v) => v === true || v === '1' || v === 'true' || v === 'yes' || v === 'on')

/** The shortest admin token taken, configured or written into its file (kernel/admin-token.ts). */
export const ADMIN_TOKEN_MIN_LENGTH = 16

const wholeNumber = (min: number, max: number) => {
  const range = `must be a whole number from ${min} to ${max}`
  return z.coerce.number({ error: range }).int(range).min(min, range).max(max, range)
}

/**
 * Every setting: its flag, its env var, its help and its schema. Flags override env vars, which override
 * defaults. `--help` is made from this table (helpLine), and a test holds the Configuration table of
 * docs/teacher.md to it row by row: the help is the row's meaning, and defaultText its default. A
 * setting whose default is not a value of its schema (it depends on something else) says it in `byDefault`.
 */
export const SETTINGS = {
  port: {
    flag: '--port',
    env: 'PORT',
    help: 'TCP port to listen on (0 picks a free one)',
    schema: wholeNumber(0, 65535).default(3000),
  },
  host: {
    flag: '--host',
    env: 'HOST',
    help: 'address to listen on (0.0.0.0 = every interface of the machine)',
    schema: z.string().min(1).default('0.0.0.0'),
  },
  dataDir: {
    flag: '--data',
    env: 'DATA_DIR',
    help: 'folder for storefront.db and media/ (created if missing)',
    schema: z.string().min(1).default('./data'),
  },
  adminToken: {
    flag: '--admin-token',
    env: 'ADMIN_TOKEN',
    help: `teacher token for /v1/admin (at least ${ADMIN_TOKEN_MIN_LENGTH} characters)`,
    byDefault: 'generated once, kept in <data>/admin-token',
    schema: z.string().min(ADMIN_TOKEN_MIN_LENGTH, `must have at least ${ADMIN_TOKEN_MIN_LENGTH} characters`).max(256).optional(),
  },
  publicUrl: {
    flag: '--public-url',
    env: 'PUBLIC_URL',
    help: 'base of media URLs',
    byDefault: 'the address each request was sent to; http://<LAN address>:<port> where there is no request',
    schema: z
      .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
      .transform((u) => u.replace(/\/+$/, ''))
      .optional(),
  },
  allowInsecureWebhooks: {
    flag: '--allow-insecure-webhooks',
    env: 'ALLOW_INSECURE_WEBHOOKS',
    help: 'let webhooks target http:// URLs on the LAN (a LAN without certificates); loopback stays refused',
    schema: boolText.default(false),
  },
  allowLoopbackWebhooks: {
    flag: '--allow-loopback-webhooks',
    env: 'ALLOW_LOOPBACK_WEBHOOKS',
    help: 'let webhooks target loopback (this machine), http:// included',
    byDefault: 'on only when --host is a loopback address',
    // Unset, it follows the listen address (loadConfig): only a personal copy may call its own machine.
    schema: boolText.optional(),
  },
  retentionDays: {
    flag: '--retention-days',
    env: 'RETENTION_DAYS',
    help: 'days kept of webhook attempts, delivered events and expired sessions; older ones are pruned',
    schema: wholeNumber(1, 3650).default(30),
  },
  rateLimitRps: {
    flag: '--rate-limit-rps',
    env: 'RATE_LIMIT_RPS',
    help: 'requests per second per store (0 turns the limit off)',
    schema: wholeNumber(0, 1_000_000).default(50),
  },
  rateLimitBurst: {
    flag: '--rate-limit-burst',
    env: 'RATE_LIMIT_BURST',
    help: 'requests a store may send at once above the steady rate',
    schema: wholeNumber(1, 1_000_000).default(100),
  },
  reservationTtlMinutes: {
    flag: '--reservation-ttl-minutes',
    env: 'RESERVATION_TTL_MINUTES',
    help: 'minutes an unpaid order holds its stock before it is cancelled',
    schema: wholeNumber(1, 7 * 24 * 60).default(60),
  },
  mediaQuotaMb: {
    flag: '--media-quota-mb',
    env: 'MEDIA_QUOTA_MB',
    help: 'disk space each store may use for media, in MiB',
    schema: wholeNumber(1, 1_000_000).default(500),
  },
} as const

type Settings = typeof SETTINGS
export type SettingName = keyof Settings
type Setting = Settings[SettingName]

/** A setting's default as a person reads it: a switch is on or off, a value is shown as given. */
export function defaultText(s: Setting): string {
  if ('byDefault' in s) return s.byDefault
  const value: unknown = s.schema.safeParse(undefined).data
  return typeof value === 'boolean' ? (value ? 'on' : 'off') : String(value)
}

/**
 * A setting's line in `storefront serve --help`: what it does, its default and its variable. The
 * default is in the text, not given to commander as the option's value: a value commander filled in
 * would look like a flag given, and hide the environment variable that should win over the default.
 */
export const helpLine = (s: Setting) => `${s.help} (default: ${defaultText(s)}) [env ${s.env}]`
type Parsed = { [K in SettingName]: z.output<Settings[K]['schema']> }

export type Config = Readonly<
  Omit<Parsed, 'publicUrl' | 'allowLoopbackWebhooks'> & {
    /** Set, or else on exactly when the server listens on a loopback address. */
    allowLoopbackWebhooks: boolean
    /** Absolute path of the data dir. */
    dataDir: string
    /** Explicit PUBLIC_URL, or undefined: then it is derived from the address actually listened on. */
    publicUrl: string | undefined
  }
>

export class ConfigError extends Error {}

/** Settings given as a bare flag (`--allow-insecure-webhooks`), or as a yes/no word in the environment. */
export const SWITCHES: ReadonlySet<SettingName> = new Set(['allowInsecureWebhooks', 'allowLoopbackWebhooks'])

/** Raw values as they come from the command line (commander) and the environment. */
export type RawSettings = Partial<Record<SettingName, string | boolean | undefined>>

export function loadConfig(flags: RawSettings, env: Record<string, string | undefined>): Config {
  const out: Record<string, unknown> = {}
  for (const [name, s] of Object.entries(SETTINGS) as [SettingName, Settings[SettingName]][]) {
    // An empty variable is one not set (PORT= in a shell); an empty flag was typed, and meant something.
    if (flags[name] === '' && !SWITCHES.has(name)) throw new ConfigError(`${s.flag}: needs a value (got ""); leave the flag out for the default`)
    const raw = flags[name] ?? env[s.env]
    const parsed = s.schema.safeParse(raw === '' && !SWITCHES.has(name) ? undefined : raw)
    if (!parsed.success) {
      const why = parsed.error.issues[0]?.message ?? 'invalid value'
      throw new ConfigError(`${s.flag} / ${s.env}: ${why.replace(/^Invalid input: /, '')} (got ${JSON.stringify(raw)})`)
    }
    out[name] = parsed.data
  }
  out.dataDir = resolve(out.dataDir as string)
  out.allowLoopbackWebhooks ??= isLoopbackHost(out.host as string)
  return Object.freeze(out as Config)
}

/**
 * The base URL students' apps and browsers use to reach this server. With a wildcard listen address
 * the machine's first LAN IPv4 address stands in, because `0.0.0.0` is not reachable from elsewhere.
 */
export function derivePublicUrl(config: Config, port: number): string {
  if (config.publicUrl) return config.publicUrl
  return `http://${reachableHost(config.host)}:${port}`
}

/** Whether listening on `host` is listening on every address of the machine. */
export const isWildcardHost = (host: string) => host === '0.0.0.0' || host === '::'

/** `host` without the brackets an IPv6 address may be given in. */
const bareHost = (host: string) => host.replace(/^\[(.*)\]$/, '$1')

/** `host` as a URL writes it: an IPv6 address in brackets, once. */
export const urlHost = (host: string) => {
  const bare = bareHost(host)
  return bare.includes(':') ? `[${bare}]` : bare
}

export function reachableHost(host: string): string {
  if (!isWildcardHost(host)) return urlHost(host)
  return lanAddresses()[0] ?? 'localhost'
}

/** Whether listening on `host` serves this machine only: a student's personal copy. */
export function isLoopbackHost(host: string): boolean {
  const bare = bareHost(host).toLowerCase()
  return bare === 'localhost' || bare === '::1' || (isIPv4(bare) && bare.startsWith('127.'))
}

/**
 * Where this machine reaches a server listening on `host`: localhost when it listens on every address
 * or on loopback; else only at that address (a server on one LAN address refuses localhost).
 */
export const localUrl = (host: string, port: number) => `http://${isWildcardHost(host) || isLoopbackHost(host) ? 'localhost' : urlHost(host)}:${port}`

export function lanAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flat()
    .filter((a) => a && a.family === 'IPv4' && !a.internal)
    .map((a) => a!.address)
}
