import { z } from 'zod'
import type { IdPrefix } from '../../kernel/ids'
import { brands, categories, collections } from './tables'

/** The three kinds of taxonomy term, served by one implementation under their own paths. */
export const TAXONOMIES = {
  categories: { table: categories, prefix: 'cat', one: 'category', schemaId: 'Category' },
  brands: { table: brands, prefix: 'brd', one: 'brand', schemaId: 'Brand' },
  collections: { table: collections, prefix: 'col', one: 'collection', schemaId: 'Collection' },
} as const satisfies Record<string, { prefix: IdPrefix; one: string; schemaId: string; table: unknown }>

export type TaxonomyKind = keyof typeof TAXONOMIES

const Name = z.string().trim().min(1, 'name is required').max(80, 'name has at most 80 characters')
const Description = z.string().trim().max(2000, 'description has at most 2000 characters').nullable()

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
