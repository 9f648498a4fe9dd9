/**
 * One store of a given size for the scale bench (bench/scale.ts), written fast: the store, its key,
 * its taxonomy and the few products the bench buys or reviews are made through the real services;
 * the bulk (products with their variant and initial stock ledger row, customers, reviews, paid orders)
 * is written by prepared SQL inserts, in a few large transactions, into the app's own migrated schema,
 * so every trigger (search index, counts, ratings rows, catalog versions) runs as for any write. The
 * catalog is the whole-system bench's (bench/seed.ts: same names, prices and states).
 *
 * Cached in `<tmp>/storefront-bench-scale-<seedKey>/p<products>-o<orders>` with its manifest.json;
 * every run works on a copy.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createKey } from '../../src/features/api-keys/service'
import { createProduct } from '../../src/features/catalog/products'
import { createGroup } from '../../src/features/groups/service'
import type { StoreCtx, StudentCtx } from '../../src/kernel/auth/kinds'
import { writeTransaction } from '../../src/kernel/db/database'
import { migrate } from '../../src/kernel/db/migrate'
import { productFields, random, seedTerms } from '../seed'
import { openInProcess } from './in-process'
import { drainOutbox, seedKey } from './seed'

/** Raise when what this seed makes changes: the cache is keyed by it. */
const SCALE_SEED_VERSION = 1
/** Customers who wrote the reviews and placed the earlier orders. */
const CUSTOMERS = 1_000
/** Reviews of the product whose review list is measured, at every size. */
const REVIEWS_OF_MEASURED = 60
/** Products bought by the earlier orders. */
const POPULAR = 20
const BATCH = 100_000

export interface ScaleStore {
  products: number
  orders: number
  storeId: string
  apiKey: string
  /** Products the detail measurement asks for, spread over the catalog. */
  sampleProductIds: string[]
  /** A product with REVIEWS_OF_MEASURED reviews. */
  reviewedProductId: string
  /** "Bench stock": a billion units, for the checkout measurement. */
  stockVariantId: string
}

export async function scaleData(size: { products: number; orders: number }, fresh: boolean, log: (line: string) => void): Promise<{ dir: string; store: ScaleStore }> {
  const dir = join(tmpdir(), `storefront-bench-scale-${seedKey(SCALE_SEED_VERSION)}`, `p${size.products}-o${size.orders}`)
  const manifest = join(dir, 'manifest.json')
  if (!fresh && existsSync(manifest)) return { dir, store: JSON.parse(readFileSync(manifest, 'utf8')) as ScaleStore }
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(join(dir, 'media'), { recursive: true })
  const started = performance.now()
  log(`  seeding ${size.products.toLocaleString('en')} products, ${size.orders.toLocaleString('en')} orders into ${dir}`)
  const store = await seed(dir, size, log)
  writeFileSync(manifest, JSON.stringify(store, null, 1))
  log(`  seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`)
  return { dir, store }
}

