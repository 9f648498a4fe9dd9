import type { StillAdmits } from '../../kernel/auth/macro'
import type { Server } from 'bun'
import { and, desc, eq, gt, lte, max, ne, sql, type Placeholder } from 'drizzle-orm'
import type { StoreCtx } from '../../kernel/auth/kinds'
import { isoTime } from '../../kernel/clock'
import { readTransaction, writeTransaction, type Db, type Sql } from '../../kernel/db/database'
import { withParams } from '../../kernel/db/prepared'
import type { Deps } from '../../kernel/deps'
import { extraTokens } from '../../kernel/auth/rate-limiter'
import { AppError } from '../../kernel/errors'
import { sseComment, sseEvent, sseResponse } from '../../kernel/http/sse'
import { outboxEvents } from '../../kernel/tables'
import { eventBody, newSigningSecret } from './signature'
import { LISTEN_ROW_URL, webhookEndpoints } from './tables'

// `storefront listen`: a store's events sent over a Server-Sent Events stream that the student's own
// machine opens, so that an app on a laptop gets them without a certificate, a firewall rule or a fixed
// address. The stream reads the outbox (kernel/outbox.ts) itself, with a cursor: events are read from
// the table when the reader is ready for them, so a slow reader holds back only its own stream and the
// server keeps nothing queued for it, and a reconnection with Last-Event-ID is the same read from an
// older place. docs/webhooks.md, "Listening from a laptop".

/** Open listen streams per store (a student's laptop, a classmate's, a restart whose old stream the server has not noticed yet). */
export const MAX_LISTENERS = 3
/** A reconnection is sent at most this many of the events it missed: the newest ones, after a `gap` message. */
export const MAX_REPLAY = 1000
/**
 * How far back a reconnection looks for them: the store's newest events of every type. Finding where a
 * stream starts walks these; with no bound, a stream asking for a rare type walked the store's whole
 * history on every connection (47,000 events: 61 ms), and a loop of reconnections held a core.
 */
export const REPLAY_WINDOW = 5 * MAX_REPLAY
/** A comment line this often keeps proxies, and the client's own check for a dead connection, from closing a quiet stream. */
export const LISTEN_HEARTBEAT_MS = 15_000
/** Events read from the table at a time, when the reader has room for them. */
const BATCH = 100
/** The stream asks for more events while fewer than this many bytes wait to be read. */
const BUFFERED = 64 * 1024

/** The Last-Event-ID that means "before the store's first event": a ready message says it when the store has none yet. */
export const BEFORE_FIRST_EVENT = '0'
const EVENT_ID = /^evt_[0-9a-z]{1,64}$/


/** One open stream, as GET /v1/webhooks/listeners shows it. */
interface Listener {
  connectedAt: number
  events: string[]
  credential: 'secret' | 'student'
  rm: string | null
  forwarded: number
}

interface ListenRequest {
  events: string[]
  lastEventId: string | null
  request: Request
  server: Server<unknown> | null
  /** Asked before each read: a key revoked or a session ended while the stream is open ends it. */
  stillAdmits: StillAdmits
}

/** A listener's event names as the queries take them, made once per stream: their JSON list, or undefined for `*`. */
type TypesFilter = string | undefined
const typesOf = (types: string[]): TypesFilter => (types.includes('*') ? undefined : JSON.stringify(types))

/**
 * Events of one store after a place in the outbox, in the order they were written: `seq`, which follows
 * commit order and is never given twice (kernel/tables.ts), so deleting the newest events (a store reset,
 * retention) cannot put later ones behind an open stream's place.
 */
