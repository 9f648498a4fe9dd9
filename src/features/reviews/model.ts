import { z } from 'zod'
import { withoutControlCharacters } from '../../kernel/control-characters'
import { idRef } from '../../kernel/id-schema'
import { Page, PageQuery, wholeNumberQuery } from '../../kernel/pagination'
import { Rating } from '../catalog/model'

// Reviews: what a customer sends and what the API answers.

const rating = z.number().int('rating is a whole number of stars').min(1, 'rating runs from 1 to 5').max(5, 'rating runs from 1 to 5')
// What a shop shows as a customer wrote it: a title is one line, a comment keeps its line breaks and tabs.
const title = withoutControlCharacters(z.string().trim().min(1, 'title must not be empty').max(120, 'title can be at most 120 characters'), 'title')
const comment = withoutControlCharacters(z.string().max(5000, 'comment can be at most 5000 characters'), 'comment', true)
const mediaIds = z
  .array(idRef('mediaIds[]').min(1))
  .max(10, 'a review takes at most 10 photos')
  .refine((ids) => new Set(ids).size === ids.length, 'mediaIds lists each photo once')
  .describe('pictures of the store library (POST /v1/uploads), in the order to show')

export const CreateReviewBody = z
  .object({ rating, title, comment: comment.default(''), mediaIds: mediaIds.default([]) })
  .strict()
export type CreateReviewBody = z.infer<typeof CreateReviewBody>

export const UpdateReviewBody = z
  .object({ rating: rating.optional(), title: title.optional(), comment: comment.optional(), mediaIds: mediaIds.optional() })
  .strict()
export type UpdateReviewBody = z.infer<typeof UpdateReviewBody>

export const ModerateReviewBody = z.object({ hidden: z.boolean('hidden must be true or false') }).strict()

export const Review = z
  .object({
    id: z.string(),
    productId: z.string(),
    customer: z.object({ id: z.string(), name: z.string() }),
    rating: z.number().int(),
    title: z.string(),
    comment: z.string(),
    mediaIds: z.array(z.string()).describe('the ids of its photos, in order: what `mediaIds` set'),
    media: z.array(z.object({ id: z.string(), url: z.string() })).describe('its photos, in the order of `mediaIds`, with the URL to show each'),
    hidden: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Review' })
export type Review = z.infer<typeof Review>

export const ReviewPage = Page(Review).extend({ summary: Rating })
/** The summary of a list that may hold hidden reviews: like a product's rating, it counts the visible ones. */
const VisibleSummary = Rating.describe('the stars of the visible reviews among those the filters select, on every page (hidden ones never count, as in a product\u2019s rating)')
export const MyReviewPage = Page(Review).extend({ summary: VisibleSummary })
/** The moderation list: each review with its product's name, so a student need not look each id up. */
export const StoreReviewPage = Page(Review.extend({ productName: z.string().describe("the product's name now") }).meta({ id: 'StoreReview' })).extend({ summary: VisibleSummary })

export const CanReview = z
  .object({
    canReview: z.boolean(),
    reason: z.enum(['NO_PAID_ORDER', 'ALREADY_REVIEWED']).nullable().describe('why not; null when the customer may review'),
  })
  .meta({ id: 'CanReview' })

const boolFlag = z.enum(['true', 'false'], 'hidden must be true or false').transform((v) => v === 'true')

export const StoreReviewQuery = PageQuery.extend({
  productId: idRef('productId').optional(),
  hidden: boolFlag.optional(),
  rating: wholeNumberQuery('rating runs from 1 to 5, e.g. rating=5').min(1, 'rating runs from 1 to 5').max(5, 'rating runs from 1 to 5').optional(),
}).strict()

export const ReviewListQuery = PageQuery.strict()
export const IdParams = z.object({ id: z.string() })
