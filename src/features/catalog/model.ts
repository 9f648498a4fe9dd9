import { z } from 'zod'
import { controlProblem, nameText, withoutControlCharacters } from '../../kernel/control-characters'
import { idOfKind, idRef } from '../../kernel/id-schema'
import { Money, MoneyBound } from '../../kernel/money'
import { Page, PageQuery } from '../../kernel/pagination'
import { PRODUCT_STATES, STOCK_MOVEMENT_KINDS } from './tables'

// Request and response shapes of products, variants and stock.

const STOCK_ENDPOINTS = 'POST /v1/variants/:id/stock/receive or POST /v1/variants/:id/stock/adjust'

/** A field that belongs to another endpoint: sending it is a 400 whose message names that endpoint. */
const elsewhere = (message: string) => z.never({ error: message }).optional().describe(message)

const stockElsewhere = elsewhere(`changes only through ${STOCK_ENDPOINTS}, so that every change is in the stock ledger`)

const Name = nameText('name', 200)
const Description = withoutControlCharacters(z.string().trim().max(5000, 'description has at most 5000 characters'), 'description', true).describe(
  'Up to 5000 characters, line breaks and tabs allowed; other control characters are refused.',
)
const Sku = z
  .string()
  .trim()
  .min(1, 'sku is required')
  .max(64, 'sku has at most 64 characters')
  .regex(/^[A-Za-z0-9][A-Za-z0-9._\-/]*$/, 'sku may hold letters, digits, dot, dash, underscore and slash, and starts with a letter or digit')
  .describe('Unique in the store, ignoring case.')

/**
 * The most units a variant holds, however many receives or adjustments add up: the product's `stock`
 * sums its variants, and stays an exact integer even for millions of them.
 */
export const MAX_STOCK = 1_000_000_000

const Quantity = z.number().int('must be a whole number')
const StockLevel = Quantity.min(0, 'must not be negative').max(1_000_000)
/** A variant's minStock when none is given. */
export const DEFAULT_MIN_STOCK = 5
const MinStock = StockLevel.describe(`product.low_stock fires when available falls to or below this (default ${DEFAULT_MIN_STOCK})`)
/**
 * Options a variant may have: as many as a shop's product page shows as choices (Shopify's rule too).
 * Every list item carries its variants, so what a variant may hold is what a page of 100 products can
 * weigh: docs/hostile-input.md, "Large answers".
 */
export const MAX_OPTIONS = 3
const MAX_OPTION_NAME = 40
const MAX_OPTION_VALUE = 80
const Options = z
  .record(
    // What the document says of a name; the check is below.
    z.string().meta({ minLength: 1, maxLength: MAX_OPTION_NAME }),
    withoutControlCharacters(
      z.string().trim().min(1, 'an option value is required: send the choice, e.g. "M"').max(MAX_OPTION_VALUE, `an option value has at most ${MAX_OPTION_VALUE} characters`),
      'an option value',
    ),
  )
  .refine((o) => Object.keys(o).length <= MAX_OPTIONS, `a variant has at most ${MAX_OPTIONS} options (such as size, color and material); combine the others into one`)
  // Names are checked here rather than by the key's schema: zod reports any refused key as "Invalid key
  // in record", and a trimming key schema would merge " size" into "size" without a word. Each is
  // trimmed first (whitespace, line breaks included), as a name is (nameText), then checked.
  .superRefine((o, issues) => {
    const seen = new Map<string, string>()
    for (const name of Object.keys(o)) {
      const trimmed = name.trim()
      const problem =
        trimmed === ''
          ? 'an option name is required: name what the variant differs in, e.g. "size"'
          : trimmed.length > MAX_OPTION_NAME
            ? `an option name has at most ${MAX_OPTION_NAME} characters`
            : trimmed === '__proto__'
              ? 'an option name cannot be "__proto__" (JavaScript treats it as special): choose another name'
              : seen.has(trimmed)
              ? `option names ${JSON.stringify(seen.get(trimmed))} and ${JSON.stringify(name)} are the same name once the whitespace around it is trimmed; send it once`
              : controlProblem(trimmed, 'an option name')
      if (problem) issues.addIssue({ code: 'custom', message: problem })
      if (!seen.has(trimmed)) seen.set(trimmed, name)
    }
  })
  .overwrite((o) => Object.fromEntries(Object.entries(o).map(([name, value]) => [name.trim(), value])))
  .meta({ maxProperties: MAX_OPTIONS })
  .describe(`What tells this variant apart, e.g. {"size": "M", "color": "blue"}: at most ${MAX_OPTIONS} options, each name up to ${MAX_OPTION_NAME} characters and each value up to ${MAX_OPTION_VALUE}, the whitespace around them trimmed.`)
