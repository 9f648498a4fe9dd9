import { and, asc, count, desc, eq, sql, type SQL } from 'drizzle-orm'
import { customerOf, type StoreCtx } from '../../kernel/auth/kinds'
import { customers } from '../../kernel/auth/tables'
import { isoTime } from '../../kernel/clock'
import { isUniqueViolation, readTransaction, writeTransaction, type Sql, type Tx } from '../../kernel/db/database'
import { inJsonIds } from '../../kernel/db/json-ids'
import { perHandle } from '../../kernel/db/per-handle'
import type { Deps } from '../../kernel/deps'
import { AppError, notFound } from '../../kernel/errors'
import { pageWindow, toPage, type PageQuery } from '../../kernel/pagination'
import { findProduct, productNames, productsHint, ratingOfCounts, setProductRating, shopFrontProducts, shopFrontSees, shownProductRating } from '../catalog'
import { findMedia, linksAsMediaUser, mediaByIds, renumber, toMedia } from '../media'
import { hasPaidOrderWith } from '../orders'
import type { CreateReviewBody, Review, UpdateReviewBody } from './model'
import { moderationHolds, reviewMedia, reviews } from './tables'

type ReviewRow = typeof reviews.$inferSelect

const REVIEWS_HINT = 'GET /v1/me/reviews lists your reviews, GET /v1/store/reviews all of the store'

// ---------------------------------------------------------------- summary

/** Hands the catalog the stars of the product's visible reviews; runs inside every change's transaction. */
function refreshRating(tx: Tx, storeId: string, productId: string) {
  const stars = tx
    .select({ rating: reviews.rating })
    .from(reviews)
    .where(and(eq(reviews.productId, productId), eq(reviews.hidden, false)))
    .all()
    .map((r) => r.rating)
  setProductRating(tx, storeId, productId, stars)
}

// ---------------------------------------------------------------- views

/**
 * The queries of a product's review page, built once per database handle: drizzle builds a statement's
 * SQL text on every call, a large share of the time of GET /products/:id/reviews (bench/README.md).
 */
function buildStatements(db: Sql) {
  const p = sql.placeholder
  const visibleOfProduct = and(eq(reviews.storeId, p('storeId')), eq(reviews.productId, p('productId')), eq(reviews.hidden, false))
  return {
    productPage: db.select().from(reviews).where(visibleOfProduct).orderBy(desc(reviews.createdAt), desc(reviews.id)).limit(p('limit')).offset(p('offset')).prepare(),
    productCount: db.select({ n: count() }).from(reviews).where(visibleOfProduct).prepare(),
    names: db.select({ id: customers.id, name: customers.name }).from(customers).where(inJsonIds(customers.id)).prepare(),
    photos: db
      .select({ reviewId: reviewMedia.reviewId, mediaId: reviewMedia.mediaId })
      .from(reviewMedia)
      .where(inJsonIds(reviewMedia.reviewId))
      .orderBy(asc(reviewMedia.position))
      .prepare(),
  }
}
const statements = perHandle(buildStatements)

/** `urlBase`: where the photos' URLs start (kernel/http/url-base.ts). */
function toReviews(urlBase: string, db: Sql, rows: ReviewRow[]): Review[] {
  if (rows.length === 0) return []
  const q = statements(db)
  const names = new Map(q.names.all({ ids: JSON.stringify([...new Set(rows.map((r) => r.customerId))]) }).map((c) => [c.id, c.name]))
  const photos = q.photos.all({ ids: JSON.stringify(rows.map((r) => r.id)) })
  const files = mediaByIds(db, [...new Set(photos.map((p) => p.mediaId))])
  const photosOf = (reviewId: string) =>
    photos.flatMap((p) => {
      const file = p.reviewId === reviewId ? files.get(p.mediaId) : undefined
      return file ? [{ id: file.id, url: toMedia(urlBase, file).url }] : []
    })
  return rows.map((r) => {
    const media = photosOf(r.id)
    return {
      id: r.id,
      productId: r.productId,
      customer: { id: r.customerId, name: names.get(r.customerId) ?? '' },
      rating: r.rating,
      title: r.title,
      comment: r.comment,
      mediaIds: media.map((m) => m.id),
      media,
      hidden: r.hidden,
      createdAt: isoTime(r.createdAt),
      updatedAt: isoTime(r.updatedAt),
    }
  })
}

const toReview = (urlBase: string, db: Sql, row: ReviewRow) => toReviews(urlBase, db, [row])[0]!

function page(deps: Deps, where: SQL | undefined, query: PageQuery, urlBase: string) {
  return readTransaction(deps.db, (db) => {
    const { limit, offset } = pageWindow(query)
    const rows = db.select().from(reviews).where(where).orderBy(desc(reviews.createdAt), desc(reviews.id)).limit(limit).offset(offset).all()
    // One count of the selected reviews by stars and visibility gives both the total and the summary.
    let total = 0
    const stars = { 1: 0, 2: 0, 3: 0, 4: 0, 5: 0 }
    for (const r of db.select({ rating: reviews.rating, hidden: reviews.hidden, n: count() }).from(reviews).where(where).groupBy(reviews.rating, reviews.hidden).all()) {
      total += r.n
      if (!r.hidden) stars[r.rating as keyof typeof stars] += r.n
    }
    return { ...toPage(toReviews(urlBase, db, rows), total, query), summary: ratingOfCounts(stars) }
  })
}

