import type { Clock } from '../clock'

interface Bucket {
  /** Below zero after a large answer: the calls after it wait until the bucket has refilled that far. */
  tokens: number
  at: number
  /** The last answer that cost this bucket more than one token, and until when it may be why the bucket is empty. */
  large?: LargeAnswer & { until: number }
}

/** An answer that cost more than one token: its size, and whether it was a listen stream's replay of missed events. */
export interface LargeAnswer {
  bytes: number
  replay: boolean
}

/**
 * An answer costs one more token for every this many bytes of it: a page of 100 products with 100
 * variants each weighs megabytes, and costs the server as much time to make as a hundred small calls
 * (docs/hostile-input.md, "Large answers"). Answers below it, nearly all of them, cost one.
 */
export const BYTES_PER_TOKEN = 64 * 1024

/** How many tokens more than one an answer of `bytes` costs. */
export const extraTokens = (bytes: number) => Math.floor(bytes / BYTES_PER_TOKEN)

/** Shop-front buckets kept at most: past it, the least recently used go first (see takeShopFront). */
export const MAX_SHOP_FRONT_BUCKETS = 10_000

/** How many times the store's own rate and burst a store's whole shop front may use, all addresses together. */
export const SHOP_FRONT_SHARE = 4

/** What takeShopFront decided: allowed, or refused by the client's own bucket or by the shop front's as a whole. */
export type ShopFrontAnswer = 'allowed' | 'client' | 'shopFront'

/**
 * Token buckets, `rps` tokens a second, up to `burst` saved:
 * - one per store, shared by its secret keys and its students' tokens. One group's runaway loop empties
 *   its own bucket only, so the others are not slowed.
 * - one per store and client address for its shop front (calls with the publishable key). That key sits
 *   in a page anyone can open, so whoever floods with it empties only the bucket of their own address:
 *   the store's own bucket, its other shop-front clients and the other stores are not touched.
 * - one per store for its whole shop front, SHOP_FRONT_SHARE times the store's: a room of machines
 *   flooding one shop page together still costs the server a bounded share, as one store's loop does.
 */
export class RateLimiter {
  private stores = new Map<string, Bucket>()
  /** A store's whole shop front, all addresses together. */
  private shopFrontTotals = new Map<string, Bucket>()
  /** Keyed by store and address; in the order of last use, the stalest first. */
  private shopFronts = new Map<string, Bucket>()
  private readonly limitHeader: string
  /** After this long unused, a bucket is full again: exactly as a new one would be. */
  private readonly refillMs: number

  constructor(
    private clock: Clock,
    private rps: number,
    private burst: number,
  ) {
    this.limitHeader = String(burst)
    this.refillMs = rps > 0 ? Math.ceil((burst / rps) * 1000) : 0
  }

  get enabled() {
    return this.rps > 0
  }

  /** How many shop-front buckets are kept now. */
  get shopFrontBuckets() {
    return this.shopFronts.size
  }

  /**
   * Takes one request from the store's bucket and writes the RateLimit-* headers (and Retry-After when
   * refused) into `headers`, the response's own, so no object is made per request. True when allowed.
   */
  take(storeId: string, headers: Record<string, unknown>): boolean {
    const now = this.clock.now()
    let bucket = this.stores.get(storeId)
    if (!bucket) this.stores.set(storeId, (bucket = { tokens: this.burst, at: now }))
    return this.takeFrom(bucket, now, headers)
  }

  /**
   * The same, from the bucket of this store's shop front at this client address.
   *
   * Memory stays bounded however many addresses call: a bucket unused for as long as it takes to fill
   * up again is dropped (a new one for that address starts full, so no answer changes), and past
   * MAX_SHOP_FRONT_BUCKETS the least recently used are dropped too. The map is kept in the order of last
   * use, so both drops take from its front and each call costs constant work. Under a flood from more
   * addresses than that, a client dropped early gets a full burst again: that costs only shop-front
   * buckets, never the store's own, and bounded memory matters more.
   */
  takeShopFront(storeId: string, address: string, headers: Record<string, unknown>): ShopFrontAnswer {
    const now = this.clock.now()
    const key = `${storeId} ${address}`
    let bucket = this.shopFronts.get(key)
    if (bucket) this.shopFronts.delete(key)
    else bucket = { tokens: this.burst, at: now }
    this.forgetIdle(now)
    this.shopFronts.set(key, bucket)
    // The whole shop front's first, then the client's, whose headers the answer keeps; a call the
    // client's bucket refuses gives the shop front its token back, so one flooding address cannot
    // empty the shop front for the page's other visitors.
    let total = this.shopFrontTotals.get(storeId)
    if (!total) this.shopFrontTotals.set(storeId, (total = { tokens: this.burst * SHOP_FRONT_SHARE, at: now }))
    if (!this.takeFrom(total, now, headers, SHOP_FRONT_SHARE)) return 'shopFront'
    if (this.takeFrom(bucket, now, headers)) return 'allowed'
    total.tokens += 1
    return 'client'
  }

