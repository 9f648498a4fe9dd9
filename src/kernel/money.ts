import { z } from 'zod'

/**
 * Money travels as a JSON number with at most 2 decimals and is kept as integer cents inside,
 * so that 3 × 19.99 is exactly 59.97.
 *
 * Cents are exact only while they stay below 2^53 (about 9 × 10^15); past it a sum silently loses cents.
 * These three bounds keep every total far below: the largest cart is
 * MAX_CART_LINES × MAX_LINE_QUANTITY × MAX_PRICE_CENTS = 100 × 1,000 × 10^8 = 10^13 cents, 900 times
 * under 2^53. An order's total, its payment and its refund are the total of the cart it came from. As a
 * decimal such a total has at most 13 significant digits, fewer than the 15 a JSON number keeps exactly.
 * No shop of a class meets them: a price of a million, a thousand units of one thing, a hundred lines.
 */
export const MAX_PRICE_CENTS = 100_000_000
export const MAX_PRICE = MAX_PRICE_CENTS / 100
export const MAX_LINE_QUANTITY = 1_000
export const MAX_CART_LINES = 100

/**
 * Whether the number, as JSON writes it (its shortest decimal form), has at most 2 decimals: 19.99 does,
 * and so does any whole number of cents divided by 100; 19.999999999 and 0.1 + 0.2
 * (0.30000000000000004) do not, and are refused rather than rounded into another price.
 */
export function hasAtMostTwoDecimals(value: number): boolean {
  if (!Number.isFinite(value)) return false
  const text = String(value)
  // 1e+21 is whole; 1e-7 has seven decimals.
  if (text.includes('e')) return !text.includes('e-')
  const point = text.indexOf('.')
  return point < 0 || text.length - point - 1 <= 2
}

export const toCents = (value: number): number => Math.round(value * 100)

export const fromCents = (cents: number): number => cents / 100

const amount = () => z.number().min(0, 'must not be negative').refine(hasAtMostTwoDecimals, 'must have at most 2 decimals, e.g. 19.99 (round a computed amount to cents: Math.round(x * 100) / 100)')

/** A price of the catalog. */
export const Money = amount()
  .max(MAX_PRICE, `must be at most ${MAX_PRICE} (the highest price a variant can have, so that every total stays exact)`)
  // The document says "at most 2 decimals" in words, not as multipleOf 0.01: JSON Schema validators
  // divide in floating point, where 19.99 / 0.01 is not a whole number, and would refuse such prices
  // (a student's mock server, a form validator). The check above is on cents, which floats cannot trip.
  .describe(`Amount in the store currency, at most 2 decimals (kept as integer cents inside), from 0 to ${MAX_PRICE}.`)

/** A bound in a query, compared with prices: any amount, so that one above every price still works. */
export const MoneyBound = amount().max(Number.MAX_SAFE_INTEGER / 100, 'is too large; leave the bound out instead')

/** A cart's or an order's total in cents: Σ unit price × quantity, exact for lines within the bounds above. */
export const totalCents = (lines: readonly { priceCents: number; quantity: number }[]): number =>
  lines.reduce((sum, l) => sum + l.priceCents * l.quantity, 0)
