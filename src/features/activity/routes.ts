import { Elysia } from 'elysia'
import { authMacro } from '../../kernel/auth/macro'
import type { Deps } from '../../kernel/deps'
import { ErrorEnvelope } from '../../kernel/errors'
import { ActivityQuery, ActivityReport } from './model'
import { activityCsv, activityReport } from './report'

export const activityRoutes = (deps: Deps) =>
  new Elysia({ prefix: '/admin' }).use(authMacro).get(
    '/activity',
    ({ query }) => {
      const report = activityReport(deps, query)
      if (query.format === 'json') return report
      return new Response(activityCsv(report), {
        headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': 'attachment; filename="activity.csv"' },
      })
    },
    {
      admin: true,
      query: ActivityQuery,
      response: { 200: ActivityReport, 400: ErrorEnvelope, 404: ErrorEnvelope },
      detail: {
        tags: ['Admin'],
        summary: 'Calls per group and per student',
        description:
          'Every authenticated call counts for its group; it counts for a student when made with that student\u2019s token, or with the header X-Student-RM naming a member of the same group (any other RM counts as unattributed). `errors` counts responses with status 400 or above. Every current member is listed, even with zero calls; former members who made calls in the window are listed as "(no longer a member)". Counts are kept per hour. `format=csv` returns a spreadsheet with one row per student plus an unattributed and a total row per group.',
      },
    },
  )
