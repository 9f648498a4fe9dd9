import { Elysia } from 'elysia'
import { authMacro } from '../../kernel/auth/macro'
import type { Deps } from '../../kernel/deps'
import { LOW_STOCK_COUNTED } from '../catalog'
import { FAILING_WINDOW_HOURS, LOW_STOCK_SHOWN, Overview } from './model'
import { storeOverview } from './service'

export const overviewRoutes = (deps: Deps) =>
  new Elysia().use(authMacro).get('/store/overview', ({ ctx }) => storeOverview(deps, ctx), {
    auth: 'secret',
    response: { 200: Overview },
    detail: {
      tags: ['Store panel'],
      summary: 'The store at a glance',
      description: `Products per state; orders per status and the orders paid today (the current calendar day in the server's time zone, named in \`today.timeZone\`), with their total in the store's currency; the ${LOW_STOCK_SHOWN} variants furthest below their minStock (available = stock minus reserved units; counted up to ${LOW_STOCK_COUNTED + 1}); webhook endpoints with FAILED attempts in the last ${FAILING_WINDOW_HOURS} hours; and the active API keys with when each was last used. The panel's landing page shows it; the app's recent errors are in GET /v1/store/requests?status=4xx.`,
    },
  })
