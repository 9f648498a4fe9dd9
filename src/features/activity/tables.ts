import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { groups } from '../../kernel/auth/tables'

/**
 * The `rm` under which a group's shop-front calls (made with its publishable key) are counted. No RM
 * can be written so (an RM holds letters, digits, dot, dash and underscore only).
 */
export const SHOP_FRONT_RM = '(shop front)'

/**
 * Calls per group, per RM ('' = unattributed, SHOP_FRONT_RM = the shop front) and per hour: what the
 * teacher grades from. Written in batches by the recorder, never on a request's path.
 */
export const activityCounts = sqliteTable(
  'activity_counts',
  {
    groupId: text('group_id')
      .notNull()
      .references(() => groups.id, { onDelete: 'cascade' }),
    rm: text().notNull(),
    hourStart: integer('hour_start').notNull(),
    calls: integer().notNull(),
    errors: integer().notNull(),
    lastCallAt: integer('last_call_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.groupId, t.rm, t.hourStart] })],
)
