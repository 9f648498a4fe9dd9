import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { stores } from '../../kernel/auth/tables'

/**
 * A store's media library. The file lives at <data>/media/<storeId>/<id>.<ext>: the server makes the
 * name, so no user text ever reaches a path. `filename` is the uploaded name, for display only.
 */
export const media = sqliteTable(
  'media',
  {
    id: text().primaryKey(),
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    kind: text({ enum: ['IMAGE', 'VIDEO'] }).notNull(),
    mimeType: text('mime_type').notNull(),
    extension: text().notNull(),
    sizeBytes: integer('size_bytes').notNull(),
    filename: text().notNull(),
    width: integer(),
    height: integer(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('media_store_created').on(t.storeId, t.createdAt)],
)
