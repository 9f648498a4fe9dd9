import { and, asc, count, eq, inArray, ne, type SQL } from 'drizzle-orm'
import type { StoreCtx } from '../../kernel/auth/kinds'
import { isoTime } from '../../kernel/clock'
import { isUniqueViolation, writeTransaction, type Sql, type Tx } from '../../kernel/db/database'
import { foldedName, sameName } from '../../kernel/db/folded'
import type { Deps } from '../../kernel/deps'
import { AppError, notFound } from '../../kernel/errors'
import { pageWindow, toPage, type PageQuery } from '../../kernel/pagination'
import { TAXONOMIES, type TaxonomyKind, type Term, type TermInput, type TermUpdate } from './model'
import type { categories } from './tables'

// Categories, brands and collections: one implementation for the three. Deleting a
// term keeps its products: their categoryId or brandId becomes null, collection links go (FK actions).

// The three tables have the same columns, so one of them types them all.
const tableOf = (kind: TaxonomyKind) => TAXONOMIES[kind].table as typeof categories

/** Each kind's name as its list sorts it (folded.ts), built once. */
const SORTED_NAME = Object.fromEntries(Object.keys(TAXONOMIES).map((kind) => [kind, foldedName(tableOf(kind as TaxonomyKind).name)])) as Record<TaxonomyKind, SQL>

const listRoute = (kind: TaxonomyKind) => `GET /v1/${kind} lists them`

type Row = typeof categories.$inferSelect

const toTerm = (r: Row): Term => ({
  id: r.id,
  name: r.name,
  description: r.description,
  createdAt: isoTime(r.createdAt),
  updatedAt: isoTime(r.updatedAt),
})

function findTerm(db: Sql, ctx: StoreCtx, kind: TaxonomyKind, id: string): Row {
  const t = tableOf(kind)
  const row = db.select().from(t).where(and(eq(t.id, id), eq(t.storeId, ctx.storeId))).get()
  if (!row) throw notFound(TAXONOMIES[kind].one, id, listRoute(kind))
  return row
}

/**
 * Writes a term whose name (when given) no other term of the store has, ignoring case and accents
 * ('CALÇADOS' is 'Calçados'): checked in the write's transaction, the unique index on lower(name)
 * behind it. `self`: the term being renamed, which may keep its own name.
 */
function savingName(deps: Deps, ctx: StoreCtx, kind: TaxonomyKind, name: string | undefined, self: string | undefined, write: (tx: Tx) => void) {
  const taken = (shown: string) =>
    new AppError('CONFLICT', `This store already has a ${TAXONOMIES[kind].one} named '${shown}' (names are compared ignoring case and accents). Choose another name, or use the existing one.`)
  try {
    writeTransaction(deps.db, (tx) => {
      const t = tableOf(kind)
      const same =
        name === undefined
          ? undefined
          : tx
              .select({ name: t.name })
              .from(t)
              .where(and(eq(t.storeId, ctx.storeId), sameName(t.name, name), self === undefined ? undefined : ne(t.id, self)))
              .get()
      if (same) throw taken(same.name)
      write(tx)
    })
  } catch (e) {
    if (isUniqueViolation(e)) throw taken(name ?? '')
    throw e
  }
}

export function listTerms(deps: Deps, ctx: StoreCtx, kind: TaxonomyKind, query: PageQuery) {
  const t = tableOf(kind)
  const { limit, offset } = pageWindow(query)
  const rows = deps.db.select().from(t).where(eq(t.storeId, ctx.storeId)).orderBy(asc(SORTED_NAME[kind]), asc(t.id)).limit(limit).offset(offset).all()
  const [{ n }] = deps.db.select({ n: count() }).from(t).where(eq(t.storeId, ctx.storeId)).all() as [{ n: number }]
  return toPage(rows.map(toTerm), n, query)
}

export const getTerm = (deps: Deps, ctx: StoreCtx, kind: TaxonomyKind, id: string) => toTerm(findTerm(deps.db, ctx, kind, id))

export function createTerm(deps: Deps, ctx: StoreCtx, kind: TaxonomyKind, input: TermInput): Term {
  const now = deps.clock.now()
  const row: Row = { id: deps.ids.next(TAXONOMIES[kind].prefix), storeId: ctx.storeId, name: input.name, description: input.description ?? null, createdAt: now, updatedAt: now }
  savingName(deps, ctx, kind, input.name, undefined, (tx) => void tx.insert(tableOf(kind)).values(row).run())
  return toTerm(row)
}

export function updateTerm(deps: Deps, ctx: StoreCtx, kind: TaxonomyKind, id: string, update: TermUpdate): Term {
  const t = tableOf(kind)
  findTerm(deps.db, ctx, kind, id)
  if (Object.keys(update).length > 0) {
    savingName(deps, ctx, kind, update.name, id, (tx) => void tx.update(t).set({ ...update, updatedAt: deps.clock.now() }).where(and(eq(t.id, id), eq(t.storeId, ctx.storeId))).run())
  }
  return getTerm(deps, ctx, kind, id)
}

export function deleteTerm(deps: Deps, ctx: StoreCtx, kind: TaxonomyKind, id: string) {
  const t = tableOf(kind)
  findTerm(deps.db, ctx, kind, id)
  writeTransaction(deps.db, (tx) => tx.delete(t).where(and(eq(t.id, id), eq(t.storeId, ctx.storeId))).run())
}

/**
 * For a product body that names terms (categoryId, brandId, collectionIds): each must be this store's,
 * else a 404 that names the field, like any other unknown id.
 */
export function requireTerms(db: Sql, ctx: StoreCtx, kind: TaxonomyKind, ids: string[], field: string) {
  if (ids.length === 0) return
  const t = tableOf(kind)
  const found = new Set(db.select({ id: t.id }).from(t).where(and(eq(t.storeId, ctx.storeId), inArray(t.id, ids))).all().map((r) => r.id))
  const missing = ids.find((id) => !found.has(id))
  if (missing !== undefined) {
    const e = notFound(TAXONOMIES[kind].one, missing, listRoute(kind))
    throw new AppError('NOT_FOUND', `${field}: ${e.message}`)
  }
}
