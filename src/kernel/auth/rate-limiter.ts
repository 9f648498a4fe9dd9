import type { Clock } from '../clock'

/**
 * A token bucket per store: `rps` tokens a second, up to `burst` saved. One group's
 * runaway loop empties its own bucket only, so the others are not slowed.
 */
export class RateLimiter {
  private buckets = new Map<string, { tokens: number; at: number }>()
  private readonly limitHeader: string

  constructor(
    private clock: Clock,
    private rps: number,
    private burst: number,
  ) {
    this.limitHeader = String(burst)
  }

  get enabled() {
    return this.rps > 0
  }

  /**
   * Takes one request from the store's bucket and writes the RateLimit-* headers (and Retry-After when
   * refused) into `headers`, the response's own, so no object is made per request. True when allowed.
   */
  take(key: string, headers: Record<string, unknown>): boolean {
    const now = this.clock.now()
    let bucket = this.buckets.get(key)
    if (!bucket) this.buckets.set(key, (bucket = { tokens: this.burst, at: now }))
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.rps)
    bucket.at = now
    const allowed = bucket.tokens >= 1
    if (allowed) bucket.tokens -= 1
    headers['ratelimit-limit'] = this.limitHeader
    headers['ratelimit-remaining'] = String(Math.floor(bucket.tokens))
    headers['ratelimit-reset'] = String(Math.ceil((this.burst - bucket.tokens) / this.rps))
    if (!allowed) headers['retry-after'] = String(Math.max(1, Math.ceil((1 - bucket.tokens) / this.rps)))
    return allowed
  }
}
