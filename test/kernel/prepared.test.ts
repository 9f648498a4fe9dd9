import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { and, asc, eq, sql } from 'drizzle-orm'
import { integer, real, sqliteTable, text, type PreparedQueryConfig, type SQLitePreparedQuery } from 'drizzle-orm/sqlite-core'
import { openDatabase } from '../../src/kernel/db/open'
import { runsAsDrizzle, withParams } from '../../src/kernel/db/prepared'
import { tempDir } from '../helpers/temp'

// Columns of every mode the app's tables use: JSON text, booleans, enums, reals, nullable values.
const things = sqliteTable('things', {
  id: text().primaryKey(),
  name: text().notNull(),
  state: text({ enum: ['A', 'B'] }).notNull(),
  data: text({ mode: 'json' }).$type<{ tags: string[] }>(),
  on: integer({ mode: 'boolean' }).notNull(),
  price: real(),
  n: integer().notNull(),
})
const others = sqliteTable('others', { id: text().primaryKey(), thingId: text('thing_id').notNull(), label: text() })

const p = sql.placeholder
// Rows of every shape, compared by value.
type Loose = Record<'get' | 'all' | 'run' | 'values', (values: Record<string, unknown>) => any>

function open() {
  const database = openDatabase(join(tempDir('prepared'), 'prepared.db'))
  database.sqlite.exec(`
    create table things (id text primary key, name text not null, state text not null, data text, "on" integer not null, price real, n integer not null);
    create table others (id text primary key, thing_id text not null, label text)`)
  return database
}

/** Each query as drizzle runs it and as `withParams` runs it, with the same values. */
function bothWays(database: ReturnType<typeof open>) {
  const db = database.db
  const queries = () => ({
    byId: db.select().from(things).where(eq(things.id, p('id'))).prepare(),
    byState: db.select().from(things).where(and(eq(things.state, p('state')), eq(things.on, p('on')))).orderBy(asc(things.id)).prepare(),
    picked: db
      .select({
        id: things.id,
        tags: things.data,
        upper: sql<string>`upper(${things.name})`,
        double: sql<number>`${things.n} * 2`.as('double'),
        others: sql<number>`(select count(*) from others where others.thing_id = things.id)`,
        constant: sql<number>`${7}`,
      })
      .from(things)
      .where(eq(things.id, p('id')))
      .prepare(),
    insert: db
      .insert(things)
      .values({ id: p('id'), name: p('name'), state: p('state'), data: p('data'), on: p('on'), price: p('price'), n: p('n') })
      .prepare(),
    bump: db
      .update(things)
      .set({ n: sql`${things.n} + ${p('by')}` })
      .where(eq(things.id, p('id')))
      .returning()
      .prepare(),
    names: db.select({ name: things.name }).from(things).orderBy(asc(things.name)).prepare(),
  })
  type Names = keyof ReturnType<typeof queries>
  // Both sides compared as plain values: the test is that they answer alike, not their types.
  const loose = (wrap: (q: SQLitePreparedQuery<PreparedQueryConfig>) => unknown) =>
    Object.fromEntries(Object.entries(queries()).map(([name, q]) => [name, wrap(q as SQLitePreparedQuery<PreparedQueryConfig>)])) as Record<Names, Loose>
  return { drizzle: loose((q) => q), fast: loose((q) => withParams<Record<string, unknown>>()(q)) }
}

