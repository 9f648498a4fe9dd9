import { z } from 'zod'
import { instantOf } from './clock'

// The one form of a time sent in a query string (the teacher's activity, the store's orders, the
// request inspector): a date alone or a date-time, year first, with Z, an offset, or neither.

const DAY = 86_400_000
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/
const WITH_OFFSET = /(?:[zZ]|[+-]\d{2}(?::?\d{2})?)$/

/**
 * An ISO date or date-time of the calendar, year first, by zod's own checks: Date.parse also reads
 * 01/12/2026, month first, 1 as the year 2001, and 2026-02-30 as 2 March.
 */
const ISO_INSTANT = z.union([
  z.iso.date(),
  z.iso.datetime({ local: true, offset: true }),
  // zod takes an offset only after seconds; 2026-11-21T14:00-03:00 is as much ISO 8601 as with :00.
  z.iso.datetime({ local: true, offset: true, precision: -1 }),
])

/** The space before an offset's hours (and minutes), where a + was. */
const SPACE_FOR_PLUS = / (?=\d{2}(:?\d{2})?$)/

/**
 * A query parameter holding a time: an ISO date (`2026-11-21`) or date-time (`2026-11-21T14:00:00Z`,
 * `…-03:00`, or without an offset). Read it with `instantOfQuery`. A + left as it is in a query string
 * arrives as a space (14:00:00+05:30 reads 14:00:00 05:30): the message says to write %2B.
 */
export const instantQuery = (name: string) =>
  z
    .string()
    .max(40, `${name} is a date or a time, e.g. 2026-11-21 or 2026-11-21T14:00:00Z`)
    .superRefine((v, issues) => {
      if (ISO_INSTANT.safeParse(v).success) return
      const plusAsSpace = ISO_INSTANT.safeParse(v.replace(SPACE_FOR_PLUS, '+')).success
      issues.addIssue({
        code: 'custom',
        message: plusAsSpace
          ? `${name} has a space where its offset's + was: a + in a query string is read as a space. Write it as %2B (${v.replace(SPACE_FOR_PLUS, '%2B')}), or give the time in UTC with Z`
          : `${name} must be an ISO date, year first, such as 2026-11-21, or a date and time such as 2026-11-21T14:00:00Z`,
      })
    })

/** What every parameter of `instantQuery` says in the OpenAPI document, after its own meaning. */
export const INSTANT_FORMS =
  "Written 2026-11-21, 2026-11-21T14:00:00Z or 2026-11-21T11:00-03:00 (an offset's + as %2B in a URL). A date alone, or a time without an offset (no Z), is read in the server's time zone"

/**
 * A value `instantQuery` passed, as milliseconds: a date alone is the start of that day in `timeZone`
 * (with `endOf`, the start of the next: a date alone as an end includes its whole day), a date-time
 * without an offset a reading of that zone's clocks.
 */
export function instantOfQuery(value: string, timeZone: string, endOf = false): number {
  if (DATE_ONLY.test(value)) return instantOf(Date.parse(value) + (endOf ? DAY : 0), timeZone)
  return WITH_OFFSET.test(value) ? Date.parse(value) : instantOf(Date.parse(`${value}Z`), timeZone)
}
