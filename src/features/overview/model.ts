import { z } from 'zod'
import { todaySchema } from '../../kernel/day-schema'
import { KeyListItem } from '../api-keys/model'
import { LOW_STOCK_COUNTED, ProductStateSchema } from '../catalog/model'
import { OrderStatus } from '../orders/model'

/** Low-stock variants listed at most; `total` says how many there are. */
export const LOW_STOCK_SHOWN = 20
/** Failed webhook attempts count over this window. */
export const FAILING_WINDOW_HOURS = 24

const countsOf = <T extends readonly string[]>(states: T) =>
  z.object(Object.fromEntries(states.map((s) => [s, z.number().int()])) as { [K in T[number]]: z.ZodNumber })

export const Overview = z
  .object({
    today: todaySchema('the `paidToday` figures'),
    products: countsOf(ProductStateSchema.options).describe('live products per state'),
    orders: z.object({
      byStatus: countsOf(OrderStatus.options),
      paidToday: z.object({ orders: z.number().int(), amount: z.number().describe('their totals added, in `currency`; later refunds are not taken off') }).describe('orders paid during `today`'),
      currency: z.string(),
    }),
    lowStock: z
      .object({
        total: z.number().int().describe(`variants at or below their minStock, counted up to ${LOW_STOCK_COUNTED + 1} (more than ${LOW_STOCK_COUNTED} reads ${LOW_STOCK_COUNTED + 1})`),
        data: z.array(
          z.object({
            variantId: z.string(),
            productId: z.string(),
            productName: z.string(),
            sku: z.string(),
            available: z.number().int().describe('stock minus the units reserved by pending orders'),
            minStock: z.number().int(),
          }),
        ),
      })
      .describe(`the ${LOW_STOCK_SHOWN} variants furthest below their minStock (available = stock minus reserved), furthest first`),
    webhooks: z
      .object({
        failing: z.array(z.object({ webhookId: z.string(), url: z.string(), failed: z.number().int(), lastFailedAt: z.string().nullable() })),
      })
      .describe(`endpoints with FAILED attempts in the last ${FAILING_WINDOW_HOURS} hours`),
    apiKeys: z.array(KeyListItem).describe('the active keys, with when each was last used'),
  })
  .meta({ id: 'StoreOverview' })
export type Overview = z.infer<typeof Overview>
