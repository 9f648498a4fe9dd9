import { Elysia } from 'elysia'
import { z } from 'zod'
import { authMacro } from '../../kernel/auth/macro'
import { ErrorEnvelope } from '../../kernel/errors'
import { GroupIdParams } from '../groups/model'
import type { OrdersDeps } from '../orders/expiry'
import { resetStore } from './reset'
import { seedDemo } from './seed'

const tags = ['Admin']

const SeedBody = z
  .object({ seed: z.number().int().min(0).max(2 ** 31).default(1).describe('the same seed gives the same demo catalog') })
  .strict()
  .optional()

const SeedResult = z.object({
  groupId: z.string(),
  storeId: z.string(),
  categories: z.number().int(),
  brands: z.number().int(),
  collections: z.number().int(),
  products: z.number().int(),
  variants: z.number().int(),
  images: z.number().int(),
  orders: z.number().int().describe('paid orders of the demo customers'),
  reviews: z.number().int().describe('reviews of the demo customers, one for the first purchase of each'),
  customers: z.array(z.object({ email: z.string(), password: z.string() })).describe('demo customers the class can log in as'),
})

const ResetResult = z.object({
  groupId: z.string(),
  storeId: z.string(),
  removed: z.record(z.string(), z.number().int()).describe('rows removed, per table'),
})

/** The teacher's classroom operations on a store. */
export const classroomRoutes = (deps: OrdersDeps) =>
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
        response: { 201: SeedResult, 404: ErrorEnvelope, 409: ErrorEnvelope },
        detail: {
          tags,
          summary: "Fill a group's empty store with a demo catalog",
          description:
            '3 categories, 4 brands, 2 collections, 40 products (most PUBLISHED) with size variants and a picture each, and 3 customers with 2 paid orders each and a review of their first purchase, through the same rules as the API. The same `seed` gives the same catalog. A store that already has products is 409: reset it first.',
        },
      },
    )
    .post('/reset-store', ({ params }) => resetStore(deps, params.id), {
      admin: true,
      params: GroupIdParams,
      response: { 200: ResetResult, 404: ErrorEnvelope },
      detail: {
        tags,
        summary: "Empty a group's store",
        description:
          "Removes the store's catalog, media (files too), customers, carts, orders, reviews and webhooks in one transaction. Members, API keys, settings and activity counts stay.",
      },
    })
