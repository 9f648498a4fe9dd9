import { existsSync, rmSync } from 'node:fs'
import { createApp } from './app'
import { createDeps, startBackgroundWork } from './wiring'
import { serveJobs } from './cli/jobs'
import { sweepMediaFolder } from './features/media'
import { ConfigError, derivePublicUrl, isWildcardHost, lanAddresses, localUrl, urlHost, type Config } from './config'
import { resolveAdminToken } from './kernel/admin-token'
import { systemClock } from './kernel/clock'
import { openForServer, prepareDataDir, removePidFile, writePidFile } from './kernel/data-dir'
import { systemIds } from './kernel/ids'
import { consoleLog, type Log } from './kernel/log'
import { platform, removeTreeSync } from './kernel/platform'
import { VERSION } from './version'
import { pluralize } from './kernel/plural'

/** How long after listening webhook delivery and retention begin: the first requests are answered first (wiring.ts). */
const BACKGROUND_AFTER_MS = 250

/** Opens the data dir, migrates, listens, prints the banner, and stops cleanly on Ctrl-C, SIGTERM or the terminal closing. */
export async function serve(config: Config, log: Log = consoleLog) {
  // A folder this start makes (perhaps a mistyped --data) goes again if the start fails to listen.
  const madeNow = !existsSync(config.dataDir)
  const found = prepareDataDir(config.dataDir)
  if (found.staleWork.length) log.info(`removed the database copies of interrupted backups or restores: ${found.staleWork.join(', ')}`)
  if (found.notPrivate.length) {
    log.error(`could not make ${pluralize(found.notPrivate.length, 'file')} of the data folder readable by this user only, such as ${found.notPrivate[0]}; other users of this machine may read them (a file system without permissions, such as a FAT USB stick?)`)
  }
  const database = await openForServer(config.dataDir)
  // Checkpoints wait on the disk: a thread of their own keeps that wait off the requests.
  database.checkpointInBackground({ trouble: (message) => log.error(message) })
  const admin = resolveAdminToken(config.dataDir, config.adminToken)
  const deps = createDeps(config, database, {
    clock: systemClock,
    ids: systemIds,
    log,
    adminToken: admin.token,
    publicUrl: config.publicUrl ?? '',
  })
  const swept = await sweepMediaFolder(deps)
  if (swept.files > 0) log.info(`removed ${pluralize(swept.files, 'media file')} left by an interrupted upload or deletion`)
  if (swept.links > 0) log.info(`removed ${pluralize(swept.links, 'link')} from the media folder, without following them: media files are served from plain folders only`)
  const app = createApp(deps)
  // Before the first request: what fell due while the server was stopped is expired first (wiring.ts).
  deps.orderExpiry.start()
  try {
    // Bodies are limited by the routes themselves (1 MiB of JSON, 100 MiB a video), which answer with
    // the error envelope before reading what is too large; Bun's own limit is set out of their way: with
    // any number there, a Content-Length past it got Bun's bare 413, without the envelope or a request id.
    app.listen({ hostname: config.host, port: config.port, maxRequestBodySize: Number.POSITIVE_INFINITY })
  } catch (e) {
    deps.orderExpiry.stop()
    database.close()
    // A token made now was never shown (the banner comes after listening): the next start makes and shows another.
    if (admin.source === 'generated') rmSync(admin.file, { force: true })
    if (madeNow) removeTreeSync(config.dataDir)
    throw listenRefused(config, e as NodeJS.ErrnoException)
  }
  const port = app.server!.port!
  // Names this server in the messages of a second server, of `restore` and of the teacher's commands,
  // which then ask it on its control socket (a pid alone may be a crash's, reused).
  writePidFile(config.dataDir)
  // The teacher's commands reach the database through this server while it runs (cli/jobs.ts).
  const jobs = await serveJobs({ deps, sqlite: database.sqlite, dataDir: config.dataDir })
  // Known only now when --port 0 asked for a free port.
  deps.listenPort = port
  deps.publicUrl.listening(derivePublicUrl(config, port))
  startBackgroundWork(deps, (start) => {
    const later = setTimeout(() => {
      start()
      // A lab machine left in UTC would end a Brazilian evening class's "today" at 21:00: the teacher sees
      // whose days these are. Not in the banner: reading the time zone loads the runtime's zone data (~10 ms).
      log.info(`days are counted in ${deps.clock.timeZone}, this machine's time zone (the TZ variable sets another): the board's today, per-day activity`)
    }, BACKGROUND_AFTER_MS)
    deps.lifecycle.onStop(() => clearTimeout(later))
  })

  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) {
      log.error(`second ${signal}: exiting without waiting`)
      process.exit(1)
    }
    stopping = true
    log.info(`${signal} received: finishing requests in flight, then stopping`)
    // Live streams never end by themselves, and the server's stop waits for every answer to end.
    deps.lifecycle.endStreams()
    await app.stop()
    jobs.stop()
    await deps.lifecycle.stop()
    const kept = database.close()
    if (kept) log.error(kept)
    removePidFile(config.dataDir)
    log.info('stopped cleanly')
    process.exit(0)
  }
  for (const signal of platform.stopSignals) process.on(signal, () => void stop(signal))
  // Last: the banner tells scripts and tests the server is ready, so everything is in place before it.
  printBanner(config, port, deps.publicUrl.for(), admin)
  return { app, deps, port }
}

