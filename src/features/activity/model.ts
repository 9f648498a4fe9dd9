import { z } from 'zod'
import { timeZoneField, todaySchema } from '../../kernel/day-schema'
import { idOfKind } from '../../kernel/id-schema'
import { INSTANT_FORMS, instantQuery } from '../../kernel/instant-query'

const MemberFlag = z.boolean().describe('false for a former member: removed from the group, or moved to another by a class list')
const FORMER_MEMBERS_RULE =
  'every current member, even with no calls; then each former member with calls in the window, which stay counted for the group they were made for: named as when they left, followed by "(no longer a member)"'

const to = instantQuery('to').optional().describe(`end, exclusive; a date alone includes that whole day (default: now). ${INSTANT_FORMS}`)
const groupId = idOfKind('groupId', 'group').optional().describe('only this group (404 NOT_FOUND when no group has this id; 400 for an id of another kind, such as a store id)')

export const ActivityQuery = z.strictObject({
  from: instantQuery('from').optional().describe('start, inclusive (default: the hour the first group was created in). Counts are kept per hour: `from` is rounded down to its hour, `to` up to a whole hour, and the answer says the hours counted'),
  to,
  groupId,
  format: z.enum(['json', 'csv']).default('json').describe('csv for a spreadsheet'),
  separator: z
    .enum(['comma', 'semicolon'], { error: 'separator must be comma or semicolon' })
    .default('comma')
    .describe('with format=csv, what splits the cells: semicolon for a spreadsheet in a language that writes decimals with a comma (Excel in Portuguese opens a comma-separated file as one column)'),
})
export type ActivityQuery = z.infer<typeof ActivityQuery>

const Counts = { calls: z.number().int(), errors: z.number().int().describe('responses with status >= 400'), lastCallAt: z.string().nullable() }

export const ActivityReport = z.object({
  from: z.string().describe('start of the first hour counted: the requested `from` rounded down to its hour'),
  to: z.string().describe('end of the last hour counted, exclusive: the requested `to` rounded up to a whole hour (may lie after now: the current hour is still filling)'),
  groups: z.array(
    z.object({
      groupId: z.string(),
      name: z.string(),
      ...Counts,
      unattributed: z.number().int().describe('calls with the secret key and neither an X-Student-RM nor a student token of a member of this group'),
      unattributedErrors: z.number().int().describe('those of the unattributed calls answered with a status >= 400 (the group\u2019s errors are its students\u2019, the shop front\u2019s and these)'),
      shopFront: z
        .object(Counts)
        .describe(
          'calls made with the publishable key (alone or with a customer token), whatever X-Student-RM says: the shop front in a browser page, which anyone who opens the page can copy the key from. Included in the group\u2019s calls, errors and lastCallAt; never in a student\u2019s',
        ),
      students: z
        .array(z.object({ rm: z.string(), name: z.string(), member: MemberFlag, ...Counts }))
        .describe(FORMER_MEMBERS_RULE),
    }),
  ),
})
export type ActivityReport = z.infer<typeof ActivityReport>

/** A series has at most this many buckets: 31 days of hours. */
export const MAX_BUCKETS = 744

export const ActivitySeriesQuery = z.strictObject({
  from: instantQuery('from').optional().describe('start, inclusive; rounded down to the start of its bucket (default: 24 hours before `to`)'),
  to,
  groupId,
  bucket: z
    .enum(['hour', 'day'], { error: 'bucket must be hour or day' })
    .default('hour')
    .describe(`size of each point of the series; days are the calendar days of the server's time zone (\`timeZone\` in the answer), 23 to 25 hours across a daylight-saving change. At most ${MAX_BUCKETS} buckets: for a longer window use bucket=day`),
})
export type ActivitySeriesQuery = z.infer<typeof ActivitySeriesQuery>

const series = (what: string) => z.array(z.number().int()).describe(`${what}, one number per entry of \`times\`, in the same order`)

export const ActivitySeries = z
  .object({
    from: z.string().describe('start of the first bucket (the requested `from` rounded down to the start of its hour or day)'),
    to: z.string().describe('end of the last bucket, exclusive (may lie after now: the current bucket is still filling)'),
    bucket: z.enum(['hour', 'day']),
    timeZone: timeZoneField(),
    times: z.array(z.string()).describe('the ISO start of every bucket in the window, ascending; buckets without calls are included'),
    groups: z.array(
      z.object({
        groupId: z.string(),
        name: z.string(),
        calls: series('every call of the group'),
        errors: series('responses with status >= 400'),
        unattributed: series('calls with the secret key and neither an X-Student-RM nor a student token of a member of this group'),
        shopFront: z
          .object({ calls: series('calls with the publishable key, whatever X-Student-RM says'), errors: series('their responses with status >= 400') })
          .describe('the shop front: calls with the publishable key, included in the group\u2019s calls and errors, never in a student\u2019s'),
        students: z
          .array(z.object({ rm: z.string(), name: z.string(), member: MemberFlag, calls: series('calls of this student'), errors: series('their responses with status >= 400') }))
          .describe(FORMER_MEMBERS_RULE),
      }),
    ),
  })
  .meta({ id: 'ActivitySeries' })
export type ActivitySeries = z.infer<typeof ActivitySeries>

export const ClassBoard = z
  .object({
    today: todaySchema('the counts'),
    at: z.string().describe('when the board was read'),
    groups: z.array(
      z.object({
        groupId: z.string(),
        name: z.string(),
        callsToday: z.number().int().describe("the group's own calls today: with its secret key or its students' tokens (its shop front's are in shopFront)"),
        errorsToday: z.number().int().describe('answers with status >= 400 to those calls'),
        errorRate: z.number().describe('errorsToday / callsToday, 0 to 1 (0 with no calls)'),
        shopFront: z
          .object({
            callsToday: z.number().int().describe('calls with the publishable key today'),
            errorsToday: z.number().int().describe('answers with status >= 400 to those calls, 429s of their own rate limit included'),
            errorRate: z.number().describe('errorsToday / callsToday, 0 to 1 (0 with no calls)'),
          })
          .describe("the group's shop front, counted apart: anyone who opens its page can copy the publishable key"),
        lastCallAt: z.string().nullable().describe('the last call today, its shop front\u2019s included, or null'),
        members: z.number().int().describe('how many members the group has now (0 after its last one was removed or moved)'),
        silentStudents: z.array(z.object({ rm: z.string(), name: z.string() })).describe('current members with no call today'),
        failingWebhooks: z.array(z.object({ url: z.string(), failed: z.number().int() })).describe('endpoints with FAILED attempts in the last 24 hours'),
      }),
    ),
  })
  .meta({ id: 'ClassBoard' })
export type ClassBoard = z.infer<typeof ClassBoard>
