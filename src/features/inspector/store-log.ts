import type { Clock } from '../../kernel/clock'
import { pathStart } from '../../kernel/http/target'
import { copyOf, cut } from './cut'
import type { AuthKind } from '../../kernel/auth/kinds'
import type { Client, RequestEntry } from './model'

// One store's recent calls: two rings (the store's own calls, and its shop front's), the counting of a
// flood's refusals, and the live streams of both the store and the teacher. RequestLog (log.ts) keeps
// one per store and gives them their entries. docs/inspector.md.

/** Entries kept per store of the calls made with its secret key and its students' tokens: the newest this many. */
export const CAPACITY = 1000
/**
 * Entries kept per store of its shop front's calls (the publishable key, alone or with a customer's
 * token), apart from the others: that key sits in a shop page, where anyone can copy it.
 */
export const SHOP_FRONT_CAPACITY = 500
/** Each body (sent and answered) is kept up to this many characters. */
export const BODY_LIMIT = 8 * 1024
/** A store's failure details (headers and bodies) together stay under this many characters; the oldest go first. */
export const DETAIL_BUDGET = 512 * 1024
/** The same for the shop front's failures, apart. */
export const SHOP_FRONT_DETAIL_BUDGET = 256 * 1024
/** Path and query are shown up to this many characters each. */
export const TARGET_LIMIT = 512
/** Each request header's value is kept up to this many characters. */
export const HEADER_LIMIT = 1024
/** An error message is kept up to this many characters. */
export const MESSAGE_LIMIT = 1024
/** A URL is kept whole up to this length; a longer one is cut (storedUrl). */
export const URL_LIMIT = 256 + 2 * (TARGET_LIMIT + 1) + 1
/** Open live streams per store (the students' tabs, their app). */
export const MAX_STREAMS = 5
/** Open live streams of the teacher's per group, apart from the store's (the projector, the teacher's laptop, a reload). */
export const MAX_TEACHER_STREAMS = 3
/** Refusals from one source in one minute of the clock are one entry. */
export const MINUTE = 60_000
/** A counted entry that grows is sent again on the live streams at most this often (ms of the clock). */
export const STREAM_UPDATE_MS = 1000

/** An answer's error code and message, as the error envelope gave them. */
export interface AnswerError {
  code: string
  message: string
}

export interface Failure {
  requestHeaders: Record<string, string>
  requestBody: string | null
  responseBody: string | null
  requestBodyTruncated: boolean
  responseBodyTruncated: boolean
  size: number
}

/** A body as kept: cut at BODY_LIMIT and redacted; null for none. */
export interface KeptBody {
  text: string | null
  truncated: boolean
}

/** What a counted entry adds to its first call: how many calls it stands for, and the newest. */
export interface Repeats {
  /** Source, minute, status and error code: what a repeat must share to be counted here. */
  key: string
  count: number
  lastAt: number
  /** The newest call's request id: the entry is found by it too. */
  lastId: string
  /** When the live streams were last sent this entry, and the count they were sent. */
  sentAt: number
  sentCount: number
}

/**
 * A call as recorded: the raw fields only, each already within its bound. The answer's shape (times as
 * text, path and query redacted and cut) is made when the call is read, so that recording costs a call
 * that succeeds one object.
 */
export interface Kept {
  id: string
  at: number
  method: string
  /** request.url (within URL_LIMIT), split into path and query when read. */
  url: string
  status: number
  durationMs: number
  credential: RequestEntry['credential']
  rm: string | null
  client: Client
  /** For a call with the secret key: the Origin a browser sent with it (the key was in a page), else null. */
  fromPage: string | null
  /** For an answer >= 400: the credential kind of the route. */
  routeAuth: AuthKind | undefined
  /** For an answer >= 400; shown as errorCode and errorMessage. */
  error: AnswerError | null
  /** For an answer >= 400, until the store's detail budget lets it go. */
  failure: Failure | undefined
  /** For a refusal a flood repeats (InspectedCall.source). */
  repeats: Repeats | undefined
  /** The order of the store's calls, across its two rings. */
  seq: number
  /**
   * The path as shown (cut, redacted), made when first read and kept: a list filtered by path reads
   * every entry's, and redacting 1,500 long paths on each call held the server for a fifth of a second.
   */
  shownPath?: string
  /** The query as shown (cut, redacted), made when first read and kept, like the path: a page of 100 long queries took 8.5 ms to redact on every read. */
  shownQuery?: string
}

/**
 * request.url within URL_LIMIT: a longer one keeps its origin (cut at 256), and its path and query cut
 * one character past TARGET_LIMIT each, enough for the "…" that says they were cut when shown.
 */
export function storedUrl(url: string): string {
  if (url.length <= URL_LIMIT) return url
  const start = pathStart(url)
  if (start < 0) return cut(url, 256)
  const q = url.indexOf('?', start)
  const path = url.slice(start, q < 0 ? url.length : q).slice(0, TARGET_LIMIT + 1)
  const query = q < 0 ? '' : `?${url.slice(q + 1, q + 2 + TARGET_LIMIT)}`
  return copyOf(`${url.slice(0, Math.min(start, 256))}${path}${query}`)
}

/** A ring of entries with its own bounds: the newest `capacity` entries, failure details within `budget`. */
class Ring {
  /** `next` is where the next entry goes once it is full. */
  private readonly kept: Kept[] = []
  private next = 0
  /** The entries holding a failure's details, oldest first, and their total size. */
  private readonly detailed: Kept[] = []
  private detailSize = 0
  /** The counted entries still in the ring, by their key (so never more than the ring holds). */
  readonly counted = new Map<string, Kept>()

