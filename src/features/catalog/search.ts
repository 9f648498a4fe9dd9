import { sql, type SQL } from 'drizzle-orm'
import type { Sql } from '../../kernel/db/database'
import type { ProductListQuery } from './model'
import { products } from './tables'

/** The prefix lengths the index keeps as lists of their own (migrations/0014_search_word_prefixes.sql). */
const KEPT_PREFIXES = { shortest: 2, longest: 8 }

/**
 * Full-text search over name, skus and description (the FTS5 table `product_search`, kept by
 * triggers). Its tokenizer folds case and accents, on the index and on the query alike, so
 * "acai" finds "Açaí". Each word of the query must appear, as a word or the start of one.
 *
 * A prefix the index does not keep is found by reading every distinct word that starts with it, in
 * every store: one store seeding words that start alike would make every store's search read them
 * all, a second or more each time. So a word of one letter matches that word only ("p" finds the
 * size P, not "Pote"), and a word longer than the longest kept prefix matches by its first letters
 * up to that length ("camisetas" finds "camiseta" too).
 */
export function searchWords(search: string): string | null {
  const words = search.normalize('NFKC').match(/[\p{L}\p{N}]+/gu)
  if (!words) return null
  // Quoted, the words cannot be read as FTS5 operators (AND, NEAR, column filters...).
  return words
    .slice(0, 12)
    .map((w) => {
      const letters = [...w]
      if (letters.length < KEPT_PREFIXES.shortest) return `"${w}"`
      return `"${letters.slice(0, KEPT_PREFIXES.longest).join('')}"*`
    })
    .join(' ')
}

/**
 * The search of one store, of one state if given: every row of the index names its store, and its
 * store with its state, in the column `store` (migrations/0011_catalog_search_per_store.sql writes the
 * same words). The index then finds and counts the store's matches alone, however big other stores are.
 */
export function searchExpression(storeId: string, state: ProductListQuery['state'], words: string): string {
  const store = storeId.replaceAll('_', '')
  return `store : "${state ? store + state.toLowerCase() : store}" AND {name skus description} : (${words})`
}

/** The products whose search row matches: a condition on products.seq (as `seq` writes it), the FTS rowid. */
export const matchesSearch = (expression: string, seq: SQL = sql`${products.seq}`): SQL =>
  sql`${seq} in (select rowid from product_search where product_search match ${expression})`

/** How many rows of the index match: exact, and counted without reading a product. */
export const countMatches = (db: Sql, expression: string): number =>
  db.all<{ n: number }>(sql`select count(*) as n from product_search where product_search match ${expression}`)[0]!.n
