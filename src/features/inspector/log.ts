import { isoTime, type Clock } from '../../kernel/clock'
import type { Deps } from '../../kernel/deps'
import { AppError, clip } from '../../kernel/errors'
import { instantOfQuery } from '../../kernel/instant-query'
import type { InspectedCall, RequestInspector } from '../../kernel/http/inspection'
import { targetOf } from '../../kernel/http/target'
import { cut, cutCopy } from './cut'
import { CLIENT_HEADER, clientOf, type RequestDetail, type RequestEntry, type RequestQuery } from './model'
import { Redactor } from './redact'
import {
  BODY_LIMIT,
  CAPACITY,
  HEADER_LIMIT,
  MAX_STREAMS,
  MAX_TEACHER_STREAMS,
  MESSAGE_LIMIT,
  MINUTE,
  realWake,
  SHOP_FRONT_CAPACITY,
  StoreLog,
  storedUrl,
  TARGET_LIMIT,
  type AnswerError,
  type Failure,
  type Kept,
  type KeptBody,
  type Repeats,
  type Wake,
} from './store-log'

// The bounds the routes state and the tests check, where the log is.
export { BODY_LIMIT, CAPACITY, DETAIL_BUDGET, HEADER_LIMIT, MAX_STREAMS, MAX_TEACHER_STREAMS, SHOP_FRONT_CAPACITY, STREAM_UPDATE_MS, type Wake } from './store-log'

// Each store's recent calls, in memory: what a student opens to see what their app sent and got back.
// The bounds are per store, so one store's flood pushes out only its own entries; within a store, the
// calls of its shop front (the publishable key, which anyone can copy) have a ring of their own, and a
// flood of refusals takes one entry per source and minute. docs/inspector.md.

/** The app's deps with the request log its routes read. */
export type InspectorDeps = Deps & { requestLog: RequestLog }

/** Whose streams a stream takes a place among. */
export type StreamSlots = 'store' | 'teacher'

export class RequestLog implements RequestInspector {
  private stores = new Map<string, StoreLog>()
  /** How each open live stream is ended (endStreams). */
  private streamEnds = new Set<() => void>()
  private readonly redact: Redactor

  /**
   * `adminToken`: the teacher's token, hidden wherever a call shows it like any credential. `wake`: the
   * timers that send a counted entry's last count to the live streams (real ones unless a test runs them by hand).
   */
  constructor(
    private clock: Clock,
    adminToken = '',
    private readonly wake: Wake = realWake,
  ) {
    this.redact = new Redactor(adminToken)
  }

  private of(storeId: string): StoreLog {
    let log = this.stores.get(storeId)
    if (!log) this.stores.set(storeId, (log = new StoreLog((k) => this.entryOf(k), this.clock, this.wake)))
    return log
  }

  /** Stops the timers of every store (the server stopping). */
  stop() {
    for (const log of this.stores.values()) log.stop()
  }

  record(call: InspectedCall) {
    const log = this.of(call.store.storeId)
    const at = this.clock.now()
    // A passing call makes one object, the entry; the rest is for failures.
    let error: AnswerError | null = null
    let failure: Failure | undefined
    let repeats: Repeats | undefined
    if (call.status >= 400) {
      const envelope = envelopeOf(call.answerBody)
      const code = envelope ? cut(envelope.code, 64) : 'HTTP'
      if (call.source !== undefined) {
        const key = `${Math.floor(at / MINUTE)} ${call.status} ${code} ${call.source}`
        // A repeat of a flood only counts into its entry: nothing of it is redacted or kept.
        if (log.repeat(call.store.shopFront, key, call.requestId, at)) return
        repeats = { key, count: 1, lastAt: at, lastId: call.requestId, sentAt: at, sentCount: 1 }
      }
      // The values hidden from the sent body are hidden from the answer too, which may quote them.
      const hidden: string[] = []
      const sent = this.body(call.sentBody, hidden)
      const message = envelope ? this.redact.echoes(this.redact.text(cut(envelope.message, MESSAGE_LIMIT)), hidden) : `The server answered ${call.status}.`
      error = { code, message }
      failure = this.failure(call, sent, hidden)
    }
    const item: Kept = {
      id: call.requestId,
      at,
      method: call.request.method,
      url: storedUrl(call.request.url),
      status: call.status,
      durationMs: call.durationMs,
      credential: call.store.credential,
      rm: call.store.rm,
      client: clientOf(call.request.headers.get(CLIENT_HEADER)),
      // Browsers send Origin with a page's calls; a server's fetch does not. Read for the secret key only.
      fromPage: call.store.credential === 'secret' ? originOf(call.request) : null,
      routeAuth: call.routeAuth,
      error,
      failure,
      repeats,
      seq: log.seq++,
    }
    log.add(item, call.store.shopFront)
  }