  constructor(
    private readonly capacity: number,
    private readonly budget: number,
  ) {}

  get size() {
    return this.kept.length
  }

  add(item: Kept) {
    if (this.kept.length < this.capacity) this.kept.push(item)
    else {
      const gone = this.kept[this.next]!
      if (gone.failure) this.drop(this.detailed.indexOf(gone))
      if (gone.repeats && this.counted.get(gone.repeats.key) === gone) this.counted.delete(gone.repeats.key)
      this.kept[this.next] = item
      this.next = (this.next + 1) % this.capacity
    }
    if (item.failure) {
      this.detailed.push(item)
      this.detailSize += item.failure.size
      while (this.detailSize > this.budget && this.detailed.length > 1) this.drop(0)
    }
    if (item.repeats) this.counted.set(item.repeats.key, item)
  }

  /** The `i`th newest entry (0 is the newest). */
  newest(i: number): Kept {
    const n = this.kept.length
    return this.kept[(this.next - 1 - i + n) % n]!
  }

  private drop(index: number) {
    const [item] = this.detailed.splice(index, 1)
    this.detailSize -= item!.failure!.size
    item!.failure = undefined
  }
}

/** Wakes `run` after `ms` milliseconds; returns what cancels it. Real timers in the server, a hand-run queue in tests. */
export type Wake = (run: () => void, ms: number) => () => void

export const realWake: Wake = (run, ms) => {
  const timer = setTimeout(run, ms)
  timer.unref?.()
  return () => clearTimeout(timer)
}

export class StoreLog {
  /**
   * The calls of the store's server and students (its secret key, their tokens), and apart the calls of
   * its shop front (the publishable key, which anyone can copy from the shop page): a flood of the
   * latter pushes out only its own. Read as one list, merged by `seq`.
   */
  readonly own = new Ring(CAPACITY, DETAIL_BUDGET)
  readonly shop = new Ring(SHOP_FRONT_CAPACITY, SHOP_FRONT_DETAIL_BUDGET)
  /** The order of the store's calls across both rings. */
  seq = 0
  /** The store's own streams and the teacher's. */
  readonly listeners = new Set<(entry: RequestEntry) => void>()
  readonly teacherListeners = new Set<(entry: RequestEntry) => void>()
  /** Counted entries whose count grew since they were last sent, and the one timer that sends them. */
  private readonly unsent = new Set<Kept>()
  private cancelTrailing: (() => void) | undefined

  constructor(
    private readonly entryOf: (k: Kept) => RequestEntry,
    private readonly clock: Clock,
    private readonly wake: Wake,
  ) {}

  add(item: Kept, shopFront: boolean) {
    ;(shopFront ? this.shop : this.own).add(item)
    this.send(item)
  }

  /** Counts a repeat into its entry, if the entry is still kept; false when the repeat needs an entry of its own. */
  repeat(shopFront: boolean, key: string, id: string, at: number): boolean {
    const item = (shopFront ? this.shop : this.own).counted.get(key)
    if (!item) return false
    const r = item.repeats!
    r.count++
    r.lastAt = at
    r.lastId = id
    if (at - r.sentAt >= STREAM_UPDATE_MS) this.send(item)
    else if (this.listening()) {
      // The repeats of the last second would otherwise reach the streams only with the next repeat, if any.
      this.unsent.add(item)
      this.cancelTrailing ??= this.wake(() => this.sendTrailing(), r.sentAt + STREAM_UPDATE_MS - at)
    }
    return true
  }

  /**
   * Sends each counted entry whose count grew since it was last sent and that is still kept, once a
   * second of the clock has passed since its last send; the others wait for the next wake.
   */
  private sendTrailing() {
    this.cancelTrailing = undefined
    const now = this.clock.now()
    let due = Infinity
    for (const item of [...this.unsent]) {
      const r = item.repeats!
      const kept = this.own.counted.get(r.key) === item || this.shop.counted.get(r.key) === item
      if (!kept || r.count === r.sentCount) this.unsent.delete(item)
      else if (now - r.sentAt >= STREAM_UPDATE_MS) this.send(item)
      else due = Math.min(due, r.sentAt + STREAM_UPDATE_MS)
    }
    if (due !== Infinity && this.listening()) this.cancelTrailing = this.wake(() => this.sendTrailing(), due - now)
    else this.unsent.clear()
  }

  private listening() {
    return this.listeners.size > 0 || this.teacherListeners.size > 0
  }

  private send(item: Kept) {
    if (item.repeats) {
      item.repeats.sentAt = this.clock.now()
      item.repeats.sentCount = item.repeats.count
      this.unsent.delete(item)
    }
    if (!this.listening()) return
    const entry = this.entryOf(item)
    for (const listener of this.listeners) listener(entry)
    for (const listener of this.teacherListeners) listener(entry)
  }

  /** Stops the trailing send's timer. */
  stop() {
    this.cancelTrailing?.()
    this.cancelTrailing = undefined
    this.unsent.clear()
  }

  /** Newest first (by each entry's first call), both rings merged. */
  *newest(): Generator<Kept> {
    const { own, shop } = this
    let i = 0
    let j = 0
    while (i < own.size || j < shop.size) {
      const a = i < own.size ? own.newest(i) : undefined
      const b = j < shop.size ? shop.newest(j) : undefined
      if (b === undefined || (a !== undefined && a.seq > b.seq)) {
        i++
        yield a!
      } else {
        j++
        yield b
      }
    }
  }
}
