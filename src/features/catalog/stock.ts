import { and, count, desc, eq, isNull, or, sql } from 'drizzle-orm'
import type { StoreCtx } from '../../kernel/auth/kinds'
import type { Sql, Tx } from '../../kernel/db/database'
import { perHandle } from '../../kernel/db/per-handle'
import { withParams } from '../../kernel/db/prepared'
import type { Deps } from '../../kernel/deps'
import { AppError } from '../../kernel/errors'
import { findVariant } from './find'
import { MAX_STOCK } from './model'
import { pageWindow, toPage, type PageQuery } from '../../kernel/pagination'
import { stockMovements, variants, type StockMovementKind } from './tables'
import { toMovement } from './views'
import { pluralize } from '../../kernel/plural'

// The one way a variant's stock or reservation changes: each movement writes the
// ledger row with the levels it left, and `product.low_stock` when available falls to minStock or
// below from above it, all in the caller's transaction. Orders call it for RESERVE, RELEASE, SALE
// and RETURN; the stock endpoints for RECEIVE and ADJUST.

/** What one unit of each kind does to stock and to reserved. */
const EFFECT: Record<StockMovementKind, { stock: number; reserved: number }> = {
  RECEIVE: { stock: 1, reserved: 0 },
  ADJUST: { stock: 1, reserved: 0 },
  RESERVE: { stock: 0, reserved: 1 },
  RELEASE: { stock: 0, reserved: -1 },
  SALE: { stock: -1, reserved: -1 },
  RETURN: { stock: 1, reserved: 0 },
}

export interface StockMove {
  variantId: string
  kind: StockMovementKind
  /** Signed for ADJUST; a positive number of units for every other kind. */
  quantity: number
  reason: string | null
  orderId?: string
}

type VariantRow = typeof variants.$inferSelect

const p = sql.placeholder

/*
 * A move is one guarded UPDATE ... RETURNING and the ledger row: the levels change only if they stay
 * within the rules, so the variant need not be read first. When no row comes back, the move was refused
 * (or the variant is not there), and only then is the variant read, to say why.
 */
const statements = perHandle((db: Sql) => ({
  move: withParams<{ id: string; storeId: string; stock: number; reserved: number; now: number; anyState: boolean; max: number }>()(
    db
      .update(variants)
      .set({ stock: sql`${variants.stock} + ${p('stock')}`, reserved: sql`${variants.reserved} + ${p('reserved')}`, updatedAt: sql`${p('now')}` })
      .where(
        and(
          eq(variants.id, p('id')),
          eq(variants.storeId, p('storeId')),
          or(sql`${p('anyState')}`, isNull(variants.deletedAt)),
          sql`${variants.reserved} + ${p('reserved')} between 0 and ${variants.stock} + ${p('stock')}`,
          sql`(${p('stock')} <= 0 or ${variants.stock} + ${p('stock')} <= ${p('max')})`,
        ),
      )
      .returning()
      .prepare(),
  ),
  ledger: withParams<{ storeId: string; variantId: string; kind: StockMovementKind; quantity: number; stockAfter: number; reservedAfter: number; reason: string | null; orderId: string | null; now: number }>()(
    db
      .insert(stockMovements)
      .values({
        storeId: p('storeId'),
        variantId: p('variantId'),
        kind: p('kind'),
        quantity: p('quantity'),
        stockAfter: p('stockAfter'),
        reservedAfter: p('reservedAfter'),
        reason: p('reason'),
        orderId: p('orderId'),
        createdAt: p('now'),
      })
      .prepare(),
  ),
}))