  /** `sent`: the request's body as kept; `hidden`, the values it lost. */
  private failure(call: InspectedCall, sent: KeptBody, hidden: readonly string[]): Failure {
    const requestHeaders = this.redact.headers(call.request.headers, HEADER_LIMIT)
    const answer = this.body(call.answerBody)
    if (answer.text !== null) answer.text = this.redact.echoes(answer.text, hidden)
    const size = (sent.text?.length ?? 0) + (answer.text?.length ?? 0) + JSON.stringify(requestHeaders).length
    return { requestHeaders, requestBody: sent.text, responseBody: answer.text, requestBodyTruncated: sent.truncated, responseBodyTruncated: answer.truncated, size }
  }

  /** A body as kept: cut, redacted; the values it lost go to `hidden`. */
  private body(text: string | undefined, hidden?: string[]): KeptBody {
    if (text === undefined || text === '') return { text: null, truncated: false }
    const kept = cutCopy(text, BODY_LIMIT)
    return { text: this.redact.body(kept.text, hidden), truncated: kept.truncated }
  }

  /** The entry a client reads. */
  private entryOf(k: Kept): RequestEntry {
    const { path, query } = this.shownTarget(k)
    return {
      id: k.id,
      createdAt: isoTime(k.at),
      method: k.method,
      path,
      query,
      status: k.status,
      durationMs: Math.round(k.durationMs),
      credential: k.credential,
      rm: k.rm,
      client: k.client,
      fromPage: k.fromPage,
      errorCode: k.error?.code ?? null,
      errorMessage: k.error?.message ?? null,
      count: k.repeats?.count ?? 1,
      lastCreatedAt: isoTime(k.repeats?.lastAt ?? k.at),
    }
  }

  /** Path and query as shown: cut, then redacted, once in the entry's life (Kept.shownPath, Kept.shownQuery). */
  private shownTarget(k: Kept) {
    if (k.shownQuery === undefined) {
      const { query } = targetOf(k.url)
      k.shownQuery = query === '' ? '' : this.redact.query(clip(query, TARGET_LIMIT))
    }
    return { path: this.shownPath(k), query: k.shownQuery }
  }

  /** The entry's path as shown, redacted once in the entry's life (Kept.shownPath). */
  private shownPath(k: Kept) {
    k.shownPath ??= this.redact.text(clip(targetOf(k.url).path, TARGET_LIMIT))
    return k.shownPath
  }

  private matcher(query: RequestQuery): (item: Kept) => boolean {
    const { status, method, path, rm, client } = query
    const since = query.since === undefined ? undefined : instantOfQuery(query.since, this.clock.timeZone)
    const cls = status?.endsWith('xx') ? status[0] : undefined
    return (k) =>
      (status === undefined || (cls ? String(k.status)[0] === cls : String(k.status) === status)) &&
      (method === undefined || k.method === method) &&
      // The path as shown: a prefix filter on the raw one would tell, a character at a time, what redaction hides.
      (path === undefined || this.shownPath(k).startsWith(path)) &&
      (rm === undefined || k.rm === rm) &&
      (client === undefined || k.client === client) &&
      (since === undefined || (k.repeats?.lastAt ?? k.at) >= since)
  }

