import { z } from 'zod'

/**
 * Money travels as a JSON number with at most 2 decimals and is kept as integer cents inside,
 * so that 3 × 19.99 is exactly 59.97 (decisions §2).
 */
const MAX_CENTS = 1_000_000_000_00 // one billion: far above any classroom price, far below 2^53

export function hasAtMostTwoDecimals(value: number): boolean {
  const scaled = value * 100
  return Math.abs(scaled - Math.round(scaled)) < 1e-6
}

export const toCents = (value: number): number => Math.round(value * 100)

export const fromCents = (cents: number): number => cents / 100

export const Money = z
  .number()
  .min(0, 'must not be negative')
  .max(MAX_CENTS / 100)
  .refine(hasAtMostTwoDecimals, 'must have at most 2 decimals, e.g. 19.99')
  .describe('Amount in the store currency, at most 2 decimals (kept as integer cents inside).')