function printBanner(config: Config, port: number, publicUrl: string, admin: ReturnType<typeof resolveAdminToken>) {
  const wildcard = isWildcardHost(config.host)
  const local = localUrl(config.host, port)
  const lan = wildcard ? lanAddresses().map((a) => `http://${a}:${port}`) : []
  const adminLine = {
    configured: `from --admin-token / ADMIN_TOKEN${admin.fileIgnored ? ` (not the one in ${admin.file}, which opens nothing while it is set)` : ''}`,
    file: `in ${admin.file}`,
    generated: `${admin.token}  (new; kept in ${admin.file}, shown only this once)`,
  }[admin.source]
  // Both widen what a student's webhook may reach, so the teacher sees them at every start.
  const webhookSwitches = [
    config.allowInsecureWebhooks && 'also http:// to the LAN (--allow-insecure-webhooks)',
    config.allowLoopbackWebhooks && 'also loopback, this machine (--allow-loopback-webhooks)',
  ].filter(Boolean)
  const lines = [
    `Storefront ${VERSION}`,
    `  listening    http://${wildcard ? '0.0.0.0' : urlHost(config.host)}:${port}`,
    ...(lan.length ? [`  students use ${lan.join('  ')}`] : []),
    `  docs         ${local}/docs`,
    `  panel        ${local}/panel`,
    config.publicUrl ? `  media URLs   ${publicUrl}/v1/files/...` : `  media URLs   on the address each request was sent to, e.g. ${local}/v1/files/...`,
    `  data dir     ${config.dataDir}`,
    `  admin token  ${adminLine}`,
    ...(webhookSwitches.length ? [`  webhooks     ${webhookSwitches.join('; ')}`] : []),
    '  stop with Ctrl-C',
  ]
  process.stdout.write(lines.join('\n') + '\n')
}

/** Why the server could not listen, blaming the setting at fault: the port, or a host that is not this machine's. */
function listenRefused(config: Config, e: NodeJS.ErrnoException): ConfigError {
  const where = `port ${config.port} on ${config.host}`
  if (e.code === 'EADDRINUSE') return new ConfigError(`--port / PORT: ${where} is already in use; pick another port`)
  if (e.code === 'EACCES') return new ConfigError(`--port / PORT: ${where} needs privileges this user does not have; pick a port above 1023`)
  // A name that does not resolve (ENOENT or EINVAL from Bun, as the resolver answers), or an address of another machine.
  if (e.code === 'ENOENT' || e.code === 'EINVAL' || e.code === 'EADDRNOTAVAIL' || e.code === 'ENOTFOUND') {
    return new ConfigError(`--host / HOST: cannot listen on ${config.host}, which is not an address of this machine (${e.code}); use 0.0.0.0 for every network of this machine, 127.0.0.1 for itself only, or one of its own addresses`)
  }
  return new ConfigError(`--port / PORT: ${where} cannot be used (${e.message}); pick another port`)
}