const TermId = (what: string, name: string) => idRef(name).nullable().describe(`id of one of this store's ${what}, or null`)
const CollectionIds = z.array(idRef('collectionIds[]')).max(50).describe("ids of this store's collections")
export const ProductStateSchema = z.enum(PRODUCT_STATES).describe('DRAFT (the default), PUBLISHED (can be bought) or ARCHIVED')

export const AddVariantBody = z
  .object({ sku: Sku, price: Money, stock: StockLevel, options: Options.default({}), minStock: MinStock.default(DEFAULT_MIN_STOCK) })
  .strict()
export type AddVariantBody = z.infer<typeof AddVariantBody>

/** How many variants one POST /v1/products may create: each is a row, an index entry and a ledger line in one transaction. */
export const MAX_VARIANTS_PER_CREATE = 100

/** What a product with one variant takes at the top level; with `variants`, each variant has its own. */
const ONE_VARIANT_FIELDS = ['sku', 'price', 'stock', 'minStock'] as const
/** A JSON Schema clause that holds when every one of `fields` is sent (their schemas are the object's own). */
const present = (fields: readonly string[]) => ({ properties: Object.fromEntries(fields.map((field) => [field, {}])), required: [...fields] })
const REQUIRED_WITHOUT_VARIANTS = ['sku', 'price', 'stock'] as const

export const CreateProductBody = z
  .object({
    type: z.literal('SIMPLE').default('SIMPLE'),
    name: Name,
    sku: Sku.optional().describe('the one variant\'s sku; unique in the store, ignoring case. Leave it out when sending `variants`'),
    price: Money.optional().describe(`The one variant's price; leave it out when sending \`variants\`. ${Money.description}`),
    stock: StockLevel.optional().describe('the one variant\'s initial stock, recorded in the ledger as a RECEIVE; leave it out when sending `variants`'),
    variants: z
      .array(AddVariantBody)
      .min(1, 'variants needs at least one variant')
      .max(MAX_VARIANTS_PER_CREATE, `variants holds at most ${MAX_VARIANTS_PER_CREATE}, the most a product has: sell the others as another product`)
      .optional()
      .describe(`instead of sku, price and stock: 1 to ${MAX_VARIANTS_PER_CREATE} variants, each {sku, price, stock, options, minStock?}, made with the product or not at all`),
    state: ProductStateSchema.default('DRAFT'),
    description: Description.default(''),
    categoryId: TermId('categories', 'categoryId').optional(),
    brandId: TermId('brands', 'brandId').optional(),
    collectionIds: CollectionIds.default([]),
    minStock: MinStock.optional().describe(`the one variant's minStock (default ${DEFAULT_MIN_STOCK}); with \`variants\`, give it per variant`),
  })
  .strict()
  .superRefine((body, issues) => {
    if (body.variants) {
      for (const field of ONE_VARIANT_FIELDS) {
        if (body[field] === undefined) continue
        issues.addIssue({
          code: 'custom',
          path: [field],
          message: `${field} belongs in each variant when variants is sent: send either sku, price and stock (one variant) or variants (several), not both`,
        })
      }
      return
    }
    for (const field of REQUIRED_WITHOUT_VARIANTS) {
      if (body[field] !== undefined) continue
      issues.addIssue({ code: 'custom', path: [field], message: `${field} is required (or send variants: [{sku, price, stock, options}] for several variants)` })
    }
  })
  // The rule above, for the OpenAPI document: a generated client and a checking proxy refuse what the
  // server refuses. Each branch names its required fields as properties too (their schemas are the
  // object's), which is what makes a generated type require them.
  .meta({
    oneOf: [
      { title: 'One variant', ...present(REQUIRED_WITHOUT_VARIANTS), not: present(['variants']) },
      { title: 'Several variants', ...present(['variants']), not: { anyOf: ONE_VARIANT_FIELDS.map((field) => present([field])) } },
    ],
  })
