import { z } from 'zod'

/** Cart bodies (decisions §11). */

const Quantity = z.number().int('quantity must be a whole number').min(1, 'quantity must be at least 1').max(10_000, 'quantity can be at most 10000')

export const AddItemBody = z
  .object({
    variantId: z.string().min(1, 'variantId is required').describe("A variant id (var_...); a product's variants are listed in GET /v1/products/:id. A product id is never used here."),
    quantity: Quantity.default(1),
  })
  .strict()

export const ChangeItemBody = z.object({ quantity: Quantity }).strict()

export const ItemIdParams = z.object({ id: z.string() })

export const CartItem = z.object({
  id: z.string(),
  variantId: z.string(),
  productId: z.string(),
  name: z.string(),
  sku: z.string(),
  unitPrice: z.number(),
  quantity: z.number().int(),
  lineTotal: z.number(),
  available: z.number().int().describe('units that can be bought now; checkout refuses a line above it'),
})

export const Cart = z
  .object({ id: z.string(), items: z.array(CartItem), itemCount: z.number().int().describe('sum of the quantities'), subtotal: z.number(), currency: z.string() })
  .meta({ id: 'Cart' })
export type Cart = z.infer<typeof Cart>
