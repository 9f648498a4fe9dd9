import type { StoreCtx } from '../../kernel/auth/kinds'
import { AppError } from '../../kernel/errors'
import { type CatalogDeps, countLiveProducts, createProduct, variantsForSale } from '../catalog'
import { addItem } from '../cart'
import { checkout, type OrdersDeps, pay } from '../orders'
import { register, takenEmails } from '../customers'
import { getGroup } from '../groups'
import { type UploadDeps, uploadMedia } from '../media'
import { linkImage } from '../product-images'
import { createReview } from '../reviews'
import { createTerm } from '../taxonomy'
import { pluralize } from '../../kernel/plural'
import { perHandle } from '../../kernel/db/per-handle'
import type { Deps } from '../../kernel/deps'

const REVIEW_TITLES: Record<number, string> = { 5: 'Excelente', 4: 'Muito bom', 3: 'Razoável' }

/** A small deterministic random source (mulberry32): the same seed gives the same demo store. */
function random(seed: number) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return { next, int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)), pick: <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]! }
}

const CATEGORIES = { Roupas: ['Camiseta', 'Moletom', 'Bermuda', 'Jaqueta', 'Calça'], Calçados: ['Tênis', 'Sandália', 'Bota'], Acessórios: ['Boné', 'Mochila', 'Meia', 'Garrafa'] } as const
const BRANDS = ['Aurora', 'Cerrado', 'Maré Alta', 'Pinhão'] as const
const COLLECTIONS = ['Verão', 'Essenciais'] as const
const COLORS = [
  ['Azul', [31, 111, 235]],
  ['Verde', [46, 160, 67]],
  ['Vermelho', [218, 54, 51]],
  ['Amarelo', [212, 167, 44]],
  ['Preto', [36, 41, 47]],
  ['Lilás', [137, 87, 229]],
] as const
const SIZES = { Roupas: ['P', 'M', 'G'], Calçados: ['38', '40', '42'], Acessórios: ['Único'] } as const
const CUSTOMERS = ['Ana Souza', 'Bruno Lima', 'Carla Dias'] as const
export const DEMO_PRODUCTS = 40
const demoEmail = (name: string) => `${name.split(' ')[0]!.toLowerCase()}@demo.example`

/**
 * Fills an empty store with a demo catalog: categories, brands, collections, products with variants and
 * a picture each, and a few customers with paid orders and a review each, so a class can call the API in
 * its first minute. Everything goes through the same services as the API, so every rule and event holds.
 */
export async function seedDemo(deps: OrdersDeps & UploadDeps & CatalogDeps, groupId: string, seed = 1) {
  const group = getGroup(deps, groupId)
  const ctx: StoreCtx = { storeId: group.storeId, groupId: group.id, actor: { type: 'secretKey', keyId: 'seed-demo', rm: null } }
  const existing = countLiveProducts(deps.db, ctx.storeId)
  if (existing > 0) {
    throw new AppError('CONFLICT', `The store of '${group.name}' already has ${pluralize(existing, 'product')}. Reset it first (POST /v1/admin/groups/${group.id}/reset-store), then seed.`)
  }
  // The demo's customers are made after its catalog, in separate steps: one already there is refused
  // before anything is written, not halfway, with a catalog and no orders left behind.
  const taken = takenEmails(deps.db, ctx.storeId, CUSTOMERS.map(demoEmail))
  if (taken.length > 0) {
    throw new AppError(
      'CONFLICT',
      `The store of '${group.name}' already has a customer with the e-mail ${taken.join(', ')}, which the demo makes. Reset it first (POST /v1/admin/groups/${group.id}/reset-store), then seed.`,
    )
  }
  const running = seeding(deps)
  if (running.has(ctx.storeId)) {
    throw new AppError('CONFLICT', `seed-demo is already filling the store of '${group.name}'; it answers once it is done.`)
  }
  running.add(ctx.storeId)
  try {
    return await fill(deps, group, ctx, seed)
  } catch (e) {
    // Its steps await (pictures, passwords), and the group's own requests may write in between: a SKU
    // or an e-mail taken, a product deleted, stock moved stop it partway, and are told as such, to the
    // teacher. Any other refusal (a full media quota) is the store's state, said as it is.
    if (!(e instanceof AppError) || !MEANWHILE.has(e.code)) throw e
    throw new AppError(
      'CONFLICT',
      `seed-demo stopped partway: a request of the group wrote to the store meanwhile (${e.message}) What it made so far stays. Reset the store (POST /v1/admin/groups/${group.id}/reset-store), then seed again while the group is not writing to it.`,
    )
  } finally {
    running.delete(ctx.storeId)
  }
}

/** What a write of the group's own, made while the seed runs, can make the seed's next step answer. */
const MEANWHILE = new Set<string>(['CONFLICT', 'NOT_FOUND', 'INSUFFICIENT_STOCK', 'PRODUCT_UNAVAILABLE'])

