/**
 * Counts the SQL statements this process runs, for the benches that run the app in-process: import it
 * before anything opens a database. It wraps bun:sqlite itself (every statement made by `prepare` or
 * `query`, drizzle's included, and `Database.run`/`exec`), so nothing in src/ knows about it. A
 * statement is counted each time it runs; the statements triggers run inside it are not (the rows
 * they write are, in `rowsChanged`: SQLite's `total_changes()`).
 */
import { Database } from 'bun:sqlite'

export type StatementKind = 'read' | 'write' | 'begin' | 'commit' | 'other'

export interface Tally {
  total: number
  byKind: Record<StatementKind, number>
  /** Each statement's SQL text (whitespace squeezed) and how many times it ran. */
  texts: Map<string, number>
}

const kindOf = (sql: string): StatementKind => {
  const word = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase()
  if (word === 'SELECT' || word === 'VALUES') return 'read'
  if (word === 'WITH') return /\b(insert|update|delete|replace)\b/i.test(sql) ? 'write' : 'read'
  if (word === 'INSERT' || word === 'UPDATE' || word === 'DELETE' || word === 'REPLACE') return 'write'
  if (word === 'BEGIN' || word === 'SAVEPOINT') return 'begin'
  if (word === 'COMMIT' || word === 'END' || word === 'RELEASE') return 'commit'
  return 'other'
}

let current: Tally | null = null
let withTexts = true

function count(sql: string) {
  if (!current) return
  current.total++
  current.byKind[kindOf(sql)]++
  if (!withTexts) return
  const text = sql.replace(/\s+/g, ' ').trim()
  current.texts.set(text, (current.texts.get(text) ?? 0) + 1)
}

const WRAPPED = Symbol('counted')
const RUNS = ['run', 'all', 'get', 'values', 'iterate'] as const

function wrap<T extends object>(statement: T, sql: string): T {
  const s = statement as unknown as Record<string | symbol, unknown>
  if (s[WRAPPED]) return statement
  // Bun puts these on each statement, not on Statement.prototype.
  for (const name of RUNS) {
    const run = s[name] as ((...args: unknown[]) => unknown) | undefined
    if (typeof run === 'function') s[name] = (...args: unknown[]) => (count(sql), run.apply(statement, args))
  }
  s[WRAPPED] = true
  return statement
}

// biome-ignore lint/suspicious/noExplicitAny: the methods take and give different things; each is wrapped the same way, passing them through
const proto = Database.prototype as unknown as Record<string, (this: Database, ...args: any[]) => any>
const original = { prepare: proto.prepare!, query: proto.query!, run: proto.run!, exec: proto.exec! }
proto.prepare = function (sql: string, ...rest: unknown[]) {
  return wrap(original.prepare.call(this, sql, ...rest), sql)
}
proto.query = function (sql: string, ...rest: unknown[]) {
  return wrap(original.query.call(this, sql, ...rest), sql)
}
for (const name of ['run', 'exec'] as const) {
  const direct = original[name]
  proto[name] = function (sql: string, ...rest: unknown[]) {
    // One of the two may call the other inside Bun: count the outer call only.
    const outer = current
    count(sql)
    current = null
    try {
      return direct.call(this, sql, ...rest)
    } finally {
      current = outer
    }
  }
}

/** Starts counting; `stop` ends it and gives what ran in between. `texts: false` keeps no SQL (cheaper, for timed loops). */
export function startTally(options: { texts: boolean } = { texts: true }): { stop(): Tally } {
  const tally: Tally = { total: 0, byKind: { read: 0, write: 0, begin: 0, commit: 0, other: 0 }, texts: new Map() }
  current = tally
  withTexts = options.texts
  return {
    stop() {
      if (current === tally) current = null
      return tally
    },
  }
}

/** Rows written so far on this connection, triggers' writes included; read without being counted. */
export function rowsChanged(sqlite: Database): () => number {
  const statement = original.prepare.call(sqlite, 'SELECT total_changes() AS n') as { get(): { n: number } }
  return () => statement.get().n
}
