import { describe, expect, test } from 'bun:test'
import { KeptBodies } from '../../src/kernel/http/kept-bodies'

describe('kept bodies', () => {
  test('past the bound the least recently used go first: a body read all along stays, those never read again go', () => {
    // Each body is 11 bytes ("\"body-NNNN\""); the bound holds 21 of them.
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
    expect(kept.size().bytes).toBeLessThanOrEqual(240)
  })

  test('a body read since the oldest were last passed over gets a second chance: the unread oldest goes in its place, and it goes in turn once unread', () => {
    // 20 bodies of 11 bytes fill the bound.
    const kept = new KeptBodies(220)
    const made: string[] = []
    const read = (key: string) => kept.read('store', 1, key, () => (made.push(key), { body: `body-${key.padStart(4, '0')}` }))
    for (let i = 0; i < 20; i++) read(String(i))
    read('0')
    read('20') // over the bound: 0 was read, so 1 goes
    read('1')
    expect(made.slice(20)).toEqual(['20', '1'])
    // 0 now stands last in line, unread: 20 more new bodies push it out after the ones made before it.
    for (let i = 21; i < 40; i++) read(String(i))
    read('0')
    expect(made.at(-1)).toBe('0')
    expect(kept.size()).toEqual({ bodies: 20, bytes: 220 })
  })

  test('a body is made once while its scope keeps its version, and again at another version', () => {
    const kept = new KeptBodies(10_000)
    let made = 0
    const make = () => (made++, { body: { n: made } })
    const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes)
    expect(text(kept.read('s', 1, 'k', make))).toBe('{"n":1}')
    expect(text(kept.read('s', 1, 'k', make))).toBe('{"n":1}')
    expect(text(kept.read('s', 2, 'k', make))).toBe('{"n":2}')
  })

  test('a body is kept as its UTF-8 bytes, encoded once: the same bytes are given again, and the bound counts bytes', () => {
    const kept = new KeptBodies(10_000)
    const first = kept.read('s', 1, 'k', () => ({ body: { name: 'Açaí' } }))
    expect(kept.read('s', 1, 'k', () => ({ body: 'made again' }))).toBe(first)
    expect(new TextDecoder().decode(first)).toBe('{"name":"Açaí"}')
    // 15 characters, 17 bytes: ç and í take two each.
    expect(kept.size()).toEqual({ bodies: 1, bytes: 17 })
  })
})