/** The stores seed-demo is filling now: a reset waits for it, and a second seed is refused. */
export const seeding = perHandle((_deps: Deps) => new Set<string>())

async function fill(deps: OrdersDeps & UploadDeps & CatalogDeps, group: { id: string; name: string; storeId: string }, ctx: StoreCtx, seed: number) {
  const { demoPicture } = await import('./demo-images') // pngjs: loaded when seeding, not at start
  const rnd = random(seed)
  const categories = Object.fromEntries(Object.keys(CATEGORIES).map((name) => [name, createTerm(deps, ctx, 'categories', { name })]))
  const brands = BRANDS.map((name) => createTerm(deps, ctx, 'brands', { name }))
  const collections = COLLECTIONS.map((name) => createTerm(deps, ctx, 'collections', { name }))
  let variantCount = 0
  const names = new Set<string>()
  while (names.size < DEMO_PRODUCTS) {
    const category = rnd.pick(Object.keys(CATEGORIES)) as keyof typeof CATEGORIES
    const [colorName, rgb] = rnd.pick(COLORS)
    const brand = rnd.pick(brands)
    const name = `${rnd.pick(CATEGORIES[category])} ${colorName} ${brand.name}`
    if (names.has(name)) continue
    names.add(name)
    const n = names.size
    const sizes = SIZES[category]
    const price = rnd.int(19, 399) + rnd.pick([0.9, 0.99, 0.5])
    // A SKU as the API takes one (ASCII): 'Único' is UNICO there, and stays Único as the size shown.
    const sku = (size: string) => `DEMO-${String(n).padStart(3, '0')}-${size.normalize('NFD').replace(/[^A-Za-z0-9]/g, '').toUpperCase()}`
    // Every variant names its size, the first one too: a shop front tells them apart by their options.
    // The random draws keep their order (first stock, collection, other stocks), so a seed gives the same catalog.
    const firstStock = rnd.int(0, 40)
    const collectionIds = rnd.next() < 0.4 ? [rnd.pick(collections).id] : []
    const variants = sizes.map((size, i) => ({ sku: sku(size), price, stock: i === 0 ? firstStock : rnd.int(0, 30), options: { tamanho: size }, minStock: 5 }))
    const product = createProduct(deps, ctx, {
      type: 'SIMPLE',
      name,
      variants,
      state: n % 8 === 0 ? 'DRAFT' : 'PUBLISHED',
      description: `${name}: produto de demonstração da loja ${group.name}.`,
      categoryId: categories[category]!.id,
      brandId: brand.id,
      collectionIds,
    }, deps.publicUrl.for())
    variantCount += variants.length
    const form = new FormData()
    form.append('file', new Blob([demoPicture([...rgb])], { type: 'image/png' }), `demo-${n}.png`)
    const { media } = await uploadMedia(deps, ctx, new Request('http://seed.local/', { method: 'POST', body: form }))
    linkImage(deps, ctx, product.id, { mediaId: media.id }, deps.publicUrl.for())
  }
  const customers = []
  let orders = 0
  let reviews = 0
  for (const [i, name] of CUSTOMERS.entries()) {
    const email = demoEmail(name)
    const password = `demo-password-${i + 1}`
    const { customer } = await register(deps, ctx, { email, password, name })
    customers.push({ email, password })
    // Each demo customer has bought something, so orders, stock movements and reviews have data.
    const buyer: StoreCtx = { ...ctx, actor: { type: 'customer', customerId: customer.id, keyId: 'seed-demo', keyKind: 'secret', rm: null } }
    const forSale = variantsForSale(deps.db, ctx.storeId, 8)
    for (let k = 0; k < 2 && forSale.length > 0; k++) {
      const bought = rnd.pick(forSale)
      await addItem(deps, buyer, { variantId: bought.id, quantity: 1 })
      const order = await checkout(deps, buyer)
      await pay(deps, buyer, order.id, { method: k === 0 ? 'PIX' : 'CREDIT_CARD' }, undefined)
      orders++
      // The first purchase of each customer gets a review. It draws no random number, so the rest of what a seed makes does not depend on it.
      if (k === 0) {
        const rating = 5 - (i % 3)
        createReview(deps, buyer, bought.productId, { rating, title: REVIEW_TITLES[rating]!, comment: 'Demo review written by seed-demo.', mediaIds: [] }, deps.publicUrl.for())
        reviews++
      }
    }
  }
  return {
    groupId: group.id,
    storeId: group.storeId,
    categories: Object.keys(categories).length,
    brands: brands.length,
    collections: collections.length,
    products: DEMO_PRODUCTS,
    variants: variantCount,
    images: DEMO_PRODUCTS,
    orders,
    reviews,
    customers,
  }
}
