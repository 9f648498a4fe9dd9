/**
 * `bun scripts/make-data-fixture.ts`: writes a small data folder with the code as it is now into
 * test/fixtures/data-folders/<version>-schema<N>/, for the upgrade test (test/e2e/upgrade.test.ts):
 * a real server from source is started on an empty folder and used through the API as a class would
 * (members who changed their password, a key, a small store with orders in every state, reviews,
 * uploads, webhook deliveries), then stopped, which folds the WAL into the database.
 * An existing fixture is never overwritten: fixtures are added, never edited.
 */
import { Database } from 'bun:sqlite'
import { createHash } from 'node:crypto'
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { loadMigrations } from '../src/kernel/db/migrate'
import { VERSION } from '../src/version'
import { overHttp, SOURCE_SERVER, startExecutable } from '../test/helpers/executable'
import { formWith } from '../test/helpers/world'

const root = join(import.meta.dir, '..')
const schema = loadMigrations().length
const name = `${VERSION}-schema${schema}`
const target = join(root, 'test', 'fixtures', 'data-folders', name)
if (existsSync(target)) {
  console.error(`${relative(root, target)} exists; fixtures are never edited. Change the schema (or the version) first, or remove it by hand if it was never committed.`)
  process.exit(1)
}

const ADMIN_TOKEN = 'adm_fixture_token_0123456789'
const work = mkdtempSync(join(tmpdir(), 'storefront-fixture-'))
const data = join(work, 'data')
const received: string[] = []
const receiver = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  async fetch(request) {
    received.push(request.headers.get('x-webhook-event') ?? '')
    return new Response('ok')
  },
})
const server = await startExecutable(SOURCE_SERVER, work, ['--data', data, '--admin-token', ADMIN_TOKEN, '--allow-insecure-webhooks', '--rate-limit-rps', '0'])

