import { Elysia } from 'elysia'
import { authMacro } from '../../kernel/auth/macro'
import { ErrorEnvelope } from '../../kernel/errors'
import { GroupIdParams } from '../groups'
import type { UploadDeps } from '../media'
import type { CatalogDeps } from '../catalog'
import type { OrdersDeps } from '../orders'
import { ResetResult, SeedBody, SeedResult } from './model'
import { resetStore } from './reset'
import { seedDemo } from './seed'

const tags = ['Admin']

/** The teacher's classroom operations on a store. */
export const classroomRoutes = (deps: OrdersDeps & UploadDeps & CatalogDeps) =>
  new Elysia({ prefix: '/admin/groups/:id' })
    .use(authMacro)
    .post(
      '/seed-demo',
      async ({ params, body, set }) => {
        const result = await seedDemo(deps, params.id, body?.seed)
        set.status = 201
        return result
      },
      {
        admin: true,
        params: GroupIdParams,
        body: SeedBody,
        response: { 201: SeedResult, 404: ErrorEnvelope, 409: ErrorEnvelope, 413: ErrorEnvelope },
        detail: {
          tags,
          summary: "Fill a group's empty store with a demo catalog",
          description:
            '3 categories, 4 brands, 2 collections, 40 products (most PUBLISHED) with size variants and a picture each, and 3 customers with 2 paid orders each and a review of their first purchase, through the same rules as the API. The same `seed` gives the same catalog. A store that already has products is 409: reset it first. One seed runs per store at a time (409 for a second). The seed takes a few seconds, and the group\u2019s own requests may write meanwhile: one that takes a SKU or an e-mail the demo makes stops the seed partway, a 409 that says so; what it made stays, and a reset then a new seed start over. Its 40 pictures go into the store\u2019s media library: a quota too full for them is 413 QUOTA_EXCEEDED.',
        },
      },
    )
    .post('/reset-store', ({ params }) => resetStore(deps, params.id), {
      admin: true,
      params: GroupIdParams,
      response: { 200: ResetResult, 404: ErrorEnvelope, 409: ErrorEnvelope },
      detail: {
        tags,
        summary: "Empty a group's store",
        description:
          "Removes the store's catalog, media (files too), customers, carts, orders, reviews and webhooks in one transaction. Members, API keys, settings, activity counts and the store's listen secret (storefront listen, GET /v1/webhooks/listen) stay. Uploads running for the store when it is reset are 409 CONFLICT and keep nothing. While seed-demo is filling the store, a reset is 409: reset it once seed-demo has answered.",
      },
    })
