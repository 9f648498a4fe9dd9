import { and, asc, eq, gte, lt, max, sql, sum } from 'drizzle-orm'
import { groups, students } from '../../kernel/auth/tables'
import { isoTime } from '../../kernel/clock'
import type { Deps } from '../../kernel/deps'
import { AppError } from '../../kernel/errors'
import { isDateOnly, type ActivityQuery, type ActivityReport } from './model'
import { activityCounts } from './tables'

const HOUR = 3_600_000
const DAY = 24 * HOUR
export const FORMER_MEMBER = '(no longer a member)'

function window(deps: Deps, query: ActivityQuery) {
  const firstGroup = deps.db.select({ at: sql<number | null>`min(${groups.createdAt})` }).from(groups).get()?.at
  const from = query.from ? Date.parse(query.from) : (firstGroup ?? deps.clock.now())
  const to = query.to ? Date.parse(query.to) + (isDateOnly(query.to) ? DAY : 0) : deps.clock.now() + 1
  if (from >= to) throw new AppError('VALIDATION_ERROR', '`from` must be before `to`.', [{ path: 'from', message: 'must be before to' }])
  return { from, to }
}

/**
 * Calls per group and per student (decisions §5). Counts are kept per hour, so `from` and `to` select
 * whole hours: the hour that contains `from` is included, the one that contains `to` is not.
 */
export function activityReport(deps: Deps, query: ActivityQuery): ActivityReport {
  deps.activity.flush() // the report includes the calls of the last second
  const { from, to } = window(deps, query)
  const groupFilter = query.groupId ? eq(groups.id, query.groupId) : undefined
  const groupRows = deps.db.select({ id: groups.id, name: groups.name }).from(groups).where(groupFilter).orderBy(asc(groups.name)).all()
  if (query.groupId && groupRows.length === 0) {
    throw new AppError('NOT_FOUND', `No group with id '${query.groupId}'. GET /v1/admin/groups lists them.`)
  }
  const members = deps.db
    .select({ rm: students.rm, name: students.name, groupId: students.groupId })
    .from(students)
    .where(query.groupId ? eq(students.groupId, query.groupId) : undefined)
    .orderBy(asc(students.rm))
    .all()
  const counts = deps.db
    .select({
      groupId: activityCounts.groupId,
      rm: activityCounts.rm,
      calls: sum(activityCounts.calls).mapWith(Number),
      errors: sum(activityCounts.errors).mapWith(Number),
      lastCallAt: max(activityCounts.lastCallAt),
    })
    .from(activityCounts)
    .where(
      and(
        gte(activityCounts.hourStart, from - (from % HOUR)),
        lt(activityCounts.hourStart, to),
        query.groupId ? eq(activityCounts.groupId, query.groupId) : undefined,
      ),
    )
    .groupBy(activityCounts.groupId, activityCounts.rm)
    .all()

  const at = (ms: number | null) => (ms === null ? null : isoTime(ms))
  return {
    from: isoTime(from),
    to: isoTime(to),
    groups: groupRows.map((g) => {
      const mine = counts.filter((c) => c.groupId === g.id)
      const byRm = new Map(mine.map((c) => [c.rm, c]))
      const current = members.filter((m) => m.groupId === g.id)
      const former = mine.filter((c) => c.rm !== '' && !current.some((m) => m.rm === c.rm)).map((c) => ({ rm: c.rm, name: FORMER_MEMBER }))
      const lastCall = mine.reduce<number | null>((acc, c) => (c.lastCallAt !== null && (acc === null || c.lastCallAt > acc) ? c.lastCallAt : acc), null)
      return {
        groupId: g.id,
        name: g.name,
        calls: mine.reduce((n, c) => n + c.calls, 0),
        errors: mine.reduce((n, c) => n + c.errors, 0),
        lastCallAt: at(lastCall),
        unattributed: byRm.get('')?.calls ?? 0,
        students: [...current, ...former].map((m) => {
          const c = byRm.get(m.rm)
          return { rm: m.rm, name: m.name, calls: c?.calls ?? 0, errors: c?.errors ?? 0, lastCallAt: at(c?.lastCallAt ?? null) }
        }),
      }
    }),
  }
}

const csvField = (v: string | number | null) => {
  const s = v === null ? '' : String(v)
  return /[",\n\r]/.test(s) || /^[=+\-@]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}

/** One row per student, plus an unattributed row and a total row per group. */
export function activityCsv(report: ActivityReport): string {
  const rows: (string | number | null)[][] = [['group_id', 'group', 'rm', 'name', 'calls', 'errors', 'last_call_at']]
  for (const g of report.groups) {
    for (const s of g.students) rows.push([g.groupId, g.name, s.rm, s.name, s.calls, s.errors, s.lastCallAt])
    rows.push([g.groupId, g.name, '', '(unattributed)', g.unattributed, null, null])
    rows.push([g.groupId, g.name, '', '(group total)', g.calls, g.errors, g.lastCallAt])
  }
  return rows.map((r) => r.map(csvField).join(',')).join('\r\n') + '\r\n'
}
