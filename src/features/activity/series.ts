import { and, eq, gte, lt } from 'drizzle-orm'
import { calendarDays, isoTime } from '../../kernel/clock'
import type { Deps } from '../../kernel/deps'
import { AppError } from '../../kernel/errors'
import { MAX_BUCKETS, type ActivitySeries, type ActivitySeriesQuery } from './model'
import { activityWindow, countKey, DAY, groupsInScope, HOUR, studentsOf } from './scope'
import { activityCounts, SHOP_FRONT_RM } from './tables'

/**
 * The starts of the buckets that cover `[from, to)`, and the end of the last: whole hours, or the
 * calendar days of the clock's time zone (23 to 25 hours across a daylight-saving change).
 */
function bucketsOf(window: { from: number; to: number }, bucket: ActivitySeriesQuery['bucket'], timeZone: string) {
  const days = bucket === 'day' ? calendarDays(window.from, window.to, timeZone, MAX_BUCKETS) : undefined
  const start = window.from - (window.from % HOUR)
  // Past the maximum the days were not all made: their number is the window's length in days.
  const count = days ? (days.end < window.to ? Math.ceil((window.to - days.starts[0]!) / DAY) : days.starts.length) : Math.ceil((window.to - start) / HOUR)
  if (count > MAX_BUCKETS) {
    throw new AppError(
      'VALIDATION_ERROR',
      `The window holds ${count} ${bucket}s, more than the ${MAX_BUCKETS} buckets a series can have. ${bucket === 'hour' ? 'Use bucket=day or a shorter window (from/to).' : 'Use a shorter window (from/to).'}`,
      [{ path: bucket === 'hour' ? 'bucket' : 'from', message: `at most ${MAX_BUCKETS} buckets` }],
    )
  }
  return days ?? { starts: Array.from({ length: count }, (_, i) => start + i * HOUR), end: start + count * HOUR }
}

/**
 * Which bucket each hour of counts goes to: the last that starts in or before its hour (in a time
 * zone whose offset is not whole hours, the hour that holds a midnight counts for the day it starts).
 */
function bucketOfHour(starts: number[]) {
  const hours = starts.map((s) => s - (s % HOUR))
  return (hourStart: number) => {
    let low = 0
    for (let high = hours.length - 1; low < high; ) {
      const mid = (low + high + 1) >> 1
      if (hours[mid]! <= hourStart) low = mid
      else high = mid - 1
    }
    return low
  }
}

/** Calls per group and per student over time, for a chart: the same counts, per hour or calendar day. */
export function activitySeries(deps: Deps, query: ActivitySeriesQuery): ActivitySeries {
  deps.activity.flush() // the series includes the calls of the last second
  const window = activityWindow(deps, query, { at: (to) => to - DAY, what: 'a day before it' })
  const { timeZone } = deps.clock
  const { starts, end } = bucketsOf(window, query.bucket, timeZone)
  const count = starts.length
  // Counts are kept per hour: the hours from the one holding the first start to the one holding the end, that one left out.
  const [firstHour, endHour] = [starts[0]! - (starts[0]! % HOUR), end - (end % HOUR)]
  const bucketOf = bucketOfHour(starts)
  const groupRows = groupsInScope(deps, query.groupId)
  const rows = deps.db
    .select({ groupId: activityCounts.groupId, rm: activityCounts.rm, hourStart: activityCounts.hourStart, calls: activityCounts.calls, errors: activityCounts.errors })
    .from(activityCounts)
    .where(and(gte(activityCounts.hourStart, firstHour), lt(activityCounts.hourStart, endHour), query.groupId ? eq(activityCounts.groupId, query.groupId) : undefined))
    .orderBy(activityCounts.rm)
    .all()

  const zeros = () => Array<number>(count).fill(0)
  /** A line's calls and errors per bucket; zeros for one with no count in the window. */
  const lines = (own: { calls: number[]; errors: number[] } | undefined) => (own ? { calls: own.calls, errors: own.errors } : { calls: zeros(), errors: zeros() })
  // Each group's rows, in one pass: a filter per group read every row once per group.
  const rowsOf = Map.groupBy(rows, (r) => r.groupId)
  return {
    from: isoTime(starts[0]!),
    to: isoTime(end),
    bucket: query.bucket,
    timeZone,
    times: starts.map(isoTime),
    groups: groupRows.map((g) => {
      const mine = rowsOf.get(g.id) ?? []
      const total = { calls: zeros(), errors: zeros() }
      // By countKey: one student's counts kept under their RM in two cases are one line.
      const byRm = new Map<string, { rm: string; calls: number[]; errors: number[] }>()
      for (const r of mine) {
        const i = bucketOf(r.hourStart)
        const key = countKey(r.rm)
        const own = byRm.get(key) ?? { rm: r.rm, calls: zeros(), errors: zeros() }
        byRm.set(key, own)
        for (const line of [own, total]) {
          line.calls[i]! += r.calls
          line.errors[i]! += r.errors
        }
      }
      return {
        groupId: g.id,
        name: g.name,
        ...total,
        unattributed: byRm.get('')?.calls ?? zeros(),
        shopFront: lines(byRm.get(SHOP_FRONT_RM)),
        students: studentsOf(g, byRm).map((m) => ({ rm: m.rm, name: m.name, member: m.member, ...lines(byRm.get(m.key)) })),
      }
    }),
  }
}