export type CreateProductBody = z.infer<typeof CreateProductBody>

export const UpdateProductBody = z
  .object({
    name: Name,
    description: Description,
    state: ProductStateSchema,
    categoryId: TermId('categories', 'categoryId'),
    brandId: TermId('brands', 'brandId'),
    collectionIds: CollectionIds.describe('replaces the whole list'),
  })
  .partial()
  .extend({
    price: elsewhere('is set per variant: PATCH /v1/variants/:id (the product price is its lowest variant price)'),
    sku: elsewhere('is set per variant: PATCH /v1/variants/:id'),
    stock: stockElsewhere,
  })
  .strict()
export type UpdateProductBody = z.infer<typeof UpdateProductBody>

export const PatchVariantBody = z
  .object({ price: Money, sku: Sku, minStock: MinStock, options: Options })
  .partial()
  .extend({ stock: stockElsewhere })
  .strict()
export type PatchVariantBody = z.infer<typeof PatchVariantBody>

export const ReceiveBody = z
  .object({
    quantity: Quantity.min(1, 'must be at least 1').max(1_000_000, 'can be at most 1000000 a receive; send more receives for more').describe(`units that arrived; the stock after them is at most ${MAX_STOCK} (409 CONFLICT above it)`),
    note: z.string().trim().max(200).optional().describe('kept in the ledger as the reason'),
    reason: elsewhere("is an adjustment's field; a receive takes note, kept in the ledger as the reason"),
  })
  .strict()

export const AdjustBody = z
  .object({
    quantity: Quantity.min(-1_000_000, 'must be at least -1000000 an adjustment')
      .max(1_000_000, 'can be at most 1000000 an adjustment')
      .refine((q) => q !== 0, 'must not be 0')
      .describe(`signed: -2 removes two units (breakage, loss), 3 adds three (found in a count); the stock after it is at most ${MAX_STOCK} (409 CONFLICT above it)`),
    reason: z
      .string({ error: 'reason is required: say why the stock changed, e.g. "broken in transit"' })
      .trim()
      .min(1, 'reason is required: say why the stock changed, e.g. "broken in transit"')
      .max(200),
    note: elsewhere("is a receive's field; an adjustment takes reason, which it requires"),
  })
  .strict()

const SORTS = ['name', 'price', '-price', 'createdAt', '-createdAt', '-rating'] as const
export type ProductSort = (typeof SORTS)[number]

const PriceFilter = z.coerce.number({ error: 'must be a number, e.g. 19.90' }).pipe(MoneyBound)