describe('prepared queries run without drizzle’s work per run (withParams)', () => {
  test('each method answers as drizzle’s own: decoded columns, aliased and subquery fields, returning, no rows', () => {
    const database = open()
    const { drizzle, fast } = bothWays(database)
    const row = (id: string, extra: Partial<Record<string, unknown>> = {}) => ({ id, name: `Name ${id}`, state: 'A', data: { tags: ['x', id] }, on: true, price: 1.5, n: 3, ...extra })
    // Written one way and the other: what each wrote reads back the same through both.
    drizzle.insert.run(row('t1'))
    fast.insert.run(row('t2', { data: null, on: false, price: null, state: 'B' }))
    database.sqlite.exec(`insert into others values ('o1', 't1', null), ('o2', 't1', 'b')`)

    for (const id of ['t1', 't2', 'missing']) {
      expect(fast.byId.get({ id })).toEqual(drizzle.byId.get({ id }))
      expect(fast.byId.all({ id })).toEqual(drizzle.byId.all({ id }))
      expect(fast.byId.values({ id })).toEqual(drizzle.byId.values({ id }))
      expect(fast.picked.get({ id })).toEqual(drizzle.picked.get({ id }))
    }
    expect(fast.byId.get({ id: 't1' })).toEqual({ id: 't1', name: 'Name t1', state: 'A', data: { tags: ['x', 't1'] }, on: true, price: 1.5, n: 3 })
    expect(fast.byId.get({ id: 't2' })).toEqual({ id: 't2', name: 'Name t2', state: 'B', data: null, on: false, price: null, n: 3 })
    expect(fast.byId.get({ id: 'missing' })).toBeUndefined()
    expect(fast.picked.get({ id: 't1' })).toEqual({ id: 't1', tags: { tags: ['x', 't1'] }, upper: 'NAME T1', double: 6, others: 2, constant: 7 })
    // The boolean placeholder is encoded as the column encodes it.
    expect(fast.byState.all({ state: 'B', on: false })).toEqual(drizzle.byState.all({ state: 'B', on: false }))
    expect(fast.byState.all({ state: 'B', on: false }).map((r: { id: string }) => r.id)).toEqual(['t2'])
    expect(fast.byState.all({ state: 'A', on: false })).toEqual([])
    expect(fast.names.all({})).toEqual(drizzle.names.all({}))

    const bumped = fast.bump.get({ id: 't1', by: 4 })
    expect(bumped).toEqual({ ...row('t1'), n: 7 })
    expect(drizzle.bump.get({ id: 't1', by: 4 })).toEqual({ ...row('t1'), n: 11 })
    expect(fast.bump.get({ id: 'missing', by: 1 })).toBeUndefined()
    expect(fast.bump.all({ id: 't2', by: 1 })).toEqual([{ ...row('t2', { data: null, on: false, price: null, state: 'B' }), n: 4 }])
    const changed = fast.insert.run(row('t3'))
    expect(changed.changes).toBe(1)
    database.close()
  })

  test('a missing value throws drizzle’s error, before the statement runs', () => {
    const database = open()
    const { drizzle, fast } = bothWays(database)
    expect(() => drizzle.byId.get({})).toThrow('No value for placeholder "id" was provided')
    expect(() => fast.byId.get({})).toThrow('No value for placeholder "id" was provided')
    expect(() => fast.insert.run({ id: 'x' })).toThrow('No value for placeholder "name" was provided')
    expect(database.sqlite.query('select count(*) as n from things').get()).toEqual({ n: 0 })
    database.close()
  })

  test('a query whose rows drizzle nests by table is left to drizzle', () => {
    const database = open()
    const joined = database.db.select().from(things).leftJoin(others, eq(others.thingId, things.id)).where(eq(things.id, p('id'))).prepare()
    expect(runsAsDrizzle(joined)).toBe(joined)
    const flat = database.db.select().from(things).where(eq(things.id, p('id'))).prepare()
    expect(runsAsDrizzle(flat)).not.toBe(flat)
    database.sqlite.exec(`insert into things values ('t1', 'N', 'A', null, 1, null, 1); insert into others values ('o1', 't1', 'L')`)
    expect(withParams<{ id: string }>()(joined).get({ id: 't1' })).toEqual({
      things: { id: 't1', name: 'N', state: 'A', data: null, on: true, price: null, n: 1 },
      others: { id: 'o1', thingId: 't1', label: 'L' },
    })
    database.close()
  })
})
