import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AnyElysia } from 'elysia'
import { createApp } from '../../src/app'
import { createDeps } from '../../src/wiring'
import { loadConfig, type RawSettings } from '../../src/config'
import { ManualClock } from '../../src/kernel/clock'
import { argon2Passwords, type Passwords } from '../../src/kernel/auth/passwords'
import { openDatabase, type OpenDatabase } from '../../src/kernel/db/open'
import { migrate } from '../../src/kernel/db/migrate'
import { systemIds } from '../../src/kernel/ids'
import type { Lifecycle } from '../../src/kernel/lifecycle'
import { memoryLog } from '../../src/kernel/log'
import { tempDir } from './temp'

export const ADMIN_TOKEN = 'adm_test_token_0123456789'

const open: { database: OpenDatabase; dir: string; lifecycle: Lifecycle }[] = []

/**
 * argon2id at its smallest cost (a hash in well under a millisecond, not about 50 ms), for tests that are
 * not about password cost; pass `passwords: argon2Passwords()` for the server's real cost.
 */
/** argon2 at the least cost it takes: a test's logins cost microseconds, not tens of milliseconds. */
export const CHEAP_PASSWORD_COST = { memoryCost: 8, timeCost: 1 }
const cheapPasswords = () => argon2Passwords(CHEAP_PASSWORD_COST)

let migrated: string | undefined

/**
 * A copy of a database migrated once per test process: migrating afresh was most of what making a
 * test app cost (bench/README.md, "The test suite").
 */
function migratedDatabase(file: string) {
  if (!migrated || !existsSync(migrated)) {
    const template = join(tempDir('migrated'), 'storefront.db')
    const database = openDatabase(template)
    migrate(database.db)
    database.close()
    migrated = template
  }
  copyFileSync(migrated, file)
  return openDatabase(file)
}

/** A temp data dir with a migrated database, removed by cleanupTestApps (test/setup.ts). */
export function createTestDeps(settings: RawSettings = {}, passwords: Passwords = cheapPasswords()) {
  const dir = mkdtempSync(join(tmpdir(), 'storefront-test-'))
  const config = loadConfig({ dataDir: dir, ...settings }, {})
  const database = migratedDatabase(join(dir, 'storefront.db'))
  const clock = new ManualClock()
  const log = memoryLog()
  const deps = createDeps(config, database, { clock, ids: systemIds, log, adminToken: ADMIN_TOKEN, publicUrl: 'http://localhost:3000', passwords })
  // The call counter's flush every second runs on real time, not the test's clock, so it would land in
  // whatever a test is watching. In a test the counts reach the database when something flushes them:
  // the routes that read them, `deps.activity.flush()`, or the lifecycle's stop.
  deps.activity.stop()
  open.push({ database, dir, lifecycle: deps.lifecycle })
  return { deps, clock, log, dir, database }
}

/** The real app on a fresh temp database, plus tiny helpers to call it through app.handle. */
export function createTestApp(options: { settings?: RawSettings; extraRoutes?: AnyElysia; passwords?: Passwords } = {}) {
  const t = createTestDeps(options.settings, options.passwords)
  const app = createApp(t.deps, options.extraRoutes)
  return { ...t, app, call: caller(app) }
}

/**
 * `t.call` with the clock moved 10 s before each call: a set-up made at this pace stays under any rate
 * limit, and the buckets are full again when the test starts.
 */
export const calmly =
  (t: { call: ReturnType<typeof caller>; clock: ManualClock }): ReturnType<typeof caller> =>
  (method, path, options) => {
    t.clock.advance(10_000)
    return t.call(method, path, options)
  }

/** The test header that stands for the address a call comes from (see clientAddressesFromHeader). */
export const CLIENT_ADDRESS_HEADER = 'x-test-client-address'

/**
 * Gives `app` a stand-in for Bun's server that answers requestIP from the CLIENT_ADDRESS_HEADER of each
 * call ('local' without it): an in-process call has no connection, so no peer address of its own. The
 * app reads the address exactly as it does from a listening server. Its connections have no idle
 * timeout to change (a stream asks for none).
 */
export function clientAddressesFromHeader(app: { server: unknown }) {
  const requestIP = (request: Request) => ({ address: request.headers.get(CLIENT_ADDRESS_HEADER) ?? 'local', family: 'IPv4', port: 40000 })
  app.server = { requestIP, timeout: () => {} }
}

export interface CallOptions {
  body?: unknown
  /** Sent as is (no JSON encoding, no content type added). */
  raw?: RequestInit['body']
  headers?: Record<string, string>
}

export interface CallResult<T = any> {
  status: number
  headers: Headers
  body: T
  text: string
}

/**
 * Calls `app` as a client of `origin` would: by default the address the test deps' public URL names,
 * since answers' file URLs start with the origin a request was sent to.
 */
export const caller =
  (app: { handle(request: Request): Promise<Response> }, origin = 'http://localhost:3000') =>
  async <T = any>(method: string, path: string, options: CallOptions = {}): Promise<CallResult<T>> => {
    const headers: Record<string, string> = { ...options.headers }
    let body: RequestInit['body'] = options.raw
    if (options.body !== undefined) {
      body = JSON.stringify(options.body)
      headers['content-type'] ??= 'application/json'
    }
    const response = await app.handle(new Request(`${origin}${path}`, { method, headers, body }))
    // A live stream (Server-Sent Events) never ends by itself: the test client takes its status and headers and hangs up.
    if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
      await response.body?.cancel()
      return { status: response.status, headers: response.headers, body: undefined as T, text: '' }
    }
    const text = await response.text()
    let parsed: unknown
    try {
      parsed = text ? JSON.parse(text) : undefined
    } catch {
      parsed = undefined
    }
    return { status: response.status, headers: response.headers, body: parsed as T, text }
  }

export async function cleanupTestApps() {
  for (const { database, dir, lifecycle } of open.splice(0)) {
    await lifecycle.stop()
    try {
      database.close()
    } catch {
      // already closed by the test
    }
    rmSync(dir, { recursive: true, force: true })
  }
}

/** A kept answer's JSON (text or UTF-8 bytes, kernel/http/json-response.ts) as text. */
export const bodyText = (body: string | Uint8Array) => (typeof body === 'string' ? body : new TextDecoder().decode(body))
