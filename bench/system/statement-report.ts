/**
 * The statement count's table (bench/statements.ts), also printed by the whole-system report.
 */
import type { StatementKind } from './statement-count'

export interface StatementRow {
  request: string
  /** Medians over the orders, and the range of the total. */
  total: number
  min: number
  max: number
  byKind: Record<StatementKind, number>
  rowsChanged: number
  ms: number
  texts: [string, number][]
}

export function statementTable(rows: StatementRow[], list = false): string {
  const lines = [
    '| request | statements | reads | writes | BEGIN | COMMIT | other | rows written (triggers included) | in-process ms, p50 |',
    '|---|---|---|---|---|---|---|---|---|',
  ]
  for (const r of rows) {
    const total = r.min === r.max ? String(r.total) : `${r.total} (${r.min} to ${r.max})`
    const ms = r.request === 'between requests' ? '' : r.ms.toFixed(2)
    lines.push(`| ${r.request} | ${total} | ${r.byKind.read} | ${r.byKind.write} | ${r.byKind.begin} | ${r.byKind.commit} | ${r.byKind.other} | ${r.rowsChanged} | ${ms} |`)
  }
  if (list) {
    for (const r of rows) {
      lines.push('', `${r.request}: each statement, times per request`)
      for (const [text, n] of r.texts) lines.push(`  ${n.toFixed(2).replace(/\.00$/, '')} x ${text.length > 200 ? text.slice(0, 200) + '...' : text}`)
    }
  }
  return lines.join('\n')
}