// ---------------------------------------------------------------- rules

/** A review of the store; with a publishable key, of a product it sees (catalog/find.ts), else the same 404. */
function findReview(db: Sql, ctx: StoreCtx, id: string): ReviewRow {
  const row = db.select().from(reviews).where(and(eq(reviews.id, id), eq(reviews.storeId, ctx.storeId))).get()
  if (!row || !shopFrontSees(db, ctx, row.productId)) throw notFound('review', id, REVIEWS_HINT)
  return row
}

/** Loads the customer's own review; another customer's is 403: a customer edits and deletes only their own. */
function findOwnReview(db: Sql, ctx: StoreCtx, id: string): ReviewRow {
  const row = findReview(db, ctx, id)
  if (row.customerId !== customerOf(ctx)) {
    throw new AppError('FORBIDDEN', `Review ${id} belongs to another customer; a customer edits or deletes only their own reviews (GET /v1/me/reviews lists them).`)
  }
  return row
}

/** The hold on a customer's reviews of a product (tables.ts, moderation_holds). */
const holdOn = (customerId: string, productId: string) => and(eq(moderationHolds.productId, productId), eq(moderationHolds.customerId, customerId))

const existingReview = (db: Sql, customerId: string, productId: string) =>
  db.select({ id: reviews.id }).from(reviews).where(and(eq(reviews.productId, productId), eq(reviews.customerId, customerId))).get()

function whyNot(db: Sql, ctx: StoreCtx, productId: string): 'NO_PAID_ORDER' | 'ALREADY_REVIEWED' | null {
  const customerId = customerOf(ctx)
  if (existingReview(db, customerId, productId)) return 'ALREADY_REVIEWED'
  if (!hasPaidOrderWith(db, ctx.storeId, customerId, productId)) return 'NO_PAID_ORDER'
  return null
}

const alreadyReviewed = (productId: string, reviewId?: string) =>
  new AppError(
    'ALREADY_REVIEWED',
    `You already reviewed product ${productId}; each customer reviews a product once. Change it with PATCH /v1/reviews/${reviewId ?? ':id'} instead.`,
  )

/** Checks the photos and writes them in the order given, replacing any earlier ones. */
function setPhotos(tx: Sql, ctx: StoreCtx, reviewId: string, mediaIds: string[]) {
  mediaIds.forEach((id, i) => {
    const m = findMedia(tx, ctx, id, "review photos are pictures of the store's library, uploaded by the store's server (POST /v1/uploads, secret key), which passes their ids to the shop")
    if (m.kind !== 'IMAGE') {
      throw new AppError('VALIDATION_ERROR', `Media ${id} is a video; review photos take pictures only. Send the ids of images of the library.`, [
        { path: `mediaIds.${i}`, message: 'must be an image' },
      ])
    }
  })
  tx.delete(reviewMedia).where(eq(reviewMedia.reviewId, reviewId)).run()
  mediaIds.forEach((mediaId, position) => tx.insert(reviewMedia).values({ reviewId, mediaId, storeId: ctx.storeId, position }).run())
}

// ---------------------------------------------------------------- operations

export function listProductReviews(deps: Deps, ctx: StoreCtx, productId: string, query: PageQuery, urlBase: string) {
  return readTransaction(deps.db, (db) => {
    const summary = shownProductRating(db, ctx, productId)
    if (!summary) throw notFound('product', productId, productsHint(ctx))
    const q = statements(db)
    const { limit, offset } = pageWindow(query)
    const rows = q.productPage.all({ storeId: ctx.storeId, productId, limit, offset })
    const total = q.productCount.get({ storeId: ctx.storeId, productId })!.n
    return { ...toPage(toReviews(urlBase, db, rows), total, query), summary }
  })
}

export function canReview(deps: Deps, ctx: StoreCtx, productId: string) {
  findProduct(deps.db, ctx, productId)
  const reason = whyNot(deps.db, ctx, productId)
  return { canReview: reason === null, reason }
}

