/**
 * The scale bench's table: each row beside the smallest size of the same measurement, in the same run.
 */

export interface ScaleRow {
  measure: string
  /** What `size` counts: products in the store, or earlier orders in it. */
  unit: 'products' | 'orders'
  size: number
  p50: number
  p99: number
  /** Requests (or orders) a second, one at a time: 1 / the mean time. */
  perSecond: number
  /** Median statements per request (per order for checkout). */
  statements: number
  samples: number
}

/** A row is flat when its median is within this factor of the smallest size's. */
export const FLAT = 1.2
/** The first search of a store, at 100,000 products: p99 target, ms. */
export const FIRST_SEARCH_P99 = 100

const ms = (x: number) => (x < 1 ? x.toFixed(3) : x < 10 ? x.toFixed(2) : x.toFixed(1))
const n = (x: number) => Math.round(x).toLocaleString('en')

export function scaleTable(rows: ScaleRow[]): string {
  const out = [
    `Each row against the smallest size of its measurement in the same run; "flat" when its p50 is within ${Math.round((FLAT - 1) * 100)} % of it.`,
    '',
    '| measure | size | p50 ms | p99 ms | per second | statements | p50 vs smallest | p99 vs smallest | within 20 % |',
    '|---|---|---|---|---|---|---|---|---|',
  ]
  const smallest = new Map<string, ScaleRow>()
  for (const r of rows) {
    const base = smallest.get(r.measure) ?? (smallest.set(r.measure, r), r)
    const ratio = r.p50 / base.p50
    const flat = r === base ? '' : ratio <= FLAT ? 'yes' : '**no**'
    const target = r.measure.startsWith('first search') && r.size === 100_000 ? `; target p99 <= ${FIRST_SEARCH_P99} ms: ${r.p99 <= FIRST_SEARCH_P99 ? 'holds' : '**misses**'}` : ''
    out.push(`| ${r.measure} | ${n(r.size)} ${r.unit} | ${ms(r.p50)} | ${ms(r.p99)} | ${n(r.perSecond)} | ${r.statements} | ${ratio.toFixed(2)} | ${(r.p99 / base.p99).toFixed(2)} | ${flat}${target} |`)
  }
  return out.join('\n')
}
