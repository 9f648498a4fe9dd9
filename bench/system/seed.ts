/**
 * The classroom the whole-system bench runs against: 30 stores made through the real services (every
 * trigger, ledger row, outbox event and index as a class would produce them), written to a data dir
 * BEFORE the server starts. One store is big: 100,000 products, 60 customers with 4,800 paid orders and
 * about a thousand reviews. The other 29 hold 300 products, 3 customers, a few orders and reviews each.
 * Every store also has "Bench stock", one variant with a billion units, for the write scenarios.
 *
 * What the bench needs later (API keys, ids) is written to manifest.json beside storefront.db.
 */
import { eq } from 'drizzle-orm'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createDeps, type AppDeps } from '../../src/wiring'
import { loadConfig } from '../../src/config'
import { addItem } from '../../src/features/cart/service'
import { createProduct } from '../../src/features/catalog/products'
import { variants } from '../../src/features/catalog/tables'
import { register } from '../../src/features/customers/service'
import { checkout } from '../../src/features/orders/checkout'
import { pay } from '../../src/features/orders/payment'
import { createReview } from '../../src/features/reviews/service'
import type { StoreCtx } from '../../src/kernel/auth/kinds'
import { systemClock } from '../../src/kernel/clock'
import { openDatabase } from '../../src/kernel/db/open'
import { loadMigrations, migrate } from '../../src/kernel/db/migrate'
import { systemIds } from '../../src/kernel/ids'
import { memoryLog } from '../../src/kernel/log'
import { fanOut } from '../../src/features/webhooks/deliveries'
import type { Db } from '../../src/kernel/db/database'
import { seedStore } from '../seed'

/**
 * A running server fans every event out as it is emitted; the seed has no server, so its orders and
 * reviews would leave thousands of events waiting, and the first start would fan them all out before
 * answering (60 ms). Done here once, the data is as a server that ran leaves it.
 */
export function drainOutbox(db: Db) {
  while (fanOut(db, systemIds, Date.now(), 500).taken === 500);
}

/** Raise when what the seed makes changes: the cache of seeded data is keyed by it. */
export const SEED_VERSION = 1
export const ADMIN_TOKEN = 'bench-admin-token-0000000000'

export interface SeededStore {
  name: string
  storeId: string
  apiKey: string
  products: number
  /** Products the detail scenario asks for (a spread over the whole catalog). */
  sampleProductIds: string[]
  /** A product with reviews, for the review list. */
  reviewedProductId: string
  /** The "Bench stock" variant: a billion units, for cart and checkout. */
  stockVariantId: string
}

export interface Manifest {
  version: number
  seededAt: string
  seconds: number
  stores: SeededStore[]
}

const BIG = { products: 100_000, customers: 60, ordersEach: 80, hot: 20 }
const SMALL = { stores: 29, products: 300, customers: 3, ordersEach: 5, hot: 5 }

export async function seedClassroom(dataDir: string, log: (line: string) => void): Promise<Manifest> {
  const started = performance.now()
  const database = openDatabase(join(dataDir, 'storefront.db'))
  migrate(database.db)
  const config = loadConfig({ dataDir, rateLimitRps: '0' }, {})
  const deps = createDeps(config, database, { clock: systemClock, ids: systemIds, log: memoryLog(), adminToken: ADMIN_TOKEN, publicUrl: '' })
  const stores: SeededStore[] = []
  stores.push(await seedOne(deps, 'Bench', 'bench01', 42, BIG, (n) => n % 20_000 === 0 && log(`  big store: ${n} products`)))
  log(`  big store seeded (${((performance.now() - started) / 1000).toFixed(0)} s)`)
  for (let i = 2; i <= SMALL.stores + 1; i++) {
    const rm = `bench${String(i).padStart(2, '0')}`
    stores.push(await seedOne(deps, `Group ${i}`, rm, i, SMALL, () => {}))
  }
  await deps.lifecycle.stop()
  drainOutbox(database.db)
  database.close()
  const seconds = (performance.now() - started) / 1000
  const manifest: Manifest = { version: SEED_VERSION, seededAt: new Date().toISOString(), seconds, stores }
  writeFileSync(join(dataDir, 'manifest.json'), JSON.stringify(manifest, null, 1))
  return manifest
}

