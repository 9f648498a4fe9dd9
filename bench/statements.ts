/**
 * `npm run bench:statements`: how many SQL statements each request of the buying flow runs.
 *
 *   bun bench/statements.ts [--orders 50] [--products 1000] [--list] [--json <file>] [--fresh]
 *
 * The app runs in this process (through app.handle) on a copy of a store seeded by the scale bench
 * (system/scale-seed.ts), and bun:sqlite is wrapped (system/statement-count.ts) so that every statement
 * run is counted, nothing in src/ changed. One customer places `orders` orders (add a unit to the cart,
 * check out, pay with PIX) after 5 of warm-up; each request's statements are counted from the call to
 * the end of its body, the rows they wrote (triggers included) from SQLite's total_changes(). Prints
 * the median per request (the range when they differ) and what ran between requests; `--list` adds each
 * statement's SQL and how many times a request ran it.
 */
import { startTally, rowsChanged, type StatementKind, type Tally } from './system/statement-count'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { copyData } from './system/harness'
import { openInProcess, registerCustomers, type InProcess } from './system/in-process'
import { scaleData } from './system/scale-seed'
import { statementTable, type StatementRow } from './system/statement-report'

const KINDS: StatementKind[] = ['read', 'write', 'begin', 'commit', 'other']
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

/** Places `orders` orders and counts each request's statements; rows in the order of the flow, then what ran between requests. */
export async function countStatements(app: InProcess, headers: Record<string, string>, variantId: string, orders: number): Promise<StatementRow[]> {
  const changed = rowsChanged(app.deps.sqlite)
  const samples = new Map<string, { tally: Tally; rows: number; ms: number }[]>()
  const measure = async <T>(name: string, work: () => Promise<{ value: T; ms: number }>, keep: boolean) => {
    const rows = changed()
    const tally = startTally()
    const { value, ms } = await work()
    const stopped = tally.stop()
    if (keep) samples.set(name, [...(samples.get(name) ?? []), { tally: stopped, rows: changed() - rows, ms }])
    return value
  }
  const request = (method: string, path: string, body?: unknown) => async () => {
    const answer = await app.ok(method, path, headers, body)
    return { value: answer.text, ms: answer.ms }
  }
  const between = async () => ({ value: await Bun.sleep(1), ms: 0 })
  for (let i = -5; i < orders; i++) {
    const keep = i >= 0
    await measure('add to cart', request('POST', '/v1/cart/items', { variantId, quantity: 1 }), keep)
    await measure('between requests', between, keep)
    const order = JSON.parse(await measure('checkout', request('POST', '/v1/orders/checkout'), keep)) as { id: string }
    await measure('between requests', between, keep)
    await measure('pay', request('POST', `/v1/orders/${order.id}/pay`, { method: 'PIX' }), keep)
    await measure('between requests', between, keep)
  }
  return [...samples].map(([name, runs]) => {
    const totals = runs.map((r) => r.tally.total)
    const texts = new Map<string, number>()
    for (const r of runs) for (const [text, n] of r.tally.texts) texts.set(text, (texts.get(text) ?? 0) + n)
    return {
      request: name,
      total: median(totals),
      min: Math.min(...totals),
      max: Math.max(...totals),
      byKind: Object.fromEntries(KINDS.map((k) => [k, median(runs.map((r) => r.tally.byKind[k]))])) as Record<StatementKind, number>,
      rowsChanged: median(runs.map((r) => r.rows)),
      ms: median(runs.map((r) => r.ms)),
      // Per request, on average: a statement run by every request shows 1.
      texts: [...texts].map(([text, n]): [string, number] => [text, n / runs.length]),
    }
  })
}

if (import.meta.main) {
  const { values: args } = parseArgs({
    options: { orders: { type: 'string', default: '50' }, products: { type: 'string', default: '1000' }, list: { type: 'boolean', default: false }, json: { type: 'string' }, fresh: { type: 'boolean', default: false } },
  })
  const log = (line: string) => process.stdout.write(line + '\n')
  const { dir, store } = await scaleData({ products: Number(args.products), orders: 0 }, args.fresh, log)
  const work = mkdtempSync(join(tmpdir(), 'storefront-bench-statements-'))
  const app = openInProcess(copyData(dir, work, 'data'))
  const [headers] = await registerCustomers(app, store.apiKey, 1, 'statements-')
  const rows = await countStatements(app, headers!, store.stockVariantId, Number(args.orders))
  await app.close()
  rmSync(work, { recursive: true, force: true })
  // Under `npm run bench` (--json), the whole report prints the table.
  if (args.json) {
    writeFileSync(args.json, JSON.stringify(rows))
    process.exit(0)
  }
  log(`\nSQL statements per request of the buying flow (${store.products.toLocaleString('en')} products; median of ${args.orders} orders by one customer, in-process)\n`)
  log(statementTable(rows, args.list))
  process.exit(0)
}
