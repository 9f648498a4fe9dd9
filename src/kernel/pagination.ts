import { z } from 'zod'

/** A whole number in the query string; a word or a fraction is refused with `message`, which shows a good value. */
export const wholeNumberQuery = (message: string) => z.coerce.number({ error: message }).int(message)

/** `page` and `pageSize` of every list route: the same names, bounds and defaults everywhere. */
// Strict, and so is every query extended from it: a parameter a route does not take is a 400 naming
// those it takes (validation.ts), not a filter silently left out (a `q` where the route takes `search`).
export const PageQuery = z.strictObject({
  page: wholeNumberQuery('page must be a whole number, 1 or more, e.g. page=2')
    .min(1, 'page starts at 1')
    .default(1)
    .describe('1-based page number'),
  pageSize: wholeNumberQuery('pageSize must be a whole number from 1 to 100, e.g. pageSize=20')
    .min(1, 'pageSize must be at least 1')
    .max(100, 'pageSize can be at most 100; ask for the next page instead')
    .default(20)
    .describe('items per page, 1 to 100'),
})

export type PageQuery = z.infer<typeof PageQuery>

export const pageWindow = ({ page, pageSize }: PageQuery) => ({ limit: pageSize, offset: (page - 1) * pageSize })

export const Page = <T extends z.ZodType>(item: T) =>
  z.object({
    data: z.array(item),
    page: z.number().int(),
    pageSize: z.number().int(),
    total: z.number().int().describe('items over all pages'),
  })

export const toPage = <T>(data: T[], total: number, { page, pageSize }: PageQuery) => ({ data, page, pageSize, total })
