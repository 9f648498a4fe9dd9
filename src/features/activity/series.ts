import { and, eq, gte, lt } from 'drizzle-orm'
import { isoTime } from '../../kernel/clock'
import type { Deps } from '../../kernel/deps'
import { AppError } from '../../kernel/errors'
import { MAX_BUCKETS, type ActivitySeries, type ActivitySeriesQuery } from './model'
import { activityWindow, DAY, groupsInScope, HOUR, studentsOf } from './scope'
import { activityCounts, SHOP_FRONT_RM } from './tables'

const SIZE = { hour: HOUR, day: DAY }

/** The buckets that cover `[from, to)`: whole hours or whole UTC days (the epoch is a UTC midnight). */
function bucketsOf(window: { from: number; to: number }, bucket: ActivitySeriesQuery['bucket']) {
  const size = SIZE[bucket]
  const start = window.from - (window.from % size)
  const count = Math.ceil((window.to - start) / size)
  if (count > MAX_BUCKETS) {
    throw new AppError(
      'VALIDATION_ERROR',
      `The window holds ${count} ${bucket}s, more than the ${MAX_BUCKETS} buckets a series can have. ${bucket === 'hour' ? 'Use bucket=day or a shorter window (from/to).' : 'Use a shorter window (from/to).'}`,
      [{ path: bucket === 'hour' ? 'bucket' : 'from', message: `at most ${MAX_BUCKETS} buckets` }],
    )
  }
  return { start, size, count }
}

/** Calls per group and per student over time, for a chart: the same counts, per hour or UTC day. */
export function activitySeries(deps: Deps, query: ActivitySeriesQuery): ActivitySeries {
  deps.activity.flush() // the series includes the calls of the last second
  const window = activityWindow(deps, query, { at: (to) => to - DAY, what: 'a day before it' })
  const { start, size, count } = bucketsOf(window, query.bucket)
  const end = start + count * size
  const groupRows = groupsInScope(deps, query.groupId)
  const rows = deps.db
    .select({ groupId: activityCounts.groupId, rm: activityCounts.rm, hourStart: activityCounts.hourStart, calls: activityCounts.calls, errors: activityCounts.errors })
    .from(activityCounts)
    .where(and(gte(activityCounts.hourStart, start), lt(activityCounts.hourStart, end), query.groupId ? eq(activityCounts.groupId, query.groupId) : undefined))
    .orderBy(activityCounts.rm)
    .all()

  const zeros = () => Array<number>(count).fill(0)
  return {
    from: isoTime(start),
    to: isoTime(end),
    bucket: query.bucket,
    times: Array.from({ length: count }, (_, i) => isoTime(start + i * size)),
    groups: groupRows.map((g) => {
      const mine = rows.filter((r) => r.groupId === g.id)
      const total = { calls: zeros(), errors: zeros() }
      const byRm = new Map<string, { calls: number[]; errors: number[] }>()
      for (const r of mine) {
        const i = Math.floor((r.hourStart - start) / size)
        const own = byRm.get(r.rm) ?? { calls: zeros(), errors: zeros() }
        byRm.set(r.rm, own)
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
        shopFront: byRm.get(SHOP_FRONT_RM) ?? { calls: zeros(), errors: zeros() },
        students: studentsOf(g, byRm.keys()).map((m) => ({ rm: m.rm, name: m.name, ...(byRm.get(m.rm) ?? { calls: zeros(), errors: zeros() }) })),
      }
    }),
  }
}