  /**
   * Takes `tokens` more from the store's bucket for the size of an answer (`bytes`) already made, and
   * writes the RateLimit-* headers again. The bucket may go below zero: the answer is given, and the
   * store's next calls wait until it has refilled. `replay`: the answer was a listen stream's missed events.
   */
  charge(storeId: string, tokens: number, bytes: number, headers: Record<string, unknown>, replay = false) {
    const bucket = this.stores.get(storeId)
    if (bucket) this.chargeFrom(bucket, tokens, { bytes, replay }, headers)
  }

  /** The same for a shop-front call: the client's bucket and the whole shop front's; headers of the client's. */
  chargeShopFront(storeId: string, address: string, tokens: number, bytes: number, headers: Record<string, unknown>) {
    const total = this.shopFrontTotals.get(storeId)
    if (total) this.chargeFrom(total, tokens, { bytes, replay: false }, headers, SHOP_FRONT_SHARE)
    const bucket = this.shopFronts.get(`${storeId} ${address}`)
    if (bucket) this.chargeFrom(bucket, tokens, { bytes, replay: false }, headers)
  }

  /** The large answer that may have emptied the store's bucket, when there was one lately: the refusal says so. */
  largeAnswer(storeId: string): LargeAnswer | undefined {
    return this.lately(this.stores.get(storeId))
  }

  /** The same for a shop-front client, or for the whole shop front (`address` undefined). */
  largeShopFrontAnswer(storeId: string, address: string | undefined): LargeAnswer | undefined {
    return this.lately(address === undefined ? this.shopFrontTotals.get(storeId) : this.shopFronts.get(`${storeId} ${address}`))
  }

  private lately(bucket: Bucket | undefined): LargeAnswer | undefined {
    if (!bucket?.large || bucket.large.until < this.clock.now()) return undefined
    return bucket.large
  }

  private chargeFrom(bucket: Bucket, tokens: number, large: LargeAnswer, headers: Record<string, unknown>, scale = 1) {
    const now = this.clock.now()
    this.refill(bucket, now, scale)
    bucket.tokens -= tokens
    // Long enough to refill what it took and the whole burst: past that, an empty bucket is the calls' doing.
    bucket.large = { ...large, until: now + ((tokens + this.burst * scale) / (this.rps * scale)) * 1000 }
    this.writeHeaders(bucket, headers, scale)
  }

  /**
   * Drops the shop-front buckets that are full again, stalest first, and past MAX_SHOP_FRONT_BUCKETS the
   * least recently used. A bucket in debt after a large answer takes longer than refillMs to fill: it
   * is kept until it has, else the next call of another client would forgive its debt. The walk stops
   * at the first bucket kept, so one in debt may keep later idle ones a while: the bound still holds.
   */
  private forgetIdle(now: number) {
    for (const [key, bucket] of this.shopFronts) {
      const full = bucket.at <= now - this.refillMs && this.tokensAt(bucket, now) >= this.burst
      if (this.shopFronts.size >= MAX_SHOP_FRONT_BUCKETS || full) this.shopFronts.delete(key)
      else break
    }
  }

  /** Takes one token from a bucket of `scale` times the store's rate and burst, writing its headers. */
  private takeFrom(bucket: Bucket, now: number, headers: Record<string, unknown>, scale = 1): boolean {
    this.refill(bucket, now, scale)
    const allowed = bucket.tokens >= 1
    if (allowed) bucket.tokens -= 1
    this.writeHeaders(bucket, headers, scale)
    if (!allowed) headers['retry-after'] = String(Math.max(1, Math.ceil((1 - bucket.tokens) / (this.rps * scale))))
    return allowed
  }

  /** The tokens a bucket of `scale` times the store's rate and burst holds at `now`. */
  private tokensAt(bucket: Bucket, now: number, scale = 1): number {
    return Math.min(this.burst * scale, bucket.tokens + ((now - bucket.at) / 1000) * this.rps * scale)
  }

  private refill(bucket: Bucket, now: number, scale: number) {
    bucket.tokens = this.tokensAt(bucket, now, scale)
    bucket.at = now
  }

  private writeHeaders(bucket: Bucket, headers: Record<string, unknown>, scale: number) {
    const burst = this.burst * scale
    headers['ratelimit-limit'] = scale === 1 ? this.limitHeader : String(burst)
    headers['ratelimit-remaining'] = String(Math.max(0, Math.floor(bucket.tokens)))
    headers['ratelimit-reset'] = String(Math.ceil((burst - bucket.tokens) / (this.rps * scale)))
  }
}
