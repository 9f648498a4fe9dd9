/**
 * Opaque ids with a type prefix. Thanks to the prefix an error can tell a student what
 * kind of id they sent ("`prod_…` is a product id; carts take a variant id").
 */
export const ID_PREFIXES = {
  grp: 'group',
  str: 'store',
  prod: 'product',
  var: 'variant',
  cat: 'category',
  brd: 'brand',
  col: 'collection',
  med: 'media file',
  img: 'product image',
  rev: 'review',
  cus: 'customer',
  cart: 'cart',
  item: 'cart item',
  ord: 'order',
  pay: 'payment',
  ref: 'refund',
  key: 'API key',
  whk: 'webhook endpoint',
  evt: 'event',
  dlv: 'webhook delivery',
  mov: 'stock movement',
} as const

export type IdPrefix = keyof typeof ID_PREFIXES

export interface Ids {
  next(prefix: IdPrefix): string
}

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz'
const CODES = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0))

/** Bytes from the system's secure random source, drawn once each: one call refills them all. */
const pool = new Uint8Array(4096)
let drawn = pool.length
/**
 * The characters of the token being made, one array per length, read out whole as one string (every
 * request id is one: a string added to character by character cost more, and so did a view of part of
 * one longer array).
 */
const chosen: Uint8Array[] = []
const ascii = new TextDecoder('latin1')

/** `length` characters of [0-9a-z] from the system's secure random source (12 chars ≈ 62 bits, 20 ≈ 103). */
export function randomToken(length: number): string {
  const into = length <= 64 ? (chosen[length] ??= new Uint8Array(length)) : new Uint8Array(length)
  for (let n = 0; n < length; ) {
    if (drawn === pool.length) {
      crypto.getRandomValues(pool)
      drawn = 0
    }
    const b = pool[drawn++]!
    // 252 is the largest multiple of 36 below 256: rejecting bytes above it keeps every character equally likely.
    if (b < 252) into[n++] = CODES[b % 36]!
  }
  return ascii.decode(into)
}

/** Milliseconds written in 8 characters of [0-9a-z], whose order as text is their order as numbers (they wrap in 2059). */
const TIME_SPAN = 36 ** 8

/**
 * Ids of 20 characters: the time they were made (8) and 12 random ones (62 bits). New rows' ids sort
 * after older ones, so each table's id index grows at its end: a commit of a few orders rewrites a few
 * of its pages instead of one page per row, which halved the WAL an order writes and the checkpoints
 * that flush it (docs/transactions.md). Nothing reads the time back: an id stays opaque.
 */
export function timeOrderedIds(now: () => number): Ids {
  return { next: (prefix) => `${prefix}_${(now() % TIME_SPAN).toString(36).padStart(8, '0')}${randomToken(12)}` }
}

/** The server's ids: the system clock's milliseconds and the secure random source. */
export const systemIds: Ids = timeOrderedIds(Date.now)

/** Predictable ids for tests: `prod_000001`, `prod_000002`, … per prefix. */
export function sequentialIds(): Ids {
  const counters = new Map<string, number>()
  return {
    next(prefix) {
      const n = (counters.get(prefix) ?? 0) + 1
      counters.set(prefix, n)
      return `${prefix}_${String(n).padStart(6, '0')}`
    },
  }
}

/** What kind of thing an id names, judged by its prefix; undefined when it has no known prefix. */
export function describeId(id: string): string | undefined {
  const prefix = id.slice(0, id.indexOf('_'))
  return ID_PREFIXES[prefix as IdPrefix]
}