function queries(db: Db) {
  const seq = outboxEvents.seq
  const p = sql.placeholder
  /** The store's events but pings, of the types whose JSON list `types` holds, or of every type when it is undefined. */
  const ofStore = (storeId: string | Placeholder, types: TypesFilter | Placeholder) =>
    and(
      eq(outboxEvents.storeId, storeId),
      ne(outboxEvents.type, 'ping'),
      types === undefined ? undefined : sql`${outboxEvents.type} in (select value from json_each(${types}))`,
    )
  // What a stream runs each time it wakes, prepared once: drizzle builds a statement's SQL text on every
  // call otherwise, which made a wake's read about four times as costly (bench/README.md).
  const end = db.select({ seq: max(seq) }).from(outboxEvents).prepare()
  const readOf = (types: Placeholder | undefined) =>
    db
      .select({ seq, id: outboxEvents.id, type: outboxEvents.type, createdAt: outboxEvents.createdAt, data: outboxEvents.data })
      .from(outboxEvents)
      .where(and(ofStore(p('storeId'), types), gt(seq, p('after')), lte(seq, p('upTo'))))
      .orderBy(seq)
      .limit(BATCH)
      .prepare()
  type Between = { storeId: string; after: number; upTo: number }
  const readAll = withParams<Between>()(readOf(undefined))
  const readSome = withParams<Between & { types: string }>()(readOf(p('types')))
  return {
    /** The last place written to, over every store: the live stream starts there. */
    end: () => end.get()?.seq ?? 0,
    placeOf: (storeId: string, id: string) => db.select({ seq }).from(outboxEvents).where(and(eq(outboxEvents.id, id), eq(outboxEvents.storeId, storeId))).get()?.seq,
    /** The store's newest event (of any type): where a new stream starts, as an id. */
    newest: (storeId: string) => db.select({ id: outboxEvents.id }).from(outboxEvents).where(eq(outboxEvents.storeId, storeId)).orderBy(desc(seq)).limit(1).get()?.id,
    /** The event just before the store's newest REPLAY_WINDOW (of every type) after `after`, when there are more than that. */
    windowStart: (storeId: string, after: number) =>
      db.select({ seq, id: outboxEvents.id }).from(outboxEvents).where(and(ofStore(storeId, undefined), gt(seq, after))).orderBy(desc(seq)).limit(1).offset(REPLAY_WINDOW).get(),
    /** The event just before the newest MAX_REPLAY after `after`, when there are more than that. */
    replayStart: (storeId: string, types: TypesFilter, after: number) =>
      db.select({ seq, id: outboxEvents.id }).from(outboxEvents).where(and(ofStore(storeId, types), gt(seq, after))).orderBy(desc(seq)).limit(1).offset(MAX_REPLAY).get(),
    countBetween: (storeId: string, types: TypesFilter, after: number, upTo: number) =>
      db.select({ n: sql<number>`count(*)` }).from(outboxEvents).where(and(ofStore(storeId, types), gt(seq, after), lte(seq, upTo))).get()!.n,
    /** The store's next events of `types` after `after`, up to `upTo`, at most BATCH. */
    read: (storeId: string, types: TypesFilter, after: number, upTo: number) =>
      types === undefined ? readAll.all({ storeId, after, upTo }) : readSome.all({ storeId, types, after, upTo }),
  }
}

/**
 * The store's listen secret, `whsec_…`: made on first use and kept (tables.ts, LISTEN_ROW_URL), so a
 * receiver configured with it keeps working across connections and server restarts. Its row's id is
 * derived from the store's, so two first connections at once cannot make two.
 */
export function listenSecret(deps: Deps, storeId: string): string {
  const id = `whk_listen_${storeId}`
  const read = (db: Sql) => db.select({ secret: webhookEndpoints.secret }).from(webhookEndpoints).where(eq(webhookEndpoints.id, id)).get()?.secret
  return (
    read(deps.db) ??
    writeTransaction(deps.db, (tx) => {
      tx.insert(webhookEndpoints)
        .values({ id, storeId, url: LISTEN_ROW_URL, events: [], description: null, secret: newSigningSecret(), createdAt: deps.clock.now() })
        .onConflictDoNothing()
        .run()
      return read(tx)!
    })
  )
}

/**
 * The open listen streams, per store, and what wakes them: the outbox tells of new events once per turn
 * of the event loop that emitted some, and which stores emitted them (kernel/outbox.ts). Only those
 * stores' streams wake and read, so one store's orders cost the others' streams nothing; with no
 * stream open it costs nothing more.
 */
export class ListenHub {
  private streams = new Map<string, Map<Listener, () => void>>()
  /** Per store, its streams waiting for its next event. */
  private waiting = new Map<string, Set<() => void>>()
  private q: ReturnType<typeof queries>
  /** How many times each store's streams read the outbox, for tests. */
  readonly reads = new Map<string, number>()

  constructor(private deps: Deps) {
    this.q = queries(deps.db)
    deps.outbox.onEmit((stores) => this.wake(stores))
  }

  /** The store's open streams, oldest first. */
  list(storeId: string) {
    const data = [...(this.streams.get(storeId)?.keys() ?? [])].map((l) => ({ ...l, connectedAt: isoTime(l.connectedAt) }))
    return { data, limit: MAX_LISTENERS }
  }

