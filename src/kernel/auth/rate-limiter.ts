import type { Clock } from '../clock'

interface Bucket {
  tokens: number
  at: number
}

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

  private forgetIdle(now: number) {
    for (const [key, bucket] of this.shopFronts) {
      if (this.shopFronts.size >= MAX_SHOP_FRONT_BUCKETS || bucket.at <= now - this.refillMs) this.shopFronts.delete(key)
      else break
    }
  }

  /** Takes one token from a bucket of `scale` times the store's rate and burst, writing its headers. */
  private takeFrom(bucket: Bucket, now: number, headers: Record<string, unknown>, scale = 1): boolean {
    const rps = this.rps * scale
    const burst = this.burst * scale
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * rps)
    bucket.at = now
    const allowed = bucket.tokens >= 1
    if (allowed) bucket.tokens -= 1
    headers['ratelimit-limit'] = scale === 1 ? this.limitHeader : String(burst)
    headers['ratelimit-remaining'] = String(Math.floor(bucket.tokens))
    headers['ratelimit-reset'] = String(Math.ceil((burst - bucket.tokens) / rps))
    if (!allowed) headers['retry-after'] = String(Math.max(1, Math.ceil((1 - bucket.tokens) / rps)))
    return allowed
  }
}
