import { describe, expect, test } from 'bun:test'
import { floodBound } from './steady-load'

describe("the flood drills' bound on the normal clients' p95", () => {
  test('two equal quiet runs: twice their p95', () => {
    expect(floodBound(19.2, 19.2)).toBeCloseTo(38.4, 5)
  })

  test('quiet runs apart (a busy machine): twice the slower one plus twice their spread', () => {
    expect(floodBound(19.2, 24.2)).toBeCloseTo(2 * 24.2 + 2 * 5, 5)
    expect(floodBound(24.2, 19.2)).toBeCloseTo(2 * 24.2 + 2 * 5, 5)
  })

  test('never tighter than 5 ms, where doubling is timer noise', () => {
    expect(floodBound(0.8, 1.1)).toBe(5)
  })
})
