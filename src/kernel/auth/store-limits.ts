import { AppError } from '../errors'
import type { Call } from '../http/call'
import { clientAddress } from '../http/client-address'
import { isShopFront, type StoreCtx } from './kinds'
import { BYTES_PER_TOKEN, extraTokens, SHOP_FRONT_SHARE, type LargeAnswer, type RateLimiter } from './rate-limiter'

// The rate limits of an admitted store call (the gate, gate.ts, admits it): the token it takes, the
// refusal in words when none is left, and the tokens its answer costs for its size.

export function storeLimits(limiter: RateLimiter) {
  return {
    /**
     * Applies the rate limit and sets the RateLimit-* headers on the response: the store's bucket, or for
     * its shop front (a publishable key) the bucket of this client address, which never drains the store's.
     */
    take(ctx: StoreCtx, call: Call) {
      if (!limiter.enabled) return
      const headers = call.set.headers
      if (isShopFront(ctx.actor)) {
        const address = clientAddress(call.server, call.request)
        const answer = limiter.takeShopFront(ctx.storeId, address, headers)
        if (answer === 'allowed') return
        const large = largeAnswerNote(limiter.largeShopFrontAnswer(ctx.storeId, answer === 'client' ? address : undefined))
        throw new AppError(
          'RATE_LIMITED',
          answer === 'client'
            ? `This shop-front client sent more requests with the publishable key than its limit allows (each client address has its own). Wait ${headers['retry-after']} s (Retry-After) and slow down; the store's server (secret key), its panel and other clients of the shop are not affected.${large}`
            : `The shop front of this store, all its clients together, sent more requests with the publishable key than its limit allows (${SHOP_FRONT_SHARE} times the store's). Wait ${headers['retry-after']} s (Retry-After); the store's server (secret key) and its panel are not affected. If many machines call this page in a loop, slow them down.${large}`,
        )
      }
      if (limiter.take(ctx.storeId, headers)) return
      throw new AppError(
        'RATE_LIMITED',
        `Your store sent more requests than its limit allows. Wait ${headers['retry-after']} s (Retry-After) and slow your loop down; other stores are not affected.${largeAnswerNote(limiter.largeAnswer(ctx.storeId))}`,
      )
    },

    /**
     * Charges an admitted store call for the size of its answer, `bytes` of JSON about to be sent:
     * every BYTES_PER_TOKEN of it counts as one more request, from the bucket the call took its token
     * from, and the RateLimit-* headers say what is left.
     */
    chargeAnswer(call: Call, bytes: number) {
      const tokens = extraTokens(bytes)
      const ctx = call.ctx
      if (tokens === 0 || !ctx || !limiter.enabled) return
      const headers = call.set.headers
      if (isShopFront(ctx.actor)) limiter.chargeShopFront(ctx.storeId, clientAddress(call.server, call.request), tokens, bytes, headers)
      else limiter.charge(ctx.storeId, tokens, bytes, headers)
    },
  }
}

/** What a refusal adds when a large answer emptied the bucket: why, and how to ask for less. */
function largeAnswerNote(large: LargeAnswer | undefined): string {
  if (large === undefined) return ''
  const kib = Math.round(large.bytes / 1024)
  const rule = `A large answer counts as more than one request (one more for every ${BYTES_PER_TOKEN / 1024} KiB)`
  if (large.replay) {
    return ` ${rule}, and so do the events a listen stream missed and was sent when it reconnected: a recent reconnection was sent ${kib} KiB of them and counted as ${extraTokens(large.bytes)} more. A stream that stays connected is sent new events at no cost.`
  }
  return ` ${rule}: a recent one was ${kib} KiB and counted as ${1 + extraTokens(large.bytes)}. For a list, a smaller pageSize makes smaller answers.`
}
