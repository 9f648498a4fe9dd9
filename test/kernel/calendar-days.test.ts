import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { calendarDay, calendarDays, instantOf } from '../../src/kernel/clock'

const HOUR = 3_600_000
/** What a clock of `timeZone` reads at `ms`, as `2026-11-27 00:00`. */
const reading = (ms: number, timeZone: string) =>
  new Intl.DateTimeFormat('sv-SE', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(ms)

// Fixed offsets on both sides, half and three-quarter hours, and zones whose clocks jump (Santiago's skip its midnight).
const ZONES = ['UTC', 'America/Sao_Paulo', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Asia/Kathmandu', 'Pacific/Kiritimati', 'Pacific/Pago_Pago', 'America/Santiago']

describe('calendar days of a time zone', () => {
  test('a day in São Paulo runs from 03:00 UTC to 03:00 UTC; in UTC from midnight to midnight', () => {
    const evening = Date.parse('2026-11-27T23:30:00Z') // 20:30 in São Paulo
    expect(calendarDay(evening, 'America/Sao_Paulo')).toEqual({ from: Date.parse('2026-11-27T03:00:00Z'), to: Date.parse('2026-11-28T03:00:00Z') })
    expect(calendarDay(evening, 'UTC')).toEqual({ from: Date.parse('2026-11-27T00:00:00Z'), to: Date.parse('2026-11-28T00:00:00Z') })
    const lateNight = Date.parse('2026-11-28T01:00:00Z') // 22:00 on the 27th in São Paulo, the 28th in UTC
    expect(calendarDay(lateNight, 'America/Sao_Paulo').from).toBe(Date.parse('2026-11-27T03:00:00Z'))
  })

  test('across daylight saving a day has 23 or 25 hours (Berlin, 2026), and starts when its clocks skip midnight (Santiago)', () => {
    const spring = calendarDay(Date.parse('2026-03-29T12:00:00Z'), 'Europe/Berlin')
    expect([spring.from, (spring.to - spring.from) / HOUR]).toEqual([Date.parse('2026-03-28T23:00:00Z'), 23])
    const autumn = calendarDay(Date.parse('2026-10-25T12:00:00Z'), 'Europe/Berlin')
    expect([autumn.from, (autumn.to - autumn.from) / HOUR]).toEqual([Date.parse('2026-10-24T22:00:00Z'), 25])
    // Santiago's clocks skip from midnight to 01:00: that day starts at 01:00.
    const skipped = calendarDay(Date.parse('2026-09-06T12:00:00Z'), 'America/Santiago')
    expect([reading(skipped.from, 'America/Santiago'), (skipped.to - skipped.from) / HOUR]).toEqual(['2026-09-06 01:00', 23])
  })

  test('a date read as a wall clock is its midnight in the zone: 2026-11-27 in São Paulo is 03:00 UTC', () => {
    expect(instantOf(Date.parse('2026-11-27'), 'America/Sao_Paulo')).toBe(Date.parse('2026-11-27T03:00:00Z'))
    expect(instantOf(Date.parse('2026-11-27T14:00:00Z'), 'Asia/Kolkata')).toBe(Date.parse('2026-11-27T08:30:00Z'))
  })

  test('in any zone, any instant lies in its day, which starts at the first minute its clocks read that date, and days follow each other without gap', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), fc.integer({ min: Date.parse('2020-01-01'), max: Date.parse('2035-01-01') }), (zone, ms) => {
        const day = calendarDay(ms, zone)
        expect(day.from <= ms && ms < day.to).toBe(true)
        expect([23, 24, 25]).toContain(Math.round((day.to - day.from) / HOUR))
        const date = reading(ms, zone).slice(0, 10)
        expect(reading(day.from, zone).slice(0, 10)).toBe(date)
        // A minute before the start reads the day before: no earlier instant of this date was left out.
        expect(reading(day.from - 60_000, zone).slice(0, 10) < date).toBe(true)
        expect(calendarDay(day.to, zone).from).toBe(day.to)
      }),
      { numRuns: 2_000 },
    )
  })

  test('the days of a window cover it in order, each a calendar day, and stop past the maximum', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), fc.integer({ min: Date.parse('2020-01-01'), max: Date.parse('2035-01-01') }), fc.integer({ min: 1, max: 60 * 24 * HOUR }), (zone, from, length) => {
        const { starts, end } = calendarDays(from, from + length, zone, 1_000)
        expect(starts[0]).toBe(calendarDay(from, zone).from)
        expect(end).toBe(calendarDay(from + length - 1, zone).to)
        starts.forEach((start, i) => expect(calendarDay(start, zone)).toEqual({ from: start, to: starts[i + 1] ?? end }))
      }),
      { numRuns: 300 },
    )
    expect(calendarDays(0, 100 * 24 * HOUR, 'UTC', 10).starts).toHaveLength(11)
  })
})