export function createReview(deps: Deps, ctx: StoreCtx, productId: string, body: CreateReviewBody, urlBase: string) {
  try {
    return writeTransaction(deps.db, (tx) => {
      findProduct(tx, ctx, productId)
      const reason = whyNot(tx, ctx, productId)
      if (reason === 'ALREADY_REVIEWED') throw alreadyReviewed(productId, existingReview(tx, customerOf(ctx), productId)?.id)
      if (reason === 'NO_PAID_ORDER') {
        throw new AppError(
          'REVIEW_NOT_ALLOWED',
          `Only a buyer may review: you have no paid, unrefunded order containing product ${productId}. Buy it and pay (POST /v1/orders/:id/pay) first; GET /v1/products/${productId}/reviews/can-review tells when you may.`,
        )
      }
      const id = deps.ids.next('rev')
      const now = deps.clock.now()
      const customerId = customerOf(ctx)
      const hidden = tx.select().from(moderationHolds).where(holdOn(customerId, productId)).get() !== undefined
      tx.insert(reviews)
        .values({ id, storeId: ctx.storeId, productId, customerId, rating: body.rating, title: body.title, comment: body.comment, hidden, createdAt: now, updatedAt: now })
        .run()
      setPhotos(tx, ctx, id, body.mediaIds)
      refreshRating(tx, ctx.storeId, productId)
      deps.outbox.emit(tx, ctx.storeId, 'review.created', { reviewId: id, productId, rating: body.rating })
      return toReview(urlBase, tx, findReview(tx, ctx, id))
    })
  } catch (e) {
    // The transaction is BEGIN IMMEDIATE, so the check above sees every earlier review; the unique index is the backstop.
    if (isUniqueViolation(e)) throw alreadyReviewed(productId)
    throw e
  }
}

export function updateReview(deps: Deps, ctx: StoreCtx, id: string, body: UpdateReviewBody, urlBase: string) {
  return writeTransaction(deps.db, (tx) => {
    const row = findOwnReview(tx, ctx, id)
    const { mediaIds, ...fields } = body
    tx.update(reviews).set({ ...fields, updatedAt: deps.clock.now() }).where(eq(reviews.id, id)).run()
    if (mediaIds !== undefined) setPhotos(tx, ctx, id, mediaIds)
    refreshRating(tx, ctx.storeId, row.productId)
    return toReview(urlBase, tx, findReview(tx, ctx, id))
  })
}

export function deleteReview(deps: Deps, ctx: StoreCtx, id: string) {
  writeTransaction(deps.db, (tx) => {
    const row = findOwnReview(tx, ctx, id)
    tx.delete(reviews).where(eq(reviews.id, id)).run()
    if (row.hidden) {
      tx.insert(moderationHolds).values({ productId: row.productId, customerId: row.customerId, storeId: row.storeId, createdAt: deps.clock.now() }).onConflictDoNothing().run()
    }
    refreshRating(tx, ctx.storeId, row.productId)
  })
}

export function listMyReviews(deps: Deps, ctx: StoreCtx, query: PageQuery, urlBase: string) {
  return page(deps, and(eq(reviews.storeId, ctx.storeId), eq(reviews.customerId, customerOf(ctx)), shopFrontProducts(deps.db, ctx, reviews.productId)), query, urlBase)
}

export function listStoreReviews(deps: Deps, ctx: StoreCtx, query: PageQuery & { productId?: string; hidden?: boolean; rating?: number }, urlBase: string) {
  const where = and(
    eq(reviews.storeId, ctx.storeId),
    query.productId !== undefined ? eq(reviews.productId, query.productId) : undefined,
    query.hidden !== undefined ? eq(reviews.hidden, query.hidden) : undefined,
    query.rating !== undefined ? eq(reviews.rating, query.rating) : undefined,
  )
  const found = page(deps, where, query, urlBase)
  const names = productNames(deps, ctx, found.data.map((r) => r.productId))
  return { ...found, data: found.data.map((r) => ({ ...r, productName: names.get(r.productId) ?? '' })) }
}

export function moderateReview(deps: Deps, ctx: StoreCtx, id: string, body: { hidden: boolean }, urlBase: string) {
  return writeTransaction(deps.db, (tx) => {
    const row = findReview(tx, ctx, id)
    if (row.hidden !== body.hidden) {
      tx.update(reviews).set({ hidden: body.hidden, updatedAt: deps.clock.now() }).where(eq(reviews.id, id)).run()
      refreshRating(tx, ctx.storeId, row.productId)
    }
    // The store shows this customer's review of the product: a hold from an earlier hidden one ends.
    if (!body.hidden) tx.delete(moderationHolds).where(holdOn(row.customerId, row.productId)).run()
    return toReview(urlBase, tx, findReview(tx, ctx, id))
  })
}

/** Review photos as users of library files, for DELETE /v1/media/:id. */
export const reviewPhotoUsers = linksAsMediaUser({
  usedBy: 'reviewPhoto',
  table: reviewMedia,
  storeId: reviewMedia.storeId,
  mediaId: reviewMedia.mediaId,
  owner: reviewMedia.reviewId,
  uses: (tx, where) =>
    tx
      .select({ reviewId: reviewMedia.reviewId, productId: reviews.productId })
      .from(reviewMedia)
      .innerJoin(reviews, eq(reviews.id, reviewMedia.reviewId))
      .where(where)
      .all(),
  renumber(tx, reviewId) {
    const rest = tx.select().from(reviewMedia).where(eq(reviewMedia.reviewId, reviewId)).orderBy(asc(reviewMedia.position)).all()
    renumber(
      rest,
      (_, position) => ({ position }),
      (photo, set) => tx.update(reviewMedia).set(set).where(and(eq(reviewMedia.reviewId, reviewId), eq(reviewMedia.mediaId, photo.mediaId))).run(),
    )
  },
})