export function moveStock(tx: Tx, deps: Deps, ctx: StoreCtx, move: StockMove): VariantRow {
  const { kind, quantity } = move
  if (!Number.isInteger(quantity) || quantity === 0 || (kind !== 'ADJUST' && quantity < 0)) {
    throw new Error(`moveStock: invalid quantity ${quantity} for ${kind}`)
  }
  const q = statements(tx)
  // An order may still hold units of a variant deleted since checkout: those moves must find it.
  const anyState = kind === 'RELEASE' || kind === 'SALE' || kind === 'RETURN'
  // Not a RETURN: a refund puts back units that were sold, and is never refused for it.
  const max = kind === 'RECEIVE' || kind === 'ADJUST' ? MAX_STOCK : Number.MAX_SAFE_INTEGER
  const delta = { stock: EFFECT[kind].stock * quantity, reserved: EFFECT[kind].reserved * quantity }
  const now = deps.clock.now()
  // The CHECK constraint on variants holds the same line, should this code ever be wrong.
  const after = q.move.get({ id: move.variantId, storeId: ctx.storeId, ...delta, now, anyState, max })
  if (!after) throw whyRefused(tx, ctx, move, anyState, delta, max)
  q.ledger.run({
    storeId: ctx.storeId,
    variantId: after.id,
    kind,
    quantity,
    stockAfter: after.stock,
    reservedAfter: after.reserved,
    reason: move.reason,
    orderId: move.orderId ?? null,
    now,
  })
  const availableBefore = after.stock - delta.stock - (after.reserved - delta.reserved)
  const available = after.stock - after.reserved
  if (availableBefore > after.minStock && available <= after.minStock) {
    deps.outbox.emit(tx, ctx.storeId, 'product.low_stock', {
      productId: after.productId,
      variantId: after.id,
      sku: after.sku,
      available,
      minStock: after.minStock,
    })
  }
  return after
}

/** Why a move changed nothing: the variant is not there (404, or an error for a held one), or the levels would break a rule. */
function whyRefused(tx: Sql, ctx: StoreCtx, move: StockMove, anyState: boolean, delta: { stock: number; reserved: number }, max: number): Error {
  const before = anyState ? heldVariant(tx, ctx, move.variantId) : findVariant(tx, ctx, move.variantId)
  const stock = before.stock + delta.stock
  const reserved = before.reserved + delta.reserved
  if (reserved < 0 || reserved > stock) return refusal(before, move)
  if (delta.stock > 0 && stock > max) return overLimit(before, move.quantity)
  return new Error(`moveStock: the move of variant ${before.id} was not made, and no rule refuses it`)
}

function heldVariant(tx: Sql, ctx: StoreCtx, id: string): VariantRow {
  const row = tx.select().from(variants).where(and(eq(variants.id, id), eq(variants.storeId, ctx.storeId))).get()
  if (!row) throw new Error(`moveStock: variant ${id} is not in store ${ctx.storeId}`)
  return row
}

function refusal(v: VariantRow, move: StockMove): AppError {
  const available = v.stock - v.reserved
  const levels = `${v.stock} in stock, ${v.reserved} reserved by pending orders, ${available} available`
  const details = [{ variantId: v.id, sku: v.sku, requested: Math.abs(move.quantity), stock: v.stock, reserved: v.reserved, available }]
  if (move.kind === 'ADJUST') {
    const floor = v.reserved === 0 ? 'zero' : `the ${pluralize(v.reserved, 'unit')} reserved by pending orders (cancel or wait for them)`
    return new AppError(
      'INSUFFICIENT_STOCK',
      `Variant ${v.sku} has ${levels}: stock cannot fall below ${floor}, so the largest reduction now is ${-available}. Adjust by less.`,
      details,
    )
  }
  if (move.kind === 'RESERVE') {
    return new AppError('INSUFFICIENT_STOCK', `Only ${available} of variant ${v.sku} available (${levels}); ${move.quantity} requested.`, details)
  }
  return new AppError('CONFLICT', `Cannot ${move.kind.toLowerCase()} ${pluralize(move.quantity, 'unit')} of variant ${v.sku}: it has ${levels}.`, details)
}

function overLimit(v: VariantRow, quantity: number): AppError {
  const room = Math.max(0, MAX_STOCK - v.stock)
  return new AppError(
    'CONFLICT',
    `Variant ${v.sku} has ${v.stock} in stock, and a variant holds at most ${MAX_STOCK} units: ${quantity} more would pass it. Add at most ${room}.`,
    [{ variantId: v.id, sku: v.sku, requested: quantity, stock: v.stock, limit: MAX_STOCK }],
  )
}

export function listMovements(deps: Deps, ctx: StoreCtx, variantId: string, query: PageQuery) {
  findVariant(deps.db, ctx, variantId)
  const { limit, offset } = pageWindow(query)
  const where = and(eq(stockMovements.variantId, variantId), eq(stockMovements.storeId, ctx.storeId))
  const rows = deps.db.select().from(stockMovements).where(where).orderBy(desc(stockMovements.id)).limit(limit).offset(offset).all()
  const [{ n }] = deps.db.select({ n: count() }).from(stockMovements).where(where).all() as [{ n: number }]
  return toPage(rows.map(toMovement), n, query)
}
