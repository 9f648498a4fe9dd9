import { createProduct } from '../src/features/catalog/products'
import { createKey } from '../src/features/api-keys/service'
import { createGroup } from '../src/features/groups/service'
import { createTerm } from '../src/features/taxonomy/service'
import type { StoreCtx, StudentCtx } from '../src/kernel/auth/kinds'
import { writeTransaction } from '../src/kernel/db/database'
import type { CatalogDeps } from '../src/features/catalog/images'

/**
 * One store with `count` products made through the real service (createProduct), so every trigger,
 * ledger row and index is what a class would produce. Names, prices and states come from a seeded
 * generator: the same catalog every run.
 */
export const NOUNS = ['Camiseta', 'Calça', 'Tênis', 'Jaqueta', 'Boné', 'Meia', 'Mochila', 'Relógio', 'Óculos', 'Caneca', 'Garrafa', 'Luminária', 'Almofada', 'Toalha', 'Cadeira', 'Mesa', 'Fone', 'Teclado', 'Caderno', 'Caneta']
export const COLORS = ['Azul', 'Vermelho', 'Verde', 'Preto', 'Branco', 'Amarelo', 'Cinza', 'Rosa', 'Laranja', 'Marrom']
export const TRAITS = ['Básico', 'Premium', 'Esportivo', 'Clássico', 'Orgânico', 'Térmico', 'Infantil', 'Compacto', 'Retrô', 'Ecológico']
const STATES = ['PUBLISHED', 'PUBLISHED', 'PUBLISHED', 'PUBLISHED', 'PUBLISHED', 'PUBLISHED', 'PUBLISHED', 'DRAFT', 'DRAFT', 'ARCHIVED'] as const

/** mulberry32: a tiny seeded generator, so that the catalog is the same every run. */
export function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** The catalog's taxonomy ids, which products are spread over. */
export interface Terms {
  categories: string[]
  brands: string[]
  collections: string[]
}

/** Product `i` of a seeded catalog: the same fields whether it is made through the service or written by SQL (system/scale-seed.ts). */
export function productFields(pick: () => number, i: number, terms: Terms) {
  const one = <T>(items: readonly T[]) => items[Math.floor(pick() * items.length)]!
  const [noun, color, trait] = [one(NOUNS), one(COLORS), one(TRAITS)]
  return {
    type: 'SIMPLE' as const,
    name: `${noun} ${trait} ${color}`,
    sku: `${noun.slice(0, 3).toUpperCase()}-${String(i).padStart(6, '0')}`,
    price: Math.round(500 + pick() * 99_500) / 100,
    stock: Math.floor(pick() * 50),
    state: one(STATES),
    description: `${noun} ${trait.toLowerCase()} na cor ${color.toLowerCase()}, ideal para o dia a dia.`,
    categoryId: one(terms.categories),
    brandId: one(terms.brands),
    collectionIds: pick() < 0.2 ? [one(terms.collections)] : [],
    minStock: 5,
  }
}

/** The store's taxonomy: 20 categories, 50 brands, 10 collections. */
export function seedTerms(deps: CatalogDeps, ctx: StoreCtx): Terms {
  const terms = (kind: 'categories' | 'brands' | 'collections', n: number) =>
    Array.from({ length: n }, (_, i) => createTerm(deps, ctx, kind, { name: `${kind} ${i + 1}` }).id)
  return { categories: terms('categories', 20), brands: terms('brands', 50), collections: terms('collections', 10) }
}

export async function seedStore(deps: CatalogDeps, count: number, onProgress: (done: number) => void, who = { name: 'Bench', rm: 'bench1', seed: 42 }) {
  const group = createGroup(deps, { name: who.name, members: [{ rm: who.rm, name: 'Bench Student' }] })
  const ctx: StoreCtx = { storeId: group.storeId, groupId: group.id, actor: { type: 'student', rm: who.rm, mustChangePassword: false } }
  const key = createKey(deps, ctx as StudentCtx, 'bench', 'secret')
  const pick = random(who.seed)
  const terms = seedTerms(deps, ctx)
  const productIds: string[] = []
  const batch = 1000
  for (let start = 0; start < count; start += batch) {
    // One outer transaction per thousand products: the same rows, far fewer commits.
    writeTransaction(deps.db, () => {
      for (let i = start; i < Math.min(count, start + batch); i++) {
        productIds.push(createProduct(deps, ctx, productFields(pick, i, terms), deps.publicUrl.for()).id)
      }
    })
    onProgress(Math.min(count, start + batch))
  }
  return { ctx, apiKey: key.apiKey, productIds }
}
