import { PublicUrl } from './kernel/http/url-base'
import type { Config } from './config'
import { ActivityRecorder } from './features/activity'
import type { CatalogDeps } from './features/catalog'
import { RequestLog, type InspectorDeps } from './features/inspector'
import { Downloads, type MediaDeps, UploadsInFlight } from './features/media'
import { imagesOfProducts, productImageUsers } from './features/product-images'
import { reviewPhotoUsers } from './features/reviews'
import { idempotencyPruner, OrderExpiry, type OrdersDeps } from './features/orders'
import { hasSubscriber, ListenHub, WebhookDispatcher, webhookPruners, type WebhooksDeps } from './features/webhooks'
import { argon2Passwords, type Passwords } from './kernel/auth/passwords'
import { expiredSessionPruners } from './kernel/auth/expired-sessions'
import { RateLimiter } from './kernel/auth/rate-limiter'
import type { Clock } from './kernel/clock'
import { ChangeStamp } from './kernel/db/change-stamp'
import type { OpenDatabase } from './kernel/db/open'
import type { Deps } from './kernel/deps'
import type { Ids } from './kernel/ids'
import { Lifecycle } from './kernel/lifecycle'
import type { Log } from './kernel/log'
import { createOutbox } from './kernel/outbox'
import { Retention } from './kernel/retention'
import { VERSION } from './version'

/** The kernel's deps and the services features add to them: what the app, the server and the tests hold. */
export type AppDeps = OrdersDeps & WebhooksDeps & MediaDeps & InspectorDeps & CatalogDeps

/** Wires the shared services once; the server, the teacher's commands (cli/jobs.ts) and the tests all build their deps here. */
export function createDeps(
  config: Config,
  database: OpenDatabase,
  options: { clock: Clock; ids: Ids; log: Log; adminToken: string; publicUrl: string; passwords?: Passwords },
): AppDeps {
  const { clock, ids, log } = options
  const { db } = database
  const lifecycle = new Lifecycle()
  const activity = new ActivityRecorder(db, clock, log)
  activity.start(lifecycle)
  const requestLog = new RequestLog(clock, options.adminToken)
  lifecycle.onStop(() => requestLog.stop())
  lifecycle.onEndStreams(() => requestLog.endStreams())
  const retention = new Retention({ clock, log, config }, [...webhookPruners(db), ...expiredSessionPruners(db), idempotencyPruner(db)])
  const deps: Deps = {
    config,
    db,
    sqlite: database.sqlite,
    changes: new ChangeStamp(database.sqlite),
    clock,
    ids,
    log,
    // An event no endpoint subscribes to is written dispatched: the dispatcher never looks at it.
    outbox: createOutbox(ids, clock, hasSubscriber),
    lifecycle,
    activity,
    inspector: requestLog,
    limiter: new RateLimiter(clock, config.rateLimitRps, config.rateLimitBurst),
    passwords: options.passwords ?? argon2Passwords(),
    version: VERSION,
    startedAt: clock.now(),
    adminToken: options.adminToken,
    publicUrl: new PublicUrl(config.publicUrl, options.publicUrl),
    listenPort: config.port,
    retention,
  }
  // The dispatcher reads listenPort and publicUrl from this same object, which the server updates after listening.
  const webhooks = new WebhookDispatcher(deps)
  lifecycle.onStop(() => webhooks.stop())
  const listeners = new ListenHub(deps)
  lifecycle.onEndStreams(() => listeners.stop())
  const orderExpiry = new OrderExpiry(deps)
  lifecycle.onStop(() => orderExpiry.stop())
  lifecycle.onStop(() => retention.stop())
  return Object.assign(deps, { webhooks, listeners, orderExpiry, requestLog, mediaUsers: [productImageUsers, reviewPhotoUsers], uploads: new UploadsInFlight(), downloads: new Downloads(clock), productImages: imagesOfProducts })
}

/**
 * What the server runs besides answering requests: webhook delivery (which also fans out the events
 * each turn writes), order expiry and retention. The in-process benches start them too, so that what
 * they measure is what the server does (bench/system/in-process.ts). Each start is idempotent.
 *
 * Order expiry starts at once; the server starts it before it listens, since its first pass expires
 * what fell due while the server was stopped, so no answer shows such an order PENDING. Webhook
 * delivery and retention, which no answer waits for, may start a moment later (`after`): their first
 * passes take about 20 ms of a start (bench/README.md, Start-up), which the first requests then need
 * not wait for.
 */
export function startBackgroundWork(deps: AppDeps, after: (start: () => void) => void = (start) => start()) {
  deps.orderExpiry.start()
  after(() => {
    deps.webhooks.start()
    deps.retention.start()
  })
}
