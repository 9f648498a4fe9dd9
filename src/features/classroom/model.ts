import { z } from 'zod'

export const SeedBody = z
  .object({ seed: z.number().int().min(0).max(2 ** 31).default(1).describe('the same seed gives the same demo catalog') })
  .strict()
  .optional()

export const SeedResult = z.object({
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

export const ResetResult = z.object({
  groupId: z.string(),
  storeId: z.string(),
  removed: z.record(z.string(), z.number().int()).describe('rows removed, per table'),
})
