import type { PublicUrl } from './http/url-base'
import type { Database } from 'bun:sqlite'
import type { Config } from '../config'
import type { CallRecorder } from './auth/gate'
import type { Passwords } from './auth/passwords'
import type { RateLimiter } from './auth/rate-limiter'
import type { Clock } from './clock'
import type { ChangeStamp } from './db/change-stamp'
import type { Db } from './db/database'
import type { RequestInspector } from './http/inspection'
import type { Ids } from './ids'
import type { Lifecycle } from './lifecycle'
import type { Log } from './log'
import type { Outbox } from './outbox'
import type { Retention } from './retention'

/**
 * What the kernel gives every feature, passed in (never imported as a singleton) so tests can swap it.
 * Services a feature adds for itself (the webhook dispatcher, order expiry, the users of media files)
 * are not here: the feature names them in its own deps type, and src/wiring.ts builds them.
 */
export interface Deps {
  config: Config
  db: Db
  sqlite: Database
  /** Whether anything in the database changed: hot reads kept in memory ask it (db/change-stamp.ts). */
  changes: ChangeStamp
  clock: Clock
  ids: Ids
  log: Log
  outbox: Outbox
  lifecycle: Lifecycle
  /** Counts authenticated calls per group and RM; flushed in batches (features/activity). */
  activity: CallRecorder & { flush(): void; stop(): void }
  /** Keeps each store's recent calls for its request inspector (features/inspector). */
  inspector: RequestInspector
  /** The per-store token bucket. */
  limiter: RateLimiter
  /** argon2id hashing and checking of passwords (auth/passwords.ts). */
  passwords: Passwords
  version: string
  /** When this process started (ms), for uptime. */
  startedAt: number
  /** The teacher's token for /v1/admin, configured or generated. */
  adminToken: string
  /** The server's public address: the base of the URLs handed to clients (media files), per request or without one. */
  publicUrl: PublicUrl
  /** The port actually listened on: config.port until the server knows it (`--port 0` picks one). */
  listenPort: number
  /** Prunes what RETENTION_DAYS lets go (kernel/retention.ts); started by the server, tests await tick(). */
  retention: Retention
}
