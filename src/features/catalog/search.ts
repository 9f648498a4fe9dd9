import { sql, type SQL } from 'drizzle-orm'
import { products } from './tables'

/**
 * Full-text search over name, skus and description (the FTS5 table `product_search`, kept by
 * triggers). Its tokenizer folds case and accents, on the index and on the query alike, so
 * "acai" finds "Açaí". Each word of the query must appear, as a word or the start of one.
 */
export function searchExpression(search: string): string | null {
  const words = search.normalize('NFKC').match(/[\p{L}\p{N}]+/gu)
  if (!words) return null
  // Quoted, the words cannot be read as FTS5 operators (AND, NEAR, column filters...).
  return words
    .slice(0, 12)
    .map((w) => `"${w}"*`)
    .join(' ')
}

/** The products whose search row matches: a condition on products.seq, the FTS rowid. */
export const matchesSearch = (expression: string): SQL =>
  sql`${products.seq} in (select rowid from product_search where product_search match ${expression})`
