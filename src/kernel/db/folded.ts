import { eq, sql, type SQL, type SQLWrapper } from 'drizzle-orm'

/**
 * Letters with accents as SQLite's lower() leaves them, and the plain letter each sorts as: lower()
 * folds ASCII only, so 'Água' sorted after 'zebra' and 'Óculos' after both. The Portuguese, Spanish and
 * French accents a class writes names with; any other character sorts as itself.
 */
const ACCENTS: readonly (readonly [string, string])[] = [
  ['áàâãäÁÀÂÃÄ', 'a'],
  ['éèêëÉÈÊË', 'e'],
  ['íìîïÍÌÎÏ', 'i'],
  ['óòôõöÓÒÔÕÖ', 'o'],
  ['úùûüÚÙÛÜ', 'u'],
  ['çÇ', 'c'],
  ['ñÑ', 'n'],
]

/**
 * `column` lower-cased with its accents folded, as SQL: the key a list sorts names by ("Água" beside
 * "agenda", before "banana"). An index on it must be written with this same expression (catalog's
 * products_store_name) for an ordered walk to use it.
 */
export function foldedName(column: SQLWrapper): SQL {
  let folded: SQL = sql`lower(${column})`
  for (const [letters, plain] of ACCENTS) for (const letter of letters) folded = sql`replace(${folded}, ${sql.raw(`'${letter}'`)}, ${sql.raw(`'${plain}'`)})`
  return folded
}

/** The same fold in JavaScript, as `foldedName` gives it in SQL (lower() lowers ASCII letters only), to compare with it. */
export function foldName(name: string): string {
  let folded = name.replace(/[A-Z]/g, (c) => c.toLowerCase())
  for (const [letters, plain] of ACCENTS) for (const letter of letters) folded = folded.replaceAll(letter, plain)
  return folded
}

/** `column` holds `name`, ignoring case and accents ('TURMA AÇÃO' is 'Turma Ação'): how names are unique where lower() alone folded ASCII. */
export const sameName = (column: SQLWrapper, name: string): SQL => eq(foldedName(column), foldName(name))