async function ok<T = unknown>(res: Promise<{ status: number; body: T; text: string }>, status = 200): Promise<T> {
  const r = await res
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${r.text}`)
  return r.body
}

try {
  const call = overHttp(server.base)
  const admin = { 'x-admin-token': ADMIN_TOKEN }
  const group = await ok(call('POST', '/v1/admin/groups', { headers: admin, body: { name: 'Grupo Fixture', members: [{ rm: '10001', name: 'Ana' }, { rm: '10002', name: 'Bruno' }, { rm: '10003', name: 'Carla' }] } }), 201)
  // Two members changed their password; the third never logged in.
  const students = [
    { rm: '10001', password: 'fixture-pass-10001' },
    { rm: '10002', password: 'fixture-pass-10002' },
  ]
  let studentToken = ''
  for (const s of students) {
    const first = await ok(call('POST', '/v1/store/auth/login', { body: { rm: s.rm, password: s.rm } }))
    const changed = await ok(call('POST', '/v1/store/auth/change-password', { headers: { authorization: `Bearer ${first.token}` }, body: { currentPassword: s.rm, newPassword: s.password } }))
    studentToken ||= changed.token
  }
  const key = await ok(call('POST', '/v1/store/api-keys', { headers: { authorization: `Bearer ${studentToken}` }, body: { name: 'fixture app' } }), 201)
  const headers = { 'x-api-key': key.apiKey }
  // One endpoint that answers, one that never does (its deliveries wait for a retry).
  await ok(call('POST', '/v1/webhooks', { headers, body: { url: `http://127.0.0.1:${receiver.port}/hook`, events: ['*'] } }), 201)
  const refused = await ok(call('POST', '/v1/webhooks', { headers, body: { url: 'http://127.0.0.1:9/nobody', events: ['order.paid'] } }), 201)
  await ok(call('POST', `/v1/webhooks/${refused.id}/ping`, { headers }), 202)

  // A small catalog: a category, a brand, a collection, four products (one with sizes, one draft),
  // pictures on them and a video in the library, stock received and adjusted.
  const send = (method: string, path: string, body?: unknown, status = 200) => ok(call(method, path, { headers, body }), status)
  const category = await send('POST', '/v1/categories', { name: 'Roupas' }, 201)
  const brand = await send('POST', '/v1/brands', { name: 'Aurora' }, 201)
  const collection = await send('POST', '/v1/collections', { name: 'Verão' }, 201)
  const uploads = []
  for (const file of ['sample.png', 'sample.jpg', 'sample.webp', 'sample.mp4']) uploads.push(await ok(call('POST', '/v1/uploads', { headers, raw: formWith(file) }), 201))
  const terms = { categoryId: category.id, brandId: brand.id, collectionIds: [collection.id] }
  const shirt = await send('POST', '/v1/products', { name: 'Camiseta Azul', sku: 'FX-CAM-P', price: 49.9, stock: 20, state: 'PUBLISHED', ...terms }, 201)
  const sizeM = await send('POST', `/v1/products/${shirt.id}/variants`, { sku: 'FX-CAM-M', price: 49.9, stock: 10, options: { tamanho: 'M' } }, 201)
  await send('POST', `/v1/products/${shirt.id}/variants`, { sku: 'FX-CAM-G', price: 52.9, stock: 10, options: { tamanho: 'G' } }, 201)
  const cap = await send('POST', '/v1/products', { name: 'Boné Verde', sku: 'FX-BONE', price: 35.5, stock: 15, state: 'PUBLISHED', categoryId: category.id }, 201)
  const bottle = await send('POST', '/v1/products', { name: 'Garrafa Térmica', sku: 'FX-GARRAFA', price: 89, stock: 8, state: 'PUBLISHED', brandId: brand.id }, 201)
  await send('POST', '/v1/products', { name: 'Jaqueta (rascunho)', sku: 'FX-JAQUETA', price: 199.99, stock: 0 }, 201)
  for (const [product, media] of [[shirt, uploads[0]], [cap, uploads[1]], [bottle, uploads[2]]]) {
    await send('POST', `/v1/products/${product.id}/images`, { mediaId: media.id }, 201)
  }
  await send('POST', `/v1/variants/${cap.variants[0].id}/stock/receive`, { quantity: 5 })
  await send('POST', `/v1/variants/${bottle.variants[0].id}/stock/adjust`, { quantity: -1, reason: 'fixture count' })

  // Two buyers: orders in every state the store reaches, reviews (one with a photo, one hidden, one hidden and deleted), a cart left open.
  const customers = [
    { email: 'ana.buyer@example.com', password: 'fixture-buyer-ana' },
    { email: 'rui.buyer@example.com', password: 'fixture-buyer-rui' },
  ]
  const buyers: Record<string, string>[] = []
  for (const [i, c] of customers.entries()) {
    const session = await ok(call('POST', '/v1/customers/register', { headers, body: { ...c, name: `Fixture Buyer ${i + 1}` } }), 201)
    buyers.push({ ...headers, authorization: `Bearer ${session.token}` })
  }
  const order = async (buyer: Record<string, string>, variantId: string, pay = true) => {
    await ok(call('POST', '/v1/cart/items', { headers: buyer, body: { variantId, quantity: 1 } }))
    const placed = await ok(call('POST', '/v1/orders/checkout', { headers: buyer }), 201)
    if (pay) await ok(call('POST', `/v1/orders/${placed.id}/pay`, { headers: buyer, body: { method: 'PIX' } }))
    return placed
  }
  const [ana, rui] = [buyers[0]!, buyers[1]!]
  const delivered = await order(ana, shirt.variants[0].id)
  await send('POST', `/v1/store/orders/${delivered.id}/transition`, { to: 'SHIPPED' })
  await send('POST', `/v1/store/orders/${delivered.id}/transition`, { to: 'DELIVERED' })
  await order(ana, cap.variants[0].id)
  const refunded = await order(rui, bottle.variants[0].id)
  await send('POST', `/v1/store/orders/${refunded.id}/refund`, { reason: 'fixture refund', restock: true })
  const cancelled = await order(rui, cap.variants[0].id, false)
  await ok(call('POST', `/v1/orders/${cancelled.id}/cancel`, { headers: rui }))
  await order(rui, shirt.variants[0].id)
  await ok(call('POST', `/v1/products/${shirt.id}/reviews`, { headers: ana, body: { rating: 5, title: 'Chegou', comment: 'Foto do pacote.', mediaIds: [uploads[1].id] } }), 201)
  // A review the store hid and its author then deleted: the hold that keeps their next one hidden.
  const withdrawn = await ok(call('POST', `/v1/products/${cap.id}/reviews`, { headers: ana, body: { rating: 4, title: 'Bom', comment: 'Serviu.' } }), 201)
  await send('PATCH', `/v1/store/reviews/${withdrawn.id}`, { hidden: true })
  await ok(call('DELETE', `/v1/reviews/${withdrawn.id}`, { headers: ana }), 204)
  const hidden = await ok(call('POST', `/v1/products/${shirt.id}/reviews`, { headers: rui, body: { rating: 1, title: 'Spam', comment: 'compre aqui' } }), 201)
  await send('PATCH', `/v1/store/reviews/${hidden.id}`, { hidden: true })
  await ok(call('POST', '/v1/cart/items', { headers: ana, body: { variantId: sizeM.id, quantity: 2 } }))

  // Every event to the answering endpoint is delivered before the folder is frozen.
  const deadline = Date.now() + 30_000
  for (;;) {
    const deliveries = (await ok(call('GET', '/v1/webhooks/deliveries?pageSize=100', { headers }))).data as { status: string; webhookId: string }[]
    if (!deliveries.some((d) => d.status === 'PENDING' && d.webhookId !== refused.id)) break
    if (Date.now() > deadline) throw new Error('webhook deliveries did not finish in 30 s')
    await Bun.sleep(100)
  }

  if ((await server.stop()) !== 0) throw new Error(`the server did not stop cleanly: ${server.stdout()}`)
  if (existsSync(join(data, 'storefront.db-wal'))) throw new Error('the WAL is still there after a clean stop')

  const db = new Database(join(data, 'storefront.db'), { readonly: true })
  const tables = db.query("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like 'product_search_%' order by name").all() as { name: string }[]
  const rows = Object.fromEntries(tables.map(({ name }) => [name, (db.query(`select count(*) as n from "${name}"`).get() as { n: number }).n]))
  const schemaRows = (db.query('select count(*) as n from __drizzle_migrations').get() as { n: number }).n
  db.close()
  if (schemaRows !== schema) throw new Error(`the database records ${schemaRows} migrations, the code has ${schema}`)

  const media = listFiles(join(data, 'media')).map((path) => ({
    path: relative(data, path).split('\\').join('/'),
    sha256: createHash('sha256').update(readFileSync(path)).digest('hex'),
  }))
  const commit = Bun.spawnSync(['git', 'rev-parse', '--short', 'HEAD'], { cwd: root }).stdout.toString().trim()
  const dirty = Bun.spawnSync(['git', 'status', '--porcelain', '--', 'src', 'migrations'], { cwd: root }).stdout.toString().trim() !== ''
  const writtenBy = { version: VERSION, schema, commit: dirty ? `${commit} with uncommitted changes` : commit, date: new Date().toISOString().slice(0, 10) }
  const fixture = {
    writtenBy,
    adminToken: ADMIN_TOKEN,
    groupId: group.id,
    storeId: group.storeId,
    apiKey: key.apiKey,
    students,
    customers,
    rows,
    media,
  }
  cpSync(join(data, 'storefront.db'), join(target, 'storefront.db'))
  cpSync(join(data, 'media'), join(target, 'media'), { recursive: true })
  writeFileSync(join(target, 'fixture.json'), JSON.stringify(fixture, null, 2) + '\n')
  writeFileSync(
    join(target, 'README.md'),
    [
      `# Data folder written by Storefront ${VERSION} (schema ${schema})`,
      '',
      `Written on ${writtenBy.date} by \`scripts/make-data-fixture.ts\` at commit ${writtenBy.commit}, with the`,
      `${schema} migrations of that build (the last one: \`${lastMigrationTag()}\`).`,
      '',
      'Never edit these files: the upgrade test opens this folder with the current code and needs it exactly',
      'as that build left it. `fixture.json` holds the credentials, the row count of every table and the',
      'checksum of every media file at the time it was written.',
      '',
    ].join('\n'),
  )
  const size = listFiles(target).reduce((sum, f) => sum + statSync(f).size, 0)
  console.log(`wrote ${relative(root, target)} (${Math.round(size / 1024)} KB, ${received.length} webhook deliveries received)`)
} finally {
  if (server.proc.exitCode === null) await server.stop()
  receiver.stop(true)
  rmSync(work, { recursive: true, force: true })
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? listFiles(join(dir, e.name)) : [join(dir, e.name)]))
}

function lastMigrationTag() {
  const journal = JSON.parse(readFileSync(join(root, 'migrations', 'meta', '_journal.json'), 'utf8')) as { entries: { tag: string }[] }
  return journal.entries.at(-1)!.tag
}
