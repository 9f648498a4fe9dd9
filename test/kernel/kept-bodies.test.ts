import { describe, expect, test } from 'bun:test'
import { KeptBodies } from '../../src/kernel/http/kept-bodies'

describe('kept bodies', () => {
  test('past the bound the least recently used go first: a body read all along stays, those never read again go', () => {
    // Each body is 12 characters ("\"body-NNNN\""); the bound holds 20 of them.
    const kept = new KeptBodies(240)
    let made = 0
    const read = (key: string) => kept.read('store', 1, key, () => (made++, { body: `body-${key.padStart(4, '0')}` }))
    read('hot')
    for (let i = 0; i < 200; i++) {
      read(String(i))
      read('hot')
    }
    const before = made
    read('hot')
    expect(made).toBe(before) // still kept: not made again
    read('0')
    expect(made).toBe(before + 1) // long gone: made again
    expect(kept.size().chars).toBeLessThanOrEqual(240)
  })

  test('a body is made once while its scope keeps its version, and again at another version', () => {
    const kept = new KeptBodies(10_000)
    let made = 0
    const make = () => (made++, { body: { n: made } })
    expect(kept.read('s', 1, 'k', make)).toBe('{"n":1}')
    expect(kept.read('s', 1, 'k', make)).toBe('{"n":1}')
    expect(kept.read('s', 2, 'k', make)).toBe('{"n":2}')
  })
})
