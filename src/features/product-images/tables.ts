import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { products } from '../catalog/tables'

/**
 * A product's images, each a library file (mediaId) or an external URL. service.ts keeps their positions
 * 0..n-1 and exactly one cover; the catalog shows them through images.ts.
 */
export const productImages = sqliteTable(
  'product_images',
  {
    id: text().primaryKey(),
    storeId: text('store_id').notNull(),
    productId: text('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    mediaId: text('media_id'),
    url: text().notNull(),
    isPrimary: integer('is_primary', { mode: 'boolean' }).notNull().default(false),
    position: integer().notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('product_images_product').on(t.productId, t.position)],
)
