import { Elysia } from 'elysia'
import { authMacro } from '../../kernel/auth/macro'
import type { Deps } from '../../kernel/deps'
import { CSV_BOM } from '../../kernel/csv'
import { ErrorEnvelope } from '../../kernel/errors'
import { ActivityQuery, ActivityReport, ActivitySeries, ActivitySeriesQuery, ClassBoard, MAX_BUCKETS } from './model'
import { classBoard } from './board'
import { activityCsv, activityReport } from './report'
import { activitySeries } from './series'

export const activityRoutes = (deps: Deps) =>
  new Elysia({ prefix: '/admin' }).use(authMacro).get(
    '/activity',
    ({ query }) => {
      const report = activityReport(deps, query)
      if (query.format === 'json') return report
      return new Response(CSV_BOM + activityCsv(report, query.separator), {
        headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': 'attachment; filename="activity.csv"' },
      })
    },
    {
      admin: true,
      query: ActivityQuery,
      response: { 200: ActivityReport, 400: ErrorEnvelope, 404: ErrorEnvelope },
      detail: {
        tags: ['Admin'],
        responses: {
          200: {
            description: 'The report: JSON, or with format=csv a spreadsheet to save.',
            headers: { 'Content-Disposition': { $ref: '#/components/headers/Content-Disposition' } },
            content: { 'text/csv': { schema: { type: 'string', description: 'One row per student, plus an unattributed, a shop-front and a total row per group.' } } },
          },
        },
        summary: 'Calls per group and per student',
        description:
          'Every authenticated call counts for its group, and so does a call a route refuses with a live key or token of the group (the secret key on a buyer route without the customer\u2019s token, or on the store panel: an error); it counts for a student when made with that student\u2019s token, or with the secret key and the header X-Student-RM naming a member of the same group, in any case (it counts under the RM as kept; any other RM counts as unattributed). A call with the publishable key (alone or with a customer token) counts for the group\u2019s `shopFront`, never for a student, whatever X-Student-RM says: anyone who opens the shop page can copy that key. A group\u2019s `calls` and `errors` are its students\u2019, its unattributed calls and its shop front\u2019s together. `errors` counts responses with status 400 or above. Every current member is listed, even with zero calls; former members who made calls in the window are listed as "(no longer a member)". Counts are kept per hour. `format=csv` returns a spreadsheet with one row per student plus an unattributed, a shop-front ("(shop front)") and a total row per group. So that a name cannot become a spreadsheet formula, every CSV cell that starts with =, +, -, @, a tab or a carriage return is written with a leading apostrophe (=SUM(A1) arrives as \'=SUM(A1)); the rule holds for every cell alike, and the report has no negative numbers. Cells holding a comma, a semicolon, a tab, a double quote or a line break are quoted, with double quotes doubled, so each stays one cell in a spreadsheet that splits on semicolons (pt-BR) or tabs; lines end with CRLF. `separator=semicolon` splits the cells with semicolons, which a spreadsheet in Portuguese opens in columns. The file starts with a UTF-8 byte order mark (EF BB BF), without which Excel reads accented names as Windows-1252 (João as JoÃ£o); other spreadsheets and CSV readers skip it.',
      },
    },
   )
    .get('/activity/series', ({ query }) => activitySeries(deps, query), {
      admin: true,
      query: ActivitySeriesQuery,
      response: { 200: ActivitySeries, 400: ErrorEnvelope, 404: ErrorEnvelope },
      detail: {
        tags: ['Admin'],
        summary: 'Calls per group and per student over time, for a chart',
        description: `The counts of GET /v1/admin/activity per hour (default) or per calendar day of the server's time zone (bucket=day; \`timeZone\` names it), including the calls of the last second, with the shop front's (calls with the publishable key) apart in \`shopFront\` as there. The window defaults to the last 24 hours; it is widened to whole buckets, and \`times\` lists the start of each one, ascending, zero buckets included. Every array of counts has one number per entry of \`times\`. Every group (or only \`groupId\`, 404 NOT_FOUND when unknown) and every current member is listed even with all zeros. More than ${MAX_BUCKETS} buckets is 400 VALIDATION_ERROR: use bucket=day or a shorter window.`,
      },
    })
    .get('/board', () => classBoard(deps), {
      admin: true,
      response: { 200: ClassBoard },
      detail: {
        tags: ['Admin'],
        summary: 'The class at a glance',
        description:
          "One entry per group, by name, for the projector: today's calls and errors (the current calendar day in the server's time zone, named in `today.timeZone`; counted as GET /v1/admin/activity counts them, so a call shows within a second), the error rate, the last call today, the members with no call today, and the store's webhook endpoints with FAILED attempts in the last 24 hours. The panel's Class board polls it every few seconds. `callsToday`, `errorsToday` and `errorRate` are the group's own: calls with its secret key or its students' tokens. Calls with its publishable key are its shop front's, counted apart in `shopFront` with their own error rate: anyone who opens the shop page can copy that key, so a flood of it, answered 429 by the shop front's own rate limit, leaves the group's figures as they were. `callsToday + shopFront.callsToday` is the group's `calls` in the activity report for the day.",
      },
    })
