import { AppError } from '../../kernel/errors'
import { fromCents, MAX_CART_LINES, MAX_LINE_QUANTITY, MAX_PRICE, MAX_PRICE_CENTS } from '../../kernel/money'

// The bounds of kernel/money.ts as a cart meets them, so that every total of a cart and of the order it
// becomes is exact. Adds and changes are checked here; checkout checks again, for rows written before
// the bounds existed (those can still be read, but not bought).

interface Line {
  id?: string
  variantId: string
  sku: string
  priceCents: number
  quantity: number
}

export function tooManyLines(lines: number, fix: string): AppError {
  return new AppError('CONFLICT', `The cart has ${lines} lines, and a cart holds at most ${MAX_CART_LINES}. ${fix}`, [{ lines, limit: MAX_CART_LINES }])
}

export function lineTooLarge(line: Line, fix: string): AppError {
  return new AppError(
    'CONFLICT',
    `The cart line of variant ${line.sku} would hold ${line.quantity} units, and a line holds at most ${MAX_LINE_QUANTITY}. ${fix}`,
    [{ variantId: line.variantId, sku: line.sku, quantity: line.quantity, limit: MAX_LINE_QUANTITY }],
  )
}

/** A variant priced before the price bound existed: it can be read, not bought, until its price is lowered. */
export function assertPriceWithinLimit(line: Omit<Line, 'quantity'>) {
  if (line.priceCents <= MAX_PRICE_CENTS) return
  throw new AppError(
    'CONFLICT',
    `Variant ${line.sku} costs ${fromCents(line.priceCents)}, above ${MAX_PRICE}, the highest price a variant can have (it was priced before that limit), so it cannot be bought. Lower its price first: PATCH /v1/variants/${line.variantId} {"price": ${MAX_PRICE}}.`,
    [{ variantId: line.variantId, sku: line.sku, price: fromCents(line.priceCents), limit: MAX_PRICE }],
  )
}

/** Checkout's check: the whole cart within every bound, or 409 naming the first one broken. */
export function assertCartWithinLimits(lines: readonly Line[]) {
  if (lines.length > MAX_CART_LINES) throw tooManyLines(lines.length, 'Remove lines (DELETE /v1/cart/items/:id) and check out again.')
  for (const line of lines) {
    assertPriceWithinLimit(line)
    if (line.quantity > MAX_LINE_QUANTITY) {
      throw lineTooLarge(line, `Lower it (PATCH /v1/cart/items/${line.id} {"quantity": ${MAX_LINE_QUANTITY}}) and check out again.`)
    }
  }
}