  /** Ends every stream: the server's graceful stop waits for open responses. */
  stop() {
    for (const store of this.streams.values()) for (const end of [...store.values()]) end()
  }

  private wake(stores: ReadonlySet<string>) {
    for (const storeId of stores) {
      const waiting = this.waiting.get(storeId)
      if (!waiting) continue
      this.waiting.delete(storeId)
      for (const resolve of waiting) resolve()
    }
  }

  /** Settles with 'woken' at the store's next event, 'quiet' after `ms` without one, or 'ended' when cancelled. */
  private nextWake(storeId: string, ms: number): { promise: Promise<'woken' | 'quiet' | 'ended'>; cancel: () => void } {
    let settle!: (why: 'woken' | 'quiet' | 'ended') => void
    const promise = new Promise<'woken' | 'quiet' | 'ended'>((resolve) => (settle = resolve))
    const woken = () => finish('woken')
    const finish = (why: 'woken' | 'quiet' | 'ended') => {
      clearTimeout(timer)
      const waiting = this.waiting.get(storeId)
      waiting?.delete(woken)
      if (waiting?.size === 0) this.waiting.delete(storeId)
      settle(why)
    }
    const timer = setTimeout(() => finish('quiet'), ms)
    timer.unref?.()
    const waiting = this.waiting.get(storeId)
    if (waiting) waiting.add(woken)
    else this.waiting.set(storeId, new Set([woken]))
    return { promise, cancel: () => finish('ended') }
  }

  /**
   * Opens a stream: a `ready` message with the secret, whose id is where the stream starts; then, after
   * Last-Event-ID, the events missed (at most MAX_REPLAY, the newest, after a `gap` message saying how
   * many older ones were skipped), then each new event as it is written. Takes a place among the
   * store's MAX_LISTENERS before anything is sent, so one too many is a 409.
   */
  open(ctx: StoreCtx, input: ListenRequest): Response {
    const { storeId } = ctx
    const store = this.streams.get(storeId) ?? new Map<Listener, () => void>()
    if (store.size >= MAX_LISTENERS) {
      throw new AppError(
        'LIMIT_REACHED',
        `This store already has ${MAX_LISTENERS} listen streams open (GET /v1/webhooks/listeners shows them). Stop a storefront listen you no longer use, then try again; a stream whose connection was cut holds its place until the server notices, at its next heartbeat.`,
        [{ limit: MAX_LISTENERS, current: store.size }],
      )
    }
    if (input.lastEventId !== null && input.lastEventId !== BEFORE_FIRST_EVENT && !EVENT_ID.test(input.lastEventId)) {
      throw new AppError(
        'VALIDATION_ERROR',
        `Last-Event-ID must be the id of the last event received (evt_...), or ${BEFORE_FIRST_EVENT} when the ready message said so; leave it out to receive new events only.`,
        [{ path: 'Last-Event-ID', message: 'not an event id' }],
      )
    }
    const secret = listenSecret(this.deps, storeId)
    const { events } = input
    const types = typesOf(events)
    const start = readTransaction(this.deps.db, () => ({ ...this.startOf(storeId, types, input.lastEventId), replayEnd: this.q.end() }))
    let cursor = start.after
    // The events missed, sent after Last-Event-ID, are one answer of up to MAX_REPLAY events: charged to
    // the store's rate limit as a JSON answer of their size is (kernel/auth/rate-limiter.ts), once the
    // server has read them all out for the stream, or what it had read out when the stream ends, so
    // that a loop of reconnections cannot replay the window fifty times a second.
    let replayed = input.lastEventId === null ? undefined : 0
    const chargeReplay = () => {
      const tokens = replayed === undefined ? 0 : extraTokens(replayed)
      if (tokens > 0) this.deps.limiter.charge(storeId, tokens, replayed!, {}, true)
      replayed = undefined
    }

    const actor = ctx.actor
    const listener: Listener = {
      connectedAt: this.deps.clock.now(),
      events,
      credential: actor.type === 'student' ? 'student' : 'secret',
      rm: actor.type === 'student' || actor.type === 'secretKey' ? actor.rm : null,
      forwarded: 0,
    }
    let open = true
    let controller!: ReadableStreamDefaultController<Uint8Array>
    let pending: { cancel: () => void } | undefined
    const end = (closeStream: boolean) => {
      if (!open) return
      open = false
      chargeReplay()
      store.delete(listener)
      if (store.size === 0) this.streams.delete(storeId)
      pending?.cancel()
      if (closeStream) {
        try {
          controller.close()
        } catch {
          // the reader is gone already
        }
      }
    }
    store.set(listener, () => end(true))
    this.streams.set(storeId, store)

    const body = new ReadableStream<Uint8Array>(
      {
        start: (c) => {
          controller = c
          c.enqueue(sseEvent('ready', { signingSecret: secret, events }, start.id))
          if (start.gap) c.enqueue(sseEvent('gap', { message: start.gap }))
        },
        pull: async (c) => {
          while (open) {
            // Its credential may have ended since the last read (a revoked key, a password change): the
            // stream ends too, and storefront listen, reconnecting, is told why by the 401.
            if (!input.stillAdmits(input.request)) return end(true)
            this.reads.set(storeId, (this.reads.get(storeId) ?? 0) + 1)
            const { rows, upTo } = readTransaction(this.deps.db, () => {
              const upTo = this.q.end()
              return { rows: this.q.read(storeId, types, cursor, upTo), upTo }
            })
            for (const e of rows) {
              const chunk = sseEvent('webhook', { type: e.type, body: eventBody(e) }, e.id)
              if (replayed !== undefined && e.seq <= start.replayEnd) replayed += chunk.byteLength
              c.enqueue(chunk)
            }
            listener.forwarded += rows.length
            cursor = rows.length === BATCH ? rows.at(-1)!.seq : upTo
            if (cursor >= start.replayEnd) chargeReplay()
            if (rows.length > 0) return
            const wait = this.nextWake(storeId, LISTEN_HEARTBEAT_MS)
            pending = wait
            const why = await wait.promise
            pending = undefined
            if (why === 'quiet' && open) return void c.enqueue(sseComment('heartbeat'))
          }
        },
        cancel: () => end(false),
      },
      { highWaterMark: BUFFERED, size: (chunk) => chunk?.byteLength ?? 0 },
    )
    return sseResponse(body, input.request, input.server, () => end(false))
  }

