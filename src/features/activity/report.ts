import { and, eq, gte, lt, max, sql, sum } from 'drizzle-orm'
import { isoTime } from '../../kernel/clock'
import { type CsvSeparator, csvText, type CsvValue } from '../../kernel/csv'
import type { Deps } from '../../kernel/deps'
import type { ActivityQuery, ActivityReport } from './model'
import { activityWindow, firstGroupCreatedAt, groupsInScope, HOUR, studentsOf } from './scope'
import { activityCounts, SHOP_FRONT_RM } from './tables'

/**
 * Calls per group and per student. Counts are kept per hour, so `from` and `to` select
 * whole hours: the hour that contains `from` is included, and every hour that starts before `to`
 * (the default `to`, a moment after now, takes the current hour; a `to` on the hour leaves that hour out).
 * The answer's `from` and `to` are those hours' bounds, what was counted, not the times asked for:
 * a `to` of 21:30 counts the calls up to 22:00, and says so. The window starts by default at the hour
 * the first group was created in.
 */
export function activityReport(deps: Deps, query: Pick<ActivityQuery, 'from' | 'to' | 'groupId'>): ActivityReport {
  deps.activity.flush() // the report includes the calls of the last second
  const first = firstGroupCreatedAt(deps)
  // From the hour the first group was made in, as a `from` would be rounded: a `to` earlier in that
  // hour still counts it, since `to` is rounded up to the hour's end.
  const start =
    first === null
      ? { at: () => deps.clock.now(), what: 'now (no group exists yet)' }
      : { at: () => Math.floor(first / HOUR) * HOUR, what: `the start of the hour the first group was created in (${isoTime(first)})` }
  const asked = activityWindow(deps, query, start)
  const from = Math.floor(asked.from / HOUR) * HOUR
  const to = Math.ceil(asked.to / HOUR) * HOUR
  const groupRows = groupsInScope(deps, query.groupId)
  // One student's counts kept under their RM in two cases are one line: grouped by the folded RM
  // (lower() is countKey in SQL: RMs are ASCII), shown under one of the spellings kept.
  const folded = sql<string>`lower(${activityCounts.rm})`
  const counts = deps.db
    .select({
      groupId: activityCounts.groupId,
      key: folded,
      rm: sql<string>`min(${activityCounts.rm})`,
      calls: sum(activityCounts.calls).mapWith(Number),
      errors: sum(activityCounts.errors).mapWith(Number),
      lastCallAt: max(activityCounts.lastCallAt),
    })
    .from(activityCounts)
    .where(
      and(
        gte(activityCounts.hourStart, from),
        lt(activityCounts.hourStart, to),
        query.groupId ? eq(activityCounts.groupId, query.groupId) : undefined,
      ),
    )
    .groupBy(activityCounts.groupId, folded)
    .all()

  const at = (ms: number | null) => (ms === null ? null : isoTime(ms))
  return {
    from: isoTime(from),
    to: isoTime(to),
    groups: groupRows.map((g) => {
      const mine = counts.filter((c) => c.groupId === g.id)
      const byRm = new Map(mine.map((c) => [c.key, c]))
      const shopFront = byRm.get(SHOP_FRONT_RM)
      const lastCall = mine.reduce<number | null>((acc, c) => (c.lastCallAt !== null && (acc === null || c.lastCallAt > acc) ? c.lastCallAt : acc), null)
      return {
        groupId: g.id,
        name: g.name,
        calls: mine.reduce((n, c) => n + c.calls, 0),
        errors: mine.reduce((n, c) => n + c.errors, 0),
        lastCallAt: at(lastCall),
        unattributed: byRm.get('')?.calls ?? 0,
        unattributedErrors: byRm.get('')?.errors ?? 0,
        shopFront: { calls: shopFront?.calls ?? 0, errors: shopFront?.errors ?? 0, lastCallAt: at(shopFront?.lastCallAt ?? null) },
        students: studentsOf(g, byRm).map((m) => {
          const c = byRm.get(m.key)
          return { rm: m.rm, name: m.name, member: m.member, calls: c?.calls ?? 0, errors: c?.errors ?? 0, lastCallAt: at(c?.lastCallAt ?? null) }
        }),
      }
    }),
  }
}

/** One row per student, plus an unattributed, a shop-front and a total row per group. */
export function activityCsv(report: ActivityReport, separator: CsvSeparator = 'comma'): string {
  const rows: CsvValue[][] = [['group_id', 'group', 'rm', 'name', 'calls', 'errors', 'last_call_at']]
  for (const g of report.groups) {
    for (const s of g.students) rows.push([g.groupId, g.name, s.rm, s.name, s.calls, s.errors, s.lastCallAt])
    rows.push([g.groupId, g.name, '', '(unattributed)', g.unattributed, g.unattributedErrors, null])
    rows.push([g.groupId, g.name, '', '(shop front)', g.shopFront.calls, g.shopFront.errors, g.shopFront.lastCallAt])
    rows.push([g.groupId, g.name, '', '(group total)', g.calls, g.errors, g.lastCallAt])
  }
  return csvText(rows, separator)
}
