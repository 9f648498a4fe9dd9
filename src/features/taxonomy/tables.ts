import { sql } from 'drizzle-orm'
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { stores } from '../../kernel/auth/tables'

/**
 * Categories, brands and collections have the same shape: one definition makes all
 * three tables, so their rules cannot drift apart. Names are unique per store, ignoring case.
 */
const taxonomyTable = <N extends string>(name: N) =>
  sqliteTable(
    name,
    {
      id: text().primaryKey(),
      storeId: text('store_id')
        .notNull()
        .references(() => stores.id, { onDelete: 'cascade' }),
      name: text().notNull(),
      description: text(),
      createdAt: integer('created_at').notNull(),
      updatedAt: integer('updated_at').notNull(),
    },
    (t) => [
      uniqueIndex(`${name}_store_name`).on(t.storeId, sql`lower(${t.name})`),
      index(`${name}_store_created`).on(t.storeId, t.createdAt),
    ],
  )

export const categories = taxonomyTable('categories')
export const brands = taxonomyTable('brands')
export const collections = taxonomyTable('collections')
