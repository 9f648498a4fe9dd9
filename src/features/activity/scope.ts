import { asc, eq, sql } from 'drizzle-orm'
import { formerMembers, groups, students } from '../../kernel/auth/tables'
import { isoTime } from '../../kernel/clock'
import type { Deps } from '../../kernel/deps'
import { AppError } from '../../kernel/errors'
import { instantOfQuery } from '../../kernel/instant-query'
import { groupNotFound } from '../groups'
import { rmKey } from '../members'
import { SHOP_FRONT_RM } from './tables'

// What the report and the series share: the time window, the groups and members they cover.

export const HOUR = 3_600_000
export const DAY = 24 * HOUR
export const FORMER_MEMBER = '(no longer a member)'

/**
 * The window `[from, to)` in ms. A date alone as `to` includes that whole day; `to` defaults to now
 * (inclusive), `from` to what the caller says given `to`.
 */
export function activityWindow(deps: Deps, query: { from?: string; to?: string }, defaultFrom: { at: (to: number) => number; what: string }) {
  const to = query.to ? instantOfQuery(query.to, deps.clock.timeZone, true) : deps.clock.now() + 1
  const from = query.from ? instantOfQuery(query.from, deps.clock.timeZone) : defaultFrom.at(to)
  if (from < to) return { from, to }
  if (query.from && query.to) throw new AppError('VALIDATION_ERROR', '`from` must be before `to`.', [{ path: 'from', message: 'must be before to' }])
  // Only `from` was sent: the window ends now, which a date in the future is not before.
  if (query.from) {
    throw new AppError('VALIDATION_ERROR', `\`from\` is ${isoTime(from)}, not before now (${isoTime(to - 1)}), where the window ends when \`to\` is left out. Send an earlier \`from\`, or a \`to\` after it.`, [
      { path: 'from', message: 'must be before now when to is left out' },
    ])
  }
  // Only `to` was sent: the window's start is the default, which the caller may not know.
  throw new AppError('VALIDATION_ERROR', `\`to\` ends before ${isoTime(from)}, ${defaultFrom.what}, where the window starts when \`from\` is left out. Send a later \`to\`, or a \`from\` before it.`, [
    { path: 'to', message: `must be after ${isoTime(from)} when from is left out` },
  ])
}

/** When the first group was made, or null before there is any. */
export const firstGroupCreatedAt = (deps: Deps) =>
  deps.db.select({ at: sql<number | null>`min(${groups.createdAt})` }).from(groups).get()?.at ?? null

export interface ScopeGroup {
  id: string
  name: string
  members: { rm: string; name: string }[]
  /** The RM and name students had when they left the group, by rmKey (former_members). */
  former: Map<string, { rm: string; name: string }>
}

/** Every group by name (or only `groupId`, 404 when unknown) with its current members by RM. */
export function groupsInScope(deps: Deps, groupId: string | undefined): ScopeGroup[] {
  const rows = deps.db.select({ id: groups.id, name: groups.name }).from(groups).where(groupId ? eq(groups.id, groupId) : undefined).orderBy(asc(groups.name)).all()
  if (groupId && rows.length === 0) throw groupNotFound(groupId)
  const members = deps.db
    .select({ rm: students.rm, name: students.name, groupId: students.groupId })
    .from(students)
    .where(groupId ? eq(students.groupId, groupId) : undefined)
    .orderBy(asc(students.rm))
    .all()
  const former = deps.db
    .select({ rm: formerMembers.rm, name: formerMembers.name, groupId: formerMembers.groupId })
    .from(formerMembers)
    .where(groupId ? eq(formerMembers.groupId, groupId) : undefined)
    .all()
  return rows.map((g) => ({
    ...g,
    members: members.filter((m) => m.groupId === g.id).map(({ rm, name }) => ({ rm, name })),
    former: new Map(former.filter((f) => f.groupId === g.id).map((f) => [rmKey(f.rm), { rm: f.rm, name: f.name }])),
  }))
}

/**
 * Counts by RM as one student whatever case each was kept in (rmKey): a student removed and added
 * again as ra77x is the RA77X who made the earlier calls. '' (unattributed) and SHOP_FRONT_RM are keys too.
 */
export const countKey = rmKey

/**
 * The current members, then the former members who have counts in the window (`counted`: the
 * counts by countKey, each with an RM as kept; '' is unattributed and SHOP_FRONT_RM the shop front,
 * neither a member), each named as they were when they left, with FORMER_MEMBER after it
 * (FORMER_MEMBER alone where no name was kept: they left before names were). `key` finds a
 * student's counts.
 */
export function studentsOf(group: ScopeGroup, counted: ReadonlyMap<string, { rm: string }>) {
  const current = new Set(group.members.map((m) => countKey(m.rm)))
  const former = [...counted]
    .filter(([key]) => key !== '' && key !== SHOP_FRONT_RM && !current.has(key))
    .map(([key, count]) => {
      const left = group.former.get(key)
      return { key, rm: left?.rm ?? count.rm, name: left === undefined ? FORMER_MEMBER : `${left.name} ${FORMER_MEMBER}`, member: false }
    })
  return [...group.members.map((m) => ({ key: countKey(m.rm), ...m, member: true })), ...former]
}
