import { z } from 'zod'
import { nameText, withoutControlCharacters } from '../../kernel/control-characters'
import type { IdPrefix } from '../../kernel/ids'
import { brands, categories, collections } from './tables'

/** The three kinds of taxonomy term, served by one implementation under their own paths. */
export const TAXONOMIES = {
  categories: { table: categories, prefix: 'cat', one: 'category', schemaId: 'Category' },
  brands: { table: brands, prefix: 'brd', one: 'brand', schemaId: 'Brand' },
  collections: { table: collections, prefix: 'col', one: 'collection', schemaId: 'Collection' },
} as const satisfies Record<string, { prefix: IdPrefix; one: string; schemaId: string; table: unknown }>

export type TaxonomyKind = keyof typeof TAXONOMIES

// A name as every other name a person types (NFC, so that "Calçados" written with a combining cedilla is
// the same name; no control characters); a description keeps its line breaks and tabs.
const Name = nameText('name', 80)
const Description = withoutControlCharacters(z.string().trim().max(2000, 'description has at most 2000 characters'), 'description', true).nullable()

export const TermInput = z.object({ name: Name, description: Description.optional() }).strict()
export type TermInput = z.infer<typeof TermInput>

export const TermUpdate = z.object({ name: Name, description: Description }).partial().strict()
export type TermUpdate = z.infer<typeof TermUpdate>

const termSchema = (id: string) =>
  z
    .object({ id: z.string(), name: z.string(), description: z.string().nullable(), createdAt: z.string(), updatedAt: z.string() })
    .meta({ id })

/** One response schema per kind, so the document names them Category, Brand and Collection. */
export const TERM_SCHEMAS = {
  categories: termSchema(TAXONOMIES.categories.schemaId),
  brands: termSchema(TAXONOMIES.brands.schemaId),
  collections: termSchema(TAXONOMIES.collections.schemaId),
}

export type Term = z.infer<(typeof TERM_SCHEMAS)['categories']>

export const TermIdParams = z.object({ id: z.string() })
