import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { customers, stores } from '../../kernel/auth/tables'
import { products } from '../catalog/tables'
import { media } from '../media/tables'

/**
 * Reviews: one per customer and product, enforced by a unique index so two concurrent
 * POSTs cannot both land. The product's summary is the catalog's (catalog/ratings.ts), handed the new
 * stars in the same transaction as every change here.
 */
export const reviews = sqliteTable(
  'reviews',
  {
    id: text().primaryKey(),
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    productId: text('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    customerId: text('customer_id')
      .notNull()
      .references(() => customers.id, { onDelete: 'cascade' }),
    rating: integer().notNull(),
    title: text().notNull(),
    comment: text().notNull(),
    hidden: integer({ mode: 'boolean' }).notNull().default(false),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('reviews_product_customer').on(t.productId, t.customerId),
    index('reviews_store_created').on(t.storeId, t.createdAt),
    // With the id, a product's page walks the index in its order and reads only the reviews it shows.
    index('reviews_product_visible').on(t.productId, t.hidden, t.createdAt, t.id),
  ],
)

/** Photos of a review: library files of the store, in the order sent. */
export const reviewMedia = sqliteTable(
  'review_media',
  {
    reviewId: text('review_id')
      .notNull()
      .references(() => reviews.id, { onDelete: 'cascade' }),
    mediaId: text('media_id')
      .notNull()
      .references(() => media.id, { onDelete: 'cascade' }),
    storeId: text('store_id').notNull(),
    position: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.reviewId, t.mediaId] }), index('review_media_media').on(t.storeId, t.mediaId)],
)

/**
 * A customer who deleted a review the store had hidden: their next review of that product starts
 * hidden, so deleting and posting again does not undo the store's moderation. Showing a review of
 * theirs of that product lets the hold go.
 */
export const moderationHolds = sqliteTable(
  'moderation_holds',
  {
    productId: text('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    customerId: text('customer_id')
      .notNull()
      .references(() => customers.id, { onDelete: 'cascade' }),
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.productId, t.customerId] })],
)