  /** A page of the store's calls, newest first. */
  list(storeId: string, query: RequestQuery) {
    const log = this.stores.get(storeId)
    const matches = log ? [...log.newest()].filter(this.matcher(query)) : []
    const start = (query.page - 1) * query.pageSize
    return { data: matches.slice(start, start + query.pageSize).map((k) => this.entryOf(k)), page: query.page, pageSize: query.pageSize, total: matches.length }
  }

  /**
   * One call with its details: the newest entry with this id (a counted entry's first call's, or its
   * newest's). `listedAt` is the list route the caller reads (the store's own, or the teacher's of the group).
   */
  find(storeId: string, requestId: string, listedAt = 'GET /v1/store/requests'): RequestDetail {
    const log = this.stores.get(storeId)
    for (const item of log?.newest() ?? []) {
      if (item.id !== requestId && item.repeats?.lastId !== requestId) continue
      const f = item.failure
      return {
        ...this.entryOf(item),
        requestHeaders: f?.requestHeaders ?? {},
        requestBody: f?.requestBody ?? null,
        responseBody: f?.responseBody ?? null,
        requestBodyTruncated: f?.requestBodyTruncated ?? false,
        responseBodyTruncated: f?.responseBodyTruncated ?? false,
        routeAuth: item.routeAuth === undefined ? null : item.routeAuth === 'studentSelf' ? 'student' : item.routeAuth,
        bodiesDropped: item.error !== null && !f,
      }
    }
    throw new AppError(
      'NOT_FOUND',
      `No request '${clip(requestId, 64)}' among this store's last ${CAPACITY} calls (and its shop front's last ${SHOP_FRONT_CAPACITY}). Request ids come from the X-Request-Id header of an answer; ${listedAt} lists the calls kept.`,
    )
  }

  /**
   * Calls `listener` with each new entry of the store (and a counted entry again as it grows) until the
   * returned function is called. The store's streams and the teacher's have places of their own.
   */
  subscribe(storeId: string, slots: StreamSlots, listener: (entry: RequestEntry) => void, end: () => void): () => void {
    const log = this.of(storeId)
    const listeners = slots === 'teacher' ? log.teacherListeners : log.listeners
    if (slots === 'teacher' && listeners.size >= MAX_TEACHER_STREAMS) {
      throw new AppError(
        'LIMIT_REACHED',
        `You already have ${MAX_TEACHER_STREAMS} live request streams of this group open. Close a tab showing this group's requests, then try again; the group's own streams do not take your places.`,
      )
    }
    if (slots === 'store' && listeners.size >= MAX_STREAMS) {
      throw new AppError(
        'LIMIT_REACHED',
        `This store already has ${MAX_STREAMS} live request streams open. Close a panel tab or a stream your app left open, then try again.`,
      )
    }
    listeners.add(listener)
    this.streamEnds.add(end)
    return () => {
      listeners.delete(listener)
      this.streamEnds.delete(end)
    }
  }

  /** Ends every live stream (the server is stopping). */
  endStreams() {
    for (const end of [...this.streamEnds]) end()
  }
}

/** The code and message of an answer that is the error envelope, as sent; undefined for any other answer. */
function envelopeOf(body: string | undefined): { code: string; message: string } | undefined {
  try {
    const { error } = JSON.parse(body ?? '') as { error?: { code?: unknown; message?: unknown } }
    if (typeof error?.code === 'string' && typeof error.message === 'string') return { code: error.code, message: error.message }
  } catch {
    // not the envelope
  }
  return undefined
}

/** The Origin header of a call, within ORIGIN_LIMIT, or null when none was sent. */
function originOf(request: Request): string | null {
  const origin = request.headers.get('origin')
  return origin === null ? null : clip(origin, ORIGIN_LIMIT)
}

const ORIGIN_LIMIT = 200