async function seed(dir: string, size: { products: number; orders: number }, log: (line: string) => void): Promise<ScaleStore> {
  const app = openInProcess(dir, migrate)
  const { deps } = app
  const sqlite = deps.sqlite
  sqlite.exec('PRAGMA cache_size = -262144')
  const group = createGroup(deps, { name: 'Scale', members: [{ rm: 'scale1', name: 'Scale Student' }] })
  const ctx: StoreCtx = { storeId: group.storeId, groupId: group.id, actor: { type: 'student', rm: 'scale1', mustChangePassword: false } }
  const apiKey = createKey(deps, ctx as StudentCtx, 'bench', 'secret').apiKey
  const terms = seedTerms(deps, ctx)
  const special = (name: string, stock: number) =>
    createProduct(deps, ctx, { type: 'SIMPLE', name, sku: name.toUpperCase().replace(/\W+/g, '-'), price: 19.9, stock, state: 'PUBLISHED', description: `${name}: bought by the benchmark.`, collectionIds: [], minStock: 0 }, deps.publicUrl.for())
  const stock = special('Bench stock', 1_000_000_000)
  const popular = Array.from({ length: POPULAR }, (_, i) => special(`Popular ${i + 1}`, 10_000_000))
  const storeId = ctx.storeId
  const base = Date.now()
  const id = (prefix: 'prod' | 'var' | 'cus' | 'rev' | 'ord' | 'pay') => deps.ids.next(prefix)
  const inBatches = (n: number, write: (i: number) => void, what: string) => {
    for (let start = 0; start < n; start += BATCH) {
      writeTransaction(deps.db, () => {
        for (let i = start; i < Math.min(n, start + BATCH); i++) write(i)
      })
      if (n > BATCH) log(`    ${what}: ${Math.min(n, start + BATCH).toLocaleString('en')}`)
    }
  }

  const insertProduct = sqlite.prepare(
    `insert into products (id, store_id, type, name, description, state, category_id, brand_id, created_at, updated_at) values (?, ?, 'SIMPLE', ?, ?, ?, ?, ?, ?, ?)`,
  )
  const insertVariant = sqlite.prepare(
    `insert into variants (id, store_id, product_id, sku, price_cents, stock, reserved, min_stock, options, position, created_at, updated_at) values (?, ?, ?, ?, ?, ?, 0, ?, '{}', 0, ?, ?)`,
  )
  const insertMovement = sqlite.prepare(
    `insert into stock_movements (store_id, variant_id, kind, quantity, stock_after, reserved_after, reason, order_id, created_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  )
  const insertCollection = sqlite.prepare(`insert into product_collections (product_id, collection_id) values (?, ?)`)
  const pick = random(42)
  const bulk = size.products - 1 - POPULAR
  const productIds: string[] = []
  inBatches(
    bulk,
    (i) => {
      const p = productFields(pick, i, terms)
      const productId = id('prod')
      const variantId = id('var')
      const at = base + i
      insertProduct.run(productId, storeId, p.name, p.description, p.state, p.categoryId, p.brandId, at, at)
      insertVariant.run(variantId, storeId, productId, p.sku, Math.round(p.price * 100), p.stock, p.minStock, at, at)
      if (p.stock > 0) insertMovement.run(storeId, variantId, 'RECEIVE', p.stock, p.stock, 0, 'initial stock', null, at)
      for (const c of p.collectionIds) insertCollection.run(productId, c)
      productIds.push(productId)
    },
    'products',
  )

  const insertCustomer = sqlite.prepare(`insert into customers (id, store_id, email, name, password_hash, created_at) values (?, ?, ?, ?, 'never used to log in', ?)`)
  const customers = Array.from({ length: CUSTOMERS }, (_, c) => ({ id: id('cus'), email: `c${c}@scale.bench`, name: `Customer ${c}` }))
  writeTransaction(deps.db, () => customers.forEach((c) => insertCustomer.run(c.id, storeId, c.email, c.name, base)))

  // Reviews: the measured product's, and one on every tenth product of the catalog, so that the
  // reviews table grows with the store. product_ratings is what the reviews feature keeps beside them.
  const insertReview = sqlite.prepare(
    `insert into reviews (id, store_id, product_id, customer_id, rating, title, comment, hidden, created_at, updated_at) values (?, ?, ?, ?, ?, ?, 'Chegou rápido e é como na foto. Recomendo para quem precisa no dia a dia.', 0, ?, ?)`,
  )
  const setRating = sqlite.prepare(
    `update product_ratings set count = ?, sum = ?, average = ?, r1 = ?, r2 = ?, r3 = ?, r4 = ?, r5 = ? where product_id = ?`,
  )
  const rate = (productId: string, stars: number[]) => {
    const sum = stars.reduce((a, b) => a + b, 0)
    const by = (s: number) => stars.filter((r) => r === s).length
    setRating.run(stars.length, sum, Math.round((sum / stars.length) * 100) / 100, by(1), by(2), by(3), by(4), by(5), productId)
  }
  const reviewed = popular[0]!.id
  writeTransaction(deps.db, () => {
    const stars = Array.from({ length: REVIEWS_OF_MEASURED }, (_, c) => 1 + (c % 5))
    stars.forEach((r, c) => insertReview.run(id('rev'), storeId, reviewed, customers[c]!.id, r, `Review ${c}`, base + c, base + c))
    rate(reviewed, stars)
  })
  inBatches(
    Math.floor(bulk / 10),
    (i) => {
      const productId = productIds[i * 10]!
      const rating = 1 + (i % 5)
      insertReview.run(id('rev'), storeId, productId, customers[i % CUSTOMERS]!.id, rating, `Review ${i}`, base + i, base + i)
      rate(productId, [rating])
    },
    'reviews',
  )

  if (size.orders > 0) seedOrders(app.deps, storeId, size.orders, customers, [stock, ...popular], base, log)

  await deps.lifecycle.stop()
  drainOutbox(deps.db)
  app.database.close()
  const step = Math.max(1, Math.floor(productIds.length / 1000))
  return {
    products: size.products,
    orders: size.orders,
    storeId,
    apiKey,
    sampleProductIds: productIds.filter((_, i) => i % step === 0),
    reviewedProductId: reviewed,
    stockVariantId: stock.variants[0]!.id,
  }
}

/**
 * `n` paid orders of one unit each, as checkout and pay leave them: the order and its line, an
 * approved payment, the RESERVE and SALE rows of the stock ledger, and the variant's stock after them.
 */
function seedOrders(
  deps: ReturnType<typeof openInProcess>['deps'],
  storeId: string,
  n: number,
  customers: { id: string; email: string; name: string }[],
  bought: { id: string; name: string; variants: { id: string; sku: string; price: number; stock: number }[] }[],
  base: number,
  log: (line: string) => void,
) {
  const sqlite = deps.sqlite
  const insertOrder = sqlite.prepare(
    `insert into orders (id, store_id, number, customer_id, customer_name, customer_email, status, subtotal_cents, total_cents, currency, created_at, updated_at, expires_at, paid_at) values (?, ?, ?, ?, ?, ?, 'PAID', ?, ?, 'BRL', ?, ?, ?, ?)`,
  )
  const insertItem = sqlite.prepare(
    `insert into order_items (order_id, position, variant_id, product_id, name, sku, unit_price_cents, quantity, line_total_cents) values (?, 0, ?, ?, ?, ?, ?, 1, ?)`,
  )
  const insertPayment = sqlite.prepare(`insert into payments (id, order_id, store_id, method, status, amount_cents, installments, pix_code, created_at) values (?, ?, ?, 'CREDIT_CARD', 'APPROVED', ?, 1, null, ?)`)
  const insertMovement = sqlite.prepare(
    `insert into stock_movements (store_id, variant_id, kind, quantity, stock_after, reserved_after, reason, order_id, created_at) values (?, ?, ?, 1, ?, ?, ?, ?, ?)`,
  )
  const setStock = sqlite.prepare(`update variants set stock = ? where id = ?`)
  const left = bought.map((p) => p.variants[0]!.stock)
  for (let start = 0; start < n; start += BATCH) {
    writeTransaction(deps.db, () => {
      for (let o = start; o < Math.min(n, start + BATCH); o++) {
        const k = o % bought.length
        const product = bought[k]!
        const variant = product.variants[0]!
        const customer = customers[o % customers.length]!
        const orderId = deps.ids.next('ord')
        const cents = Math.round(variant.price * 100)
        const at = base - (n - o) * 1000
        insertOrder.run(orderId, storeId, o + 1, customer.id, customer.name, customer.email, cents, cents, at, at + 1000, at + 30 * 60_000, at + 1000)
        insertItem.run(orderId, variant.id, product.id, product.name, variant.sku, cents, cents)
        insertPayment.run(deps.ids.next('pay'), orderId, storeId, cents, at + 1000)
        insertMovement.run(storeId, variant.id, 'RESERVE', left[k]!, 1, `order #${o + 1} checkout`, orderId, at)
        left[k]!--
        insertMovement.run(storeId, variant.id, 'SALE', left[k]!, 0, `order #${o + 1} paid`, orderId, at + 1000)
      }
      bought.forEach((p, k) => setStock.run(left[k]!, p.variants[0]!.id))
    })
    if (n > BATCH) log(`    orders: ${Math.min(n, start + BATCH).toLocaleString('en')}`)
  }
}