async function seedOne(
  deps: AppDeps,
  name: string,
  rm: string,
  seed: number,
  size: { products: number; customers: number; ordersEach: number; hot: number },
  onProgress: (n: number) => void,
): Promise<SeededStore> {
  const { ctx, apiKey, productIds } = await seedStore(deps, size.products, onProgress, { name, rm, seed })
  const keyCtx = ctx
  const product = (name: string, stock: number) => {
    const p = createProduct(deps, ctx, { type: 'SIMPLE', name, sku: name.toUpperCase().replace(/\W+/g, '-'), price: 19.9, stock, state: 'PUBLISHED', description: `${name}: bought by the benchmark.`, collectionIds: [], minStock: 0 }, deps.publicUrl.for())
    return { productId: p.id, variantId: deps.db.select({ id: variants.id }).from(variants).where(eq(variants.productId, p.id)).get()!.id }
  }
  const stock = product('Bench stock', 1_000_000_000)
  const hot = Array.from({ length: size.hot }, (_, i) => product(`Popular ${i + 1}`, 10_000_000))
  for (let c = 0; c < size.customers; c++) {
    const session = await register(deps, keyCtx, { email: `c${c}@${rm}.bench`, password: 'bench-password', name: `Customer ${c}` })
    const customer: StoreCtx = { ...ctx, actor: { type: 'customer', customerId: session.customer.id, keyId: 'seed', keyKind: 'secret', rm: null } }
    for (let o = 0; o < size.ordersEach; o++) {
      await addItem(deps, customer, { variantId: hot[(c + o) % hot.length]!.variantId, quantity: 1 + (o % 3) })
      if (o % 4 === 0) await addItem(deps, customer, { variantId: stock.variantId, quantity: 1 })
      const order = await checkout(deps, customer)
      await pay(deps, customer, order.id, { method: o % 2 ? 'PIX' : 'CREDIT_CARD' }, undefined)
    }
    const bought = new Set(Array.from({ length: size.ordersEach }, (_, o) => (c + o) % hot.length))
    for (const h of bought) {
      createReview(deps, customer, hot[h]!.productId, { rating: 1 + ((c + h) % 5), title: `Review ${c}-${h}`, comment: 'Chegou rápido e é como na foto. Recomendo para quem precisa no dia a dia.', mediaIds: [] }, deps.publicUrl.for())
    }
  }
  const step = Math.max(1, Math.floor(productIds.length / 1000))
  return {
    name,
    storeId: ctx.storeId,
    apiKey,
    products: productIds.length + 1 + size.hot,
    sampleProductIds: productIds.filter((_, i) => i % step === 0),
    reviewedProductId: hot[0]!.productId,
    stockVariantId: stock.variantId,
  }
}

/**
 * What names a seeded data dir in <tmp>: the seed's version and the schema's migrations. A cache is
 * never migrated in place: several checkouts of the project on one machine share <tmp>, and one with
 * a migration the others lack would leave them a data dir they refuse (or one with its triggers).
 */
export function seedKey(version: number): string {
  const schema = createHash('sha256').update(loadMigrations().map((m) => m.hash).join()).digest('hex').slice(0, 8)
  return `v${version}-schema-${schema}`
}

/**
 * The seeded classroom, cached in `<tmp>/storefront-bench-classroom-<seedKey>` and reused while the
 * seed version and the schema are the same; `fresh` (or a half-made cache, without its manifest) seeds it again.
 */
export async function seededClassroom(fresh: boolean, log: (line: string) => void): Promise<{ dir: string; manifest: Manifest }> {
  const dir = join(tmpdir(), `storefront-bench-classroom-${seedKey(SEED_VERSION)}`)
  const manifestFile = join(dir, 'manifest.json')
  if (!fresh && existsSync(manifestFile)) {
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Manifest
    log(`reusing the seeded classroom in ${dir} (seeded ${manifest.seededAt}; --fresh seeds again)`)
    return { dir, manifest }
  }
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(join(dir, 'media'), { recursive: true })
  log(`seeding the classroom into ${dir} (30 stores, one with ${BIG.products.toLocaleString('en')} products; a few minutes, once)`)
  const manifest = await seedClassroom(dir, log)
  log(`seeded in ${manifest.seconds.toFixed(0)} s`)
  return { dir, manifest }
}
