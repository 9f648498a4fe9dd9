import { z } from 'zod'

/** A whole number in the query string; a word or a fraction is refused with `message`, which shows a good value. */
export const wholeNumberQuery = (message: string) => z.coerce.number({ error: message }).int(message)

/** `pageSize`, 1 to 100, `fallback` when not given. */
const pageSize = (fallback: number) =>
  wholeNumberQuery('pageSize must be a whole number from 1 to 100, e.g. pageSize=20')
    .min(1, 'pageSize must be at least 1')
    .max(100, 'pageSize can be at most 100; ask for the next page instead')
    .default(fallback)
    .describe(`items per page, 1 to 100 (${fallback} when not given)`)

/** `page` and `pageSize` of every list route: the same names, bounds and defaults everywhere. */
// Strict, and so is every query extended from it: a parameter a route does not take is a 400 naming
// those it takes (validation.ts), not a filter silently left out (a `q` where the route takes `search`).
export const PageQuery = z.strictObject({
  page: wholeNumberQuery('page must be a whole number, 1 or more, e.g. page=2')
    .min(1, 'page starts at 1')
    .default(1)
    .describe('1-based page number'),
  pageSize: pageSize(20),
})

export type PageQuery = z.infer<typeof PageQuery>

/**
 * The query of a list that is short by rule (a store's keys, a group's members, the event names): it
 * takes `page` and `pageSize` like every list, so a client's one pager reads it too, but a page is 100
 * items unless asked otherwise, so that without them the whole list comes.
 */
export const ShortListQuery = PageQuery.extend({ pageSize: pageSize(100) })

export const pageWindow = ({ page, pageSize }: PageQuery) => ({ limit: pageSize, offset: (page - 1) * pageSize })

/** A page of a short list (ShortListQuery), read whole and cut here, as a query cuts the others (pageWindow). */
export function pageOfAll<T>(all: T[], query: PageQuery) {
  const { limit, offset } = pageWindow(query)
  return toPage(all.slice(offset, offset + limit), all.length, query)
}

export const Page = <T extends z.ZodType>(item: T) =>
  z.object({
    data: z.array(item),
    page: z.number().int(),
    pageSize: z.number().int(),
    total: z.number().int().describe('items over all pages'),
  })

export const toPage = <T>(data: T[], total: number, { page, pageSize }: PageQuery) => ({ data, page, pageSize, total })