export const ProductListQuery = PageQuery.extend({
  search: z.string().trim().max(200).optional().describe('words to find in name, sku or description, ignoring case and accents; a word matches as a prefix ("cami" finds Camiseta), except that a one-letter word matches only itself ("p" finds the size P) and a word longer than 8 letters matches by its first 8 ("camisetas" finds Camiseta too). Words are letters and digits: the rest (punctuation, emoji, symbols) only separates them, so a search with no letter or digit in it finds nothing; the first 12 words are searched, and any after them ignored'),
  categoryId: idOfKind('categoryId', 'category').optional(),
  brandId: idOfKind('brandId', 'brand').optional(),
  collectionId: idOfKind('collectionId', 'collection').optional(),
  state: ProductStateSchema.optional().describe(
    'without it the secret key and student tokens list every state; a publishable key (pk_...) lists PUBLISHED products only, and DRAFT or ARCHIVED with it is 403 SECRET_KEY_REQUIRED',
  ),
  minPrice: PriceFilter.optional().describe('lowest product price (its cheapest variant), inclusive'),
  maxPrice: PriceFilter.optional().describe('highest product price (its cheapest variant), inclusive'),
  sort: z
    .enum(SORTS, `sort must be one of ${SORTS.join(', ')}: one order at a time, a leading - for descending`)
    .default('-createdAt')
    .describe('a leading - sorts descending; default -createdAt'),
}).refine((q) => q.minPrice === undefined || q.maxPrice === undefined || q.minPrice <= q.maxPrice, {
  message: 'minPrice must not be above maxPrice',
  path: ['minPrice'],
})
export type ProductListQuery = z.infer<typeof ProductListQuery>

export const IdParams = z.object({ id: z.string() })

export const Variant = z
  .object({
    id: z.string().describe('what carts take'),
    productId: z.string(),
    sku: z.string(),
    price: z.number(),
    stock: z.number().int().describe('units on hand'),
    reserved: z.number().int().describe('units held by PENDING orders'),
    available: z.number().int().describe('stock - reserved: what can still be sold'),
    minStock: z.number().int(),
    options: z.record(z.string(), z.string()),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Variant' })
export type Variant = z.infer<typeof Variant>

export const Rating = z
  .object({
    average: z.number().describe('rounded to 2 decimals; 0 without reviews'),
    count: z.number().int(),
    distribution: z.object({ 5: z.number().int(), 4: z.number().int(), 3: z.number().int(), 2: z.number().int(), 1: z.number().int() }),
  })
  .meta({ id: 'RatingSummary' })

export const ProductImage = z
  .object({ id: z.string(), productId: z.string(), mediaId: z.string().nullable(), url: z.string(), isPrimary: z.boolean(), position: z.number().int() })
  .meta({ id: 'ProductImage' })

const productFields = {
  id: z.string(),
  type: z.literal('SIMPLE'),
  name: z.string(),
  sku: z.string().describe('the sku of the first variant'),
  description: z.string(),
  price: z.number().describe('the lowest variant price'),
  stock: z.number().int().describe("the sum of the variants' available stock"),
  state: ProductStateSchema,
  categoryId: z.string().nullable(),
  brandId: z.string().nullable(),
  collectionIds: z.array(z.string()),
  variants: z.array(Variant),
  image: z.string().nullable().describe('URL of the cover image, null without images'),
  rating: Rating,
  createdAt: z.string(),
  updatedAt: z.string(),
}

export const ProductSummary = z.object(productFields).meta({ id: 'ProductSummary' })
export type ProductSummary = z.infer<typeof ProductSummary>

export const ProductPage = Page(ProductSummary)

export const Product = z.object({ ...productFields, images: z.array(ProductImage) }).meta({ id: 'Product' })
export type Product = z.infer<typeof Product>

export const StockMovement = z
  .object({
    id: z.string().describe('mov_ and 20 digits; a later movement has a greater id'),
    variantId: z.string(),
    kind: z.enum(STOCK_MOVEMENT_KINDS).describe('RECEIVE and ADJUST come from the stock endpoints; RESERVE, RELEASE, SALE and RETURN from orders'),
    quantity: z.number().int().describe('units moved: signed for ADJUST, positive otherwise'),
    stock: z.number().int().describe('stock after this movement'),
    reserved: z.number().int().describe('reserved after this movement'),
    available: z.number().int().describe('available after this movement'),
    reason: z.string().nullable(),
    orderId: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'StockMovement' })
export type StockMovement = z.infer<typeof StockMovement>

/** Low-stock variants are counted up to this many; past it the overview says "more than". */
export const LOW_STOCK_COUNTED = 1000
