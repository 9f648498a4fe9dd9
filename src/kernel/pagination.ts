import { z } from 'zod'

/** `page` and `pageSize` of every list route: the same names, bounds and defaults everywhere. */
export const PageQuery = z.object({
  page: z.coerce
    .number({ error: 'page must be a whole number, 1 or more, e.g. page=2' })
    .int('page must be a whole number, 1 or more, e.g. page=2')
    .min(1, 'page starts at 1')
    .default(1)
    .describe('1-based page number'),
  pageSize: z.coerce
    .number({ error: 'pageSize must be a whole number from 1 to 100, e.g. pageSize=20' })
    .int('pageSize must be a whole number from 1 to 100, e.g. pageSize=20')
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
