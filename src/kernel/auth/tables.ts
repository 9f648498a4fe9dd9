import { sql } from 'drizzle-orm'
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { API_KEY_KINDS } from './kinds'

// Who may call: groups and their one store, students, their sessions, API keys, customers and their
// sessions. Every credential is kept only as a SHA-256 hash (tokens are long random strings, so a
// fast hash is right for them); passwords use argon2id.

export const groups = sqliteTable(
  'groups',
  {
    id: text().primaryKey(),
    name: text().notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [uniqueIndex('groups_name_unique').on(sql`lower(${t.name})`)],
)

export const stores = sqliteTable('stores', {
  id: text().primaryKey(),
  groupId: text('group_id')
    .notNull()
    .unique()
    .references(() => groups.id, { onDelete: 'cascade' }),
  storeName: text('store_name').notNull(),
  primaryColor: text('primary_color').notNull().default('#1f6feb'),
  supportEmail: text('support_email'),
  locale: text().notNull().default('pt-BR'),
  currency: text().notNull().default('BRL'),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
})

export const students = sqliteTable(
  'students',
  {
    rm: text().primaryKey(),
    name: text().notNull(),
    groupId: text('group_id')
      .notNull()
      .references(() => groups.id, { onDelete: 'cascade' }),
    /** null while the password is still the initial one (the RM itself, which is no secret). */
    passwordHash: text('password_hash'),
    mustChangePassword: integer('must_change_password', { mode: 'boolean' }).notNull().default(true),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('students_group').on(t.groupId)],
)

/**
 * Students who left a group (removed, or moved to another by a class list), with the name they had
 * then: their calls stay counted for the group they were made for, and the activity report names them.
 */
export const formerMembers = sqliteTable(
  'former_members',
  {
    groupId: text('group_id')
      .notNull()
      .references(() => groups.id, { onDelete: 'cascade' }),
    rm: text().notNull(),
    name: text().notNull(),
    leftAt: integer('left_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.groupId, t.rm] })],
)

export const studentSessions = sqliteTable(
  'student_sessions',
  {
    tokenHash: text('token_hash').primaryKey(),
    rm: text()
      .notNull()
      .references(() => students.rm, { onDelete: 'cascade' }),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [index('student_sessions_rm').on(t.rm), index('student_sessions_expires').on(t.expiresAt)],
)

export const apiKeys = sqliteTable(
  'api_keys',
  {
    id: text().primaryKey(),
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    name: text().notNull(),
    /** `secret` opens every store route; `publishable` only the shop-front ones (kinds.ts). */
    kind: text({ enum: API_KEY_KINDS }).notNull().default('secret'),
    /** `sk_` or `pk_` + the public part: what the panel shows after creation. */
    prefix: text().notNull(),
    secretHash: text('secret_hash').notNull().unique(),
    createdBy: text('created_by').notNull(),
    createdAt: integer('created_at').notNull(),
    lastUsedAt: integer('last_used_at'),
    revokedAt: integer('revoked_at'),
  },
  (t) => [index('api_keys_store').on(t.storeId)],
)

export const customers = sqliteTable(
  'customers',
  {
    id: text().primaryKey(),
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id, { onDelete: 'cascade' }),
    email: text().notNull(),
    name: text().notNull(),
    passwordHash: text('password_hash').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [uniqueIndex('customers_store_email').on(t.storeId, sql`lower(${t.email})`)],
)

export const customerSessions = sqliteTable(
  'customer_sessions',
  {
    tokenHash: text('token_hash').primaryKey(),
    customerId: text('customer_id')
      .notNull()
      .references(() => customers.id, { onDelete: 'cascade' }),
    storeId: text('store_id').notNull(),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [index('customer_sessions_customer').on(t.customerId), index('customer_sessions_expires').on(t.expiresAt)],
)

/**
 * One row, whose `n` triggers raise on every change to what the gate keeps of a credential: an API
 * key's row (but the time it was last used), a customer session, a store's group (migration 0016). The
 * gate keeps those rows while `n` stays (kept-credentials.ts), where a row count of the whole
 * database would change with every cart add.
 */
export const credentialChanges = sqliteTable('credential_changes', {
  id: integer().primaryKey(),
  n: integer().notNull(),
})
