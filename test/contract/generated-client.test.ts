import { describe, expect, test } from 'bun:test'
import { copyFileSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import openapiTS, { astToString } from 'openapi-typescript'
import ts from 'typescript'
import { ADMIN_TOKEN, createTestApp } from '../helpers/app'
import { tempDir } from '../helpers/temp'
import { FIXTURES } from '../helpers/world'
import { limit } from '../helpers/limits'
import { escapeHatches, typeErrorsOf } from './strict-app'

// A student's shop app (shop-app/shop.ts) against a client generated from this server's /openapi.json
// with openapi-typescript and openapi-fetch: it must type-check strictly with no way around the types,
// and then run. The app's folder is not part of the project's own type-check (tsconfig.json excludes
// it): its types exist only once generated here.

const APP = join(import.meta.dir, 'shop-app')
const NODE_MODULES = join(import.meta.dir, '..', '..', 'node_modules')
const FILES = ['shop.ts', 'mistakes.ts']

/**
 * The compiler options of a strict browser app; the types are only the generated ones and the DOM's.
 * Declaration files are not checked themselves (skipLibCheck, as in most apps and in this project):
 * checking the DOM's alone took three times as long as the rest.
 */
const STRICT = { strict: true, noUncheckedIndexedAccess: true, noEmit: true, skipLibCheck: true, target: 'ES2022', module: 'ESNext', moduleResolution: 'Bundler', lib: ['ES2022', 'DOM'], types: [] }

let generated: Promise<string> | undefined

/**
 * A folder as a student's app has it: storefront-api.d.ts generated from the document, the app's
 * files, and node_modules. The one option is the transform openapi-typescript documents for uploads:
 * a `format: binary` field is a Blob (the CLI would type it as a string).
 */
const appFolder = () =>
  (generated ??= (async () => {
    const { call } = createTestApp()
    const document = (await call('GET', '/openapi.json')).body
    const blob = ts.factory.createTypeReferenceNode('Blob')
    const ast = await openapiTS(document, { transform: (schema) => (schema.format === 'binary' ? blob : undefined) })
    const dir = tempDir('client')
    writeFileSync(join(dir, 'storefront-api.d.ts'), astToString(ast))
    for (const file of FILES) copyFileSync(join(APP, file), join(dir, file))
    symlinkSync(NODE_MODULES, join(dir, 'node_modules'), 'dir')
    return dir
  })())

function typeErrors(dir: string) {
  const { options, errors } = ts.convertCompilerOptionsFromJson(STRICT, dir)
  expect(errors).toEqual([])
  return typeErrorsOf(ts.createProgram(FILES.map((file) => join(dir, file)), options))
}

describe('a client generated from /openapi.json', () => {
  test('type-checks the whole shop flow strictly, with no any, casts or @ts- comments, and refuses what the server refuses', async () => {
    const dir = await appFolder()
    for (const file of FILES) expect({ file, escapes: escapeHatches(join(APP, file)) }).toEqual({ file, escapes: [] })
    const errors = typeErrors(dir)
    expect(errors.filter((e) => e.file !== 'mistakes.ts')).toEqual([])
    const marked = readFileSync(join(APP, 'mistakes.ts'), 'utf8')
      .split('\n')
      .flatMap((line, i) => (/\/\/ refused/.test(line) ? [i + 1] : []))
    expect(marked).toHaveLength(9)
    expect([...new Set(errors.map((e) => e.line))].sort((a, b) => a - b)).toEqual(marked)
  }, limit(60_000))

  test('runs the same flow against a live server: catalog, upload, customer, cart, PIX, the store’s orders, refund', async () => {
    const dir = await appFolder()
    const { app } = createTestApp()
    const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (request) => app.handle(request) })
    try {
      const { runShopFlow } = await import(join(dir, 'shop.ts'))
      const photo = new Blob([await Bun.file(join(FIXTURES, 'sample.png')).arrayBuffer()], { type: 'image/png' })
      const story = await runShopFlow({ baseUrl: `http://127.0.0.1:${server.port}`, adminToken: ADMIN_TOKEN, photo })
      expect(story).toEqual({
        group: { name: 'Grupo Cliente', members: ['7001'] },
        mustChangePassword: [true, false],
        keys: ['secret', 'publishable'],
        sizes: [{ size: 'P' }, { size: 'G' }],
        found: { id: expect.stringMatching(/^prod_/), state: 'PUBLISHED', price: 59.9, variants: 2, image: story.picture.url },
        picture: { url: expect.stringMatching(/^http:\/\/.+\/v1\/files\//), isPrimary: true, type: 'image/png' },
        mixUp: { status: 404, code: 'NOT_FOUND', message: expect.stringContaining(`'${story.found.id}' is a product id, not a variant id`) },
        problems: [['price', 'must have at most 2 decimals, e.g. 19.99 (round a computed amount to cents: Math.round(x * 100) / 100)']],
        cart: { itemCount: 2, subtotal: 129.8 },
        order: { id: expect.stringMatching(/^ord_/), number: 1, status: 'PENDING', total: 129.8 },
        payment: { orderStatus: 'PAID', method: 'PIX', status: 'APPROVED', pixCode: expect.stringContaining('br.gov.bcb.pix') },
        listed: [story.order.id],
        refund: { status: 'REFUNDED', amount: [129.8], available: 3 },
        twice: { status: 409, code: 'INVALID_TRANSITION' },
        booleans: { visibleReviews: 0, forcedDelete: 204, imageAfter: null },
      })
    } finally {
      server.stop(true)
    }
  }, limit(60_000))
})