  /**
   * Where a stream starts: `after`, a place in the outbox (events after it are sent), and `id`, the same
   * place as an event id for the ready message, so that a client reconnecting with the last id it saw
   * misses nothing, even when it saw no event yet.
   */
  private startOf(storeId: string, types: TypesFilter, lastEventId: string | null): { after: number; id: string; gap?: string } {
    const live = () => ({ after: this.q.end(), id: this.q.newest(storeId) ?? BEFORE_FIRST_EVENT })
    if (lastEventId === null) return live()
    const after = lastEventId === BEFORE_FIRST_EVENT ? 0 : this.q.placeOf(storeId, lastEventId)
    if (after === undefined) {
      return {
        ...live(),
        gap: `The event ${lastEventId} is not among this store's events (they are kept for the server's RETENTION_DAYS, and a restored backup holds only those written before it was taken), so the events missed since cannot be sent; new events follow. GET /v1/store/orders shows where your orders stand.`,
      }
    }
    // Only the store's newest REPLAY_WINDOW events are looked at: what came before them is skipped, uncounted.
    const windowStart = this.q.windowStart(storeId, after)
    const from = windowStart?.seq ?? after
    const skipFrom = this.q.replayStart(storeId, types, from)
    const start = skipFrom ?? windowStart
    if (!start) return { after, id: lastEventId }
    // Past the window nothing is counted; within it, the skipped ones are the stream's types before its start.
    // A stream of some types only cannot tell whether the events past the window held any of them.
    const rule = `a reconnection is sent at most the newest ${MAX_REPLAY} of the events it missed, from the store's newest ${REPLAY_WINDOW} events`
    const skipped = !windowStart
      ? `${this.q.countBetween(storeId, types, from, start.seq)} older events missed since ${lastEventId} were skipped: ${rule}.`
      : types === undefined
        ? `Older events missed since ${lastEventId} were skipped: ${rule}.`
        : `The store wrote more than ${REPLAY_WINDOW} events since ${lastEventId}, and ${rule}: if events of this stream's types were among the older ones, they were skipped.`
    return { after: start.seq, id: start.id, gap: `${skipped} GET /v1/store/orders shows where your orders stand.` }
  }
}
