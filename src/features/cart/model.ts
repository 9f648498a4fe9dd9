import { z } from 'zod'
import { idRef } from '../../kernel/id-schema'
import { MAX_CART_LINES, MAX_LINE_QUANTITY } from '../../kernel/money'

// Cart bodies.

const Quantity = z
  .number()
  .int('quantity must be a whole number')
  .min(1, 'quantity must be at least 1')
  .max(MAX_LINE_QUANTITY, `quantity can be at most ${MAX_LINE_QUANTITY}, the most units a cart line holds`)

export const AddItemBody = z
  .object({
    variantId: idRef('variantId').min(1, 'variantId is required').describe("A variant id (var_...); a product's variants are listed in GET /v1/products/:id. A product id is never used here."),
    quantity: Quantity.default(1).describe(`units to add to the line of this variant; the line holds at most ${MAX_LINE_QUANTITY} units, and a cart at most ${MAX_CART_LINES} lines`),
  })
  .strict()

export const ChangeItemBody = z.object({ quantity: Quantity.describe(`the new quantity of the line, 1 to ${MAX_LINE_QUANTITY}`) }).strict()

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
