import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { describeId, randomIds, randomToken, sequentialIds } from '../../src/kernel/ids'
import { fromCents, hasAtMostTwoDecimals, Money, toCents } from '../../src/kernel/money'

describe('money as integer cents', () => {
  test('3 × 19.99 is exactly 59.97 when summed in cents', () => {
    const total = fromCents(3 * toCents(19.99))
    expect(total).toBe(59.97)
    expect(0.1 + 0.2).not.toBe(0.3) // why cents: the float sum is off
    expect(fromCents(toCents(0.1) + toCents(0.2))).toBe(0.3)
  })

  test('every amount with at most 2 decimals round-trips through cents', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100_000_000_00 }), (cents) => {
        const value = cents / 100
        return hasAtMostTwoDecimals(value) && toCents(value) === cents && Money.safeParse(value).success
      }),
    )
  })

  test('three decimals, negatives and non-numbers are refused', () => {
    for (const bad of [1.005, 19.999, 0.001, -0.01, Number.NaN, Infinity]) {
      expect(Money.safeParse(bad).success).toBe(false)
    }
  })
})

describe('prefixed ids', () => {
  test('random ids carry their prefix and 20 characters of [0-9a-z], without repeats', () => {
    const ids = new Set(Array.from({ length: 2000 }, () => randomIds.next('prod')))
    expect(ids.size).toBe(2000)
    for (const id of ids) expect(id).toMatch(/^prod_[0-9a-z]{20}$/)
  })

  test('random tokens use every character of the alphabet about equally', () => {
    const counts = new Map<string, number>()
    for (const ch of randomToken(36_000)) counts.set(ch, (counts.get(ch) ?? 0) + 1)
    expect(counts.size).toBe(36)
    for (const n of counts.values()) expect(n).toBeGreaterThan(700) // 1000 expected each
  })

  test('sequential ids count per prefix', () => {
    const ids = sequentialIds()
    expect([ids.next('prod'), ids.next('prod'), ids.next('var')]).toEqual(['prod_000001', 'prod_000002', 'var_000001'])
  })

  test('an id tells what it names by its prefix', () => {
    expect(describeId('prod_abc')).toBe('product')
    expect(describeId('var_abc')).toBe('variant')
    expect(describeId('whatever')).toBeUndefined()
  })
})
