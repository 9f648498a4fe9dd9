import { Elysia } from 'elysia'
import { authMacro } from '../../kernel/auth/macro'
import type { Deps } from '../../kernel/deps'
import { ErrorEnvelope } from '../../kernel/errors'
import { CanReview, CreateReviewBody, IdParams, ModerateReviewBody, MyReviewPage, Review, ReviewListQuery, ReviewPage, StoreReviewPage, StoreReviewQuery, UpdateReviewBody } from './model'
import { canReview, createReview, deleteReview, listMyReviews, listProductReviews, listStoreReviews, moderateReview, updateReview } from './service'
import { jsonResponse } from '../../kernel/http/json-response'
import { noContent } from '../../kernel/http/no-content'
import { reviewPageCache } from './page-cache'
import { visibilityOf } from '../catalog'

const tags = ['Reviews']

/** What a publishable key finds of a review whose product it does not see. */
const SHOP_FRONT_REVIEW = 'With a publishable key (pk_...) a review of a DRAFT or ARCHIVED product is 404 NOT_FOUND, as an unknown id.'

/** A product's reviews and the customer's own. */
export const reviewRoutes = (deps: Deps) => {
  // A product's page is served from the cache while the store's reviews are unchanged. It is built to
  // its schema below, which the test suite holds it to (kernel/http/answer-check.ts).
  const pages = reviewPageCache(deps)
  return new Elysia()
    .use(authMacro)
    .get('/products/:id/reviews', ({ ctx, params, query, request }) => {
      const urlBase = deps.publicUrl.for(request)
      // Kept per what the caller sees: a DRAFT product's page, made for the secret key, is never served to a publishable one.
      const key = `${visibilityOf(ctx)} ${params.id} ${JSON.stringify(query)}`
      const body = pages.read(ctx.storeId, urlBase, key, () => listProductReviews(deps, ctx, params.id, query, urlBase))
      return jsonResponse(body)
    }, {
      auth: 'shop',
      params: IdParams,
      query: ReviewListQuery,
      response: { 200: ReviewPage, 400: ErrorEnvelope, 404: ErrorEnvelope },
      detail: {
        tags,
        summary: "A product's reviews, with its summary",
        description:
          'Newest first. Hidden reviews are left out, of the list and of `summary` (average rounded to 2 decimals, 0 without reviews; the same summary as the product `rating`). With a publishable key (pk_...) only a PUBLISHED product has a review page: a DRAFT or ARCHIVED one is 404 NOT_FOUND, as an unknown id.',
      },
    })
    .get('/products/:id/reviews/can-review', ({ ctx, params }) => canReview(deps, ctx, params.id), {
      auth: 'customer',
      params: IdParams,
      response: { 200: CanReview, 404: ErrorEnvelope },
      detail: {
        tags,
        summary: 'Whether the customer may review the product',
        description:
          '`reason` is null when they may, `ALREADY_REVIEWED` when they did, `NO_PAID_ORDER` without a paid, unrefunded order (PAID, SHIPPED or DELIVERED) containing the product. With a publishable key (pk_...) a DRAFT or ARCHIVED product is 404 NOT_FOUND, as an unknown id.',
      },
    })
    .post(
      '/products/:id/reviews',
      ({ ctx, params, body, set, request }) => {
        set.status = 201
        return createReview(deps, ctx, params.id, body, deps.publicUrl.for(request))
      },
      {
        auth: 'customer',
        params: IdParams,
        body: CreateReviewBody,
        response: { 201: Review, 400: ErrorEnvelope, 403: ErrorEnvelope, 404: ErrorEnvelope, 409: ErrorEnvelope },
        detail: {
          tags,
          summary: 'Review a bought product',
          description:
            '`rating` 1 to 5, `title` up to 120 characters, `comment` up to 5000, `mediaIds` pictures of the store library. Only a buyer with a paid, unrefunded order containing the product may (403 REVIEW_NOT_ALLOWED), once (409 ALREADY_REVIEWED). A customer who deleted a review the store had hidden finds their next review of that product hidden too (`hidden: true`), until the store shows it: deleting does not undo moderation. With a publishable key (pk_...) a DRAFT or ARCHIVED product is 404 NOT_FOUND, as an unknown id. Sends `review.created`.',
        },
      },
    )
    .patch('/reviews/:id', ({ ctx, params, body, request }) => updateReview(deps, ctx, params.id, body, deps.publicUrl.for(request)), {
      auth: 'customer',
      params: IdParams,
      body: UpdateReviewBody,
      response: { 200: Review, 400: ErrorEnvelope, 403: ErrorEnvelope, 404: ErrorEnvelope },
      detail: { tags, summary: 'Change your review', description: `Any of rating, title, comment, mediaIds (which replaces the photos). Another customer\u2019s review is 403 FORBIDDEN. ${SHOP_FRONT_REVIEW}` },
    })
    .delete(
      '/reviews/:id',
      ({ ctx, params }) => {
        deleteReview(deps, ctx, params.id)
        return noContent()
      },
      {
        auth: 'customer',
        params: IdParams,
        response: { 403: ErrorEnvelope, 404: ErrorEnvelope },
        detail: { tags, summary: 'Delete your review', description: `204 with no body; the product summary follows. Deleting a review the store hid does not undo that: the customer's next review of the product starts hidden. Another customer\u2019s review is 403 FORBIDDEN. ${SHOP_FRONT_REVIEW}` },
      },
    )
    .get('/me/reviews', ({ ctx, query, request }) => listMyReviews(deps, ctx, query, deps.publicUrl.for(request)), {
      auth: 'customer',
      query: ReviewListQuery,
      response: { 200: MyReviewPage, 400: ErrorEnvelope },
      detail: { tags, summary: "The customer's reviews", description: 'Newest first, hidden ones included (with `hidden: true`). With a publishable key (pk_...), only the reviews of PUBLISHED products: those of a DRAFT or ARCHIVED product are left out of the page, its total and summary.' },
    })
}

/** Moderation: the API key or a student token. */
export const storeReviewRoutes = (deps: Deps) =>
  new Elysia({ prefix: '/store/reviews' })
    .use(authMacro)
    .get('', ({ ctx, query, request }) => listStoreReviews(deps, ctx, query, deps.publicUrl.for(request)), {
      auth: 'secret',
      query: StoreReviewQuery,
      response: { 200: StoreReviewPage, 400: ErrorEnvelope },
      detail: { tags, summary: "All of the store's reviews, hidden ones included", description: 'Newest first. Filters: `productId`, `hidden` (true or false), `rating` (1 to 5).' },
    })
    .patch('/:id', ({ ctx, params, body, request }) => moderateReview(deps, ctx, params.id, body, deps.publicUrl.for(request)), {
      auth: 'secret',
      params: IdParams,
      body: ModerateReviewBody,
      response: { 200: Review, 400: ErrorEnvelope, 404: ErrorEnvelope },
      detail: { tags, summary: 'Hide or show a review', description: '`hidden: true` takes it out of the public list and the product summary; `false` brings it back.' },
    })
