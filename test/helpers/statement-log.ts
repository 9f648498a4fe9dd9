import { Database } from 'bun:sqlite'

/*
 * Counts the SQLite statements this test process runs: every statement prepared from here on (by
 * drizzle, Bun's statement cache or bun:sqlite directly) reports each run, get, all or values, with
 * its SQL text. Imported by the tests that bound how many statements a request runs.
 */

let log: string[] | null = null
const wrapped = new WeakSet<object>()
const RUNNERS = ['get', 'all', 'iterate', 'values', 'raw', 'run'] as const

type Runner = (...args: unknown[]) => unknown

function wrap<S extends object>(statement: S, sql: string): S {
  if (wrapped.has(statement)) return statement
  wrapped.add(statement)
  const s = statement as unknown as Record<string, Runner>
  for (const name of RUNNERS) {
    const run = s[name]!
    s[name] = function (this: unknown, ...args: unknown[]) {
      log?.push(sql)
      return run.apply(this, args)
    }
  }
  return statement
}

const proto = Database.prototype as unknown as Record<string, (this: Database, sql: string, ...rest: unknown[]) => unknown>
for (const name of ['prepare', 'query'] as const) {
  const original = proto[name]!
  proto[name] = function (sql, ...rest) {
    return wrap(original.call(this, sql, ...rest) as object, sql)
  }
}
const run = proto.run!
proto.run = function (sql, ...rest) {
  log?.push(sql)
  return run.call(this, sql, ...rest)
}

/** The SQL of every statement run while `work` runs (until its promise settles), in order. */
export async function statementsOf<T>(work: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
  if (log) throw new Error('statementsOf does not nest')
  log = []
  try {
    const result = await work()
    return { result, statements: log }
  } finally {
    log = null
  }
}

/** Puts a line of the test's own in the log being kept (an answer arriving, say), to see what came before it. */
export const mark = (label: string) => void log?.push(label)

/** A statement's kind and table, for reading a log at a glance: `select cart_items`, `insert orders`. */
export function summary(sql: string): string {
  let s = sql.replace(/\s+/g, ' ').trim()
  // Subqueries out, so that `from` names the statement's own table.
  while (/\([^()]*\)/.test(s)) s = s.replace(/\([^()]*\)/g, '')
  const verb = s.split(' ')[0]!.toLowerCase()
  const table = /^(?:insert into|update|delete from)\s+"?(\w+)"?/i.exec(s)?.[1] ?? /\bfrom\s+"?(\w+)"?/i.exec(s)?.[1]
  return table ? `${verb} ${table}` : s.toLowerCase()
}
