import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { createHash } from 'node:crypto'
import { hashToken } from '../../src/kernel/auth/credentials'
import { describeId, systemIds, randomToken, sequentialIds, timeOrderedIds } from '../../src/kernel/ids'
import { fromCents, hasAtMostTwoDecimals, MAX_CART_LINES, MAX_LINE_QUANTITY, MAX_PRICE, MAX_PRICE_CENTS, Money, toCents, totalCents } from '../../src/kernel/money'

describe('money as integer cents', () => {
  test('3 × 19.99 is exactly 59.97 when summed in cents', () => {
    const total = fromCents(3 * toCents(19.99))
    expect(total).toBe(59.97)
    expect(0.1 + 0.2).not.toBe(0.3) // why cents: the float sum is off
    expect(fromCents(toCents(0.1) + toCents(0.2))).toBe(0.3)
  })

  test('every price with at most 2 decimals round-trips through cents', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_PRICE_CENTS }), (cents) => {
        const value = cents / 100
        return hasAtMostTwoDecimals(value) && toCents(value) === cents && Money.safeParse(value).success
      }),
    )
  })

  test('three decimals, negatives, non-numbers and prices above the limit are refused', () => {
    // Nor rounded into a price that was not sent: the digits past the cents are refused however far they go.
    for (const bad of [1.005, 19.999, 0.001, -0.01, Number.NaN, Infinity, MAX_PRICE + 0.01, 19.999999999, 1e-9, 4.9999999999, 0.1 + 0.2]) {
      expect(Money.safeParse(bad).success).toBe(false)
    }
  })

  test('any cart within the limits totals to the BigInt sum of its lines, and its JSON amount reads back as those cents', () => {
    const line = fc.record({ priceCents: fc.integer({ min: 0, max: MAX_PRICE_CENTS }), quantity: fc.integer({ min: 1, max: MAX_LINE_QUANTITY }) })
    const edge = fc.constant({ priceCents: MAX_PRICE_CENTS - 1, quantity: MAX_LINE_QUANTITY })
    fc.assert(
      fc.property(fc.array(fc.oneof(line, edge), { minLength: 1, maxLength: MAX_CART_LINES }), (lines) => {
        const exact = lines.reduce((sum, l) => sum + BigInt(l.priceCents) * BigInt(l.quantity), 0n)
        const total = totalCents(lines)
        const [units, decimals = ''] = String(JSON.parse(JSON.stringify(fromCents(total)))).split('.')
        return BigInt(total) === exact && BigInt(units!) * 100n + BigInt(decimals.padEnd(2, '0')) === exact
      }),
      { numRuns: 500 },
    )
  })
})

describe('prefixed ids', () => {
  test("the server's ids carry their prefix and 20 characters of [0-9a-z], without repeats", () => {
    const ids = new Set(Array.from({ length: 2000 }, () => systemIds.next('prod')))
    expect(ids.size).toBe(2000)
    for (const id of ids) expect(id).toMatch(/^prod_[0-9a-z]{20}$/)
  })

  test('ids made later sort after earlier ones, whatever their random part, and keep 20 characters', () => {
    let now = Date.UTC(2026, 10, 26)
    const ids = timeOrderedIds(() => now)
    const made: string[] = []
    for (let i = 0; i < 500; i++) {
      made.push(ids.next('ord'))
      now += 1 + (i % 7)
    }
    expect([...made].sort()).toEqual(made)
    for (const id of made) expect(id).toMatch(/^ord_[0-9a-z]{20}$/)
    // Made in the same millisecond, they share the time's 8 characters and differ in the random 12.
    const same = [ids.next('ord'), ids.next('ord')]
    expect(same[0]!.slice(0, 12)).toBe(same[1]!.slice(0, 12))
    expect(same[0]).not.toBe(same[1])
    // The last millisecond before the 8 characters wrap, and the first after it.
    expect(timeOrderedIds(() => 36 ** 8 - 1).next('evt').slice(4, 12)).toBe('zzzzzzzz')
    expect(timeOrderedIds(() => 36 ** 8).next('evt').slice(4, 12)).toBe('00000000')
  })

  test('random tokens use every character of the alphabet about equally', () => {
    const counts = new Map<string, number>()
    for (const ch of randomToken(36_000)) counts.set(ch, (counts.get(ch) ?? 0) + 1)
    expect(counts.size).toBe(36)
    for (const n of counts.values()) expect(n).toBeGreaterThan(700) // 1000 expected each
  })

  test('a credential hashes to the SHA-256 hex the tables already hold, for any text', () => {
    // Keys and sessions stored by earlier versions were hashed with node:crypto; they must still match.
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (token) => hashToken(token) === createHash('sha256').update(token).digest('hex')))
    expect(hashToken('sk_abcd1234_x')).toBe(createHash('sha256').update('sk_abcd1234_x').digest('hex'))
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
