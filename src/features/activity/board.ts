import { stores } from '../../kernel/auth/tables'
import { isoTime, today as todayOf } from '../../kernel/clock'
import type { Deps } from '../../kernel/deps'
import { failingEndpoints } from '../webhooks'
import type { ClassBoard } from './model'
import { activityReport } from './report'
import { DAY, HOUR } from './scope'

const rate = (errors: number, calls: number) => (calls === 0 ? 0 : Math.round((errors / calls) * 1000) / 1000)

/**
 * The class at a glance, for the projector: per group, today's calls and errors (the current day of the
 * clock's time zone, as the report counts), its last call today, the members who have made none today,
 * and its webhook endpoints with failed attempts in the last 24 hours.
 *
 * The group's own figures (secret key, students' tokens) and its shop front's (publishable key) are
 * apart: anyone who opens the shop page can copy its key and flood it, and the 429s its own bucket
 * answers must not paint the group's work as failing.
 */
export function classBoard(deps: Deps): ClassBoard {
  const now = deps.clock.now()
  const today = todayOf(deps.clock, now)
  // Counts are kept per hour: the hour holding the next midnight is the next day's (a zone whose offset is not whole hours).
  const report = activityReport(deps, { from: today.shown.from, to: isoTime(today.to - (today.to % HOUR)) })
  const storeOf = new Map(deps.db.select({ id: stores.id, groupId: stores.groupId }).from(stores).all().map((s) => [s.groupId, s.id]))
  return {
    today: today.shown,
    at: isoTime(now),
    groups: report.groups.map((g) => {
      const storeId = storeOf.get(g.groupId)
      const calls = g.calls - g.shopFront.calls
      const errors = g.errors - g.shopFront.errors
      return {
        groupId: g.groupId,
        name: g.name,
        callsToday: calls,
        errorsToday: errors,
        errorRate: rate(errors, calls),
        shopFront: { callsToday: g.shopFront.calls, errorsToday: g.shopFront.errors, errorRate: rate(g.shopFront.errors, g.shopFront.calls) },
        lastCallAt: g.lastCallAt,
        members: g.students.filter((s) => s.member).length,
        silentStudents: g.students.filter((s) => s.calls === 0 && s.member).map(({ rm, name }) => ({ rm, name })),
        failingWebhooks: storeId ? failingEndpoints(deps, { storeId }, now - DAY).map(({ url, failed }) => ({ url, failed })) : [],
      }
    }),
  }
}

