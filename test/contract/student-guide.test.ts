import { describe, expect, test } from 'bun:test'
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import ts from 'typescript'
import { createTestApp } from '../helpers/app'
import { track } from '../helpers/children'
import { limit } from '../helpers/limits'
import { tempDir } from '../helpers/temp'
import { activeStudent, admin, apiKey, createGroup, createKey, expectOk } from '../helpers/world'
import { escapeHatches, typeErrorsOf } from './strict-app'

// The student guide's typed client, run as a student runs it: the files its section "A typed client
// for your app" writes, taken from docs/student-guide.md as they are written there, in a new project
// beside a live server that holds the store of the README's first steps.

const ROOT = join(import.meta.dir, '..', '..')
const NODE_MODULES = join(ROOT, 'node_modules')

/** The guide's section, from its heading to the next one of the same level. */
function section(): string {
  const guide = readFileSync(join(ROOT, 'docs', 'student-guide.md'), 'utf8')
  const text = guide.split('\n## A typed client for your app\n')[1]?.split('\n## ')[0]
  if (!text) throw new Error('docs/student-guide.md has no "## A typed client for your app" section')
  return text
}

/** The files the section writes: each fenced block right after a `<!-- file: NAME -->` line; a name's blocks, in order, make one file. */
function filesOf(text: string): Map<string, string> {
  const files = new Map<string, string>()
  for (const [, name, block] of text.matchAll(/^<!-- file: (\S+) -->\n```\w*\n([\s\S]*?)^```$/gm)) {
    files.set(name!, (files.has(name!) ? `${files.get(name!)}\n` : '') + block)
  }
  return files
}

/** Runs a command of the student's in `dir` to its end; the environment is PATH and `env`. */
async function run(dir: string, command: string[], env: Record<string, string>) {
  const proc = track(Bun.spawn(command, { cwd: dir, stdout: 'pipe', stderr: 'pipe', env: { PATH: process.env.PATH ?? '', ...env } }))
  const [code, stdout, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()])
  return { code, stdout, stderr }
}

/** The project's tsconfig.json as `npx tsc` reads it in `dir`: its options and the files it checks. */
function tsconfigIn(dir: string): ts.ParsedCommandLine {
  const unreadable = (d: ts.Diagnostic) => {
    throw new Error(ts.flattenDiagnosticMessageText(d.messageText, ' '))
  }
  const config = ts.getParsedCommandLineOfConfigFile(join(dir, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: unreadable })
  if (!config) throw new Error(`no tsconfig.json in ${dir}`)
  return config
}

/** The README's first steps, in short: a group, its student's two keys, and the demo catalog. */
async function firstStepsStore(call: ReturnType<typeof createTestApp>['call']) {
  const group = await createGroup(call, 'Grupo Azul', [{ rm: '12345', name: 'Ana' }])
  const student = await activeStudent(call, '12345')
  const secret = await createKey(call, student, 'our server')
  const publishable = await createKey(call, student, 'our shop front', 'publishable')
  await expectOk(call('POST', `/v1/admin/groups/${group.id}/seed-demo`, { headers: admin }), 201)
  return { sk: apiKey(secret.apiKey), pk: publishable.apiKey }
}

describe("the student guide's typed client", () => {
  test('its section writes generate-api.mjs, a strict tsconfig.json and src/shop.ts, in a project set up as its first block says', () => {
    const text = section()
    expect([...filesOf(text).keys()]).toEqual(['generate-api.mjs', 'tsconfig.json', 'src/shop.ts'])
    // The project the test makes for them is the one these commands make.
    const setup = /```sh\n([\s\S]*?)```/.exec(text)?.[1] ?? ''
    expect(setup.split('\n')).toEqual([
      'npm init -y',
      'npm pkg set type=module',
      'npm install openapi-fetch',
      'npm install -D openapi-typescript typescript @types/node',
      '',
    ])
  })

  test('generates the types from a live server, type-checks src/shop.ts strictly, and runs it twice: a paid PIX order and a review, then the 409 and ALREADY_REVIEWED', async () => {
    const files = filesOf(section())
    const { app, call } = createTestApp()
    const { sk, pk } = await firstStepsStore(call)
    const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (request) => app.handle(request) })
    try {
      const env = { STOREFRONT_URL: `http://127.0.0.1:${server.port}`, STOREFRONT_PK: pk }
      const dir = tempDir('guide')
      const write = (name: string) => {
        mkdirSync(dirname(join(dir, name)), { recursive: true })
        writeFileSync(join(dir, name), files.get(name) ?? '')
      }
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'shop', type: 'module' }))
      symlinkSync(NODE_MODULES, join(dir, 'node_modules'), 'dir')

      // `node generate-api.mjs` first, as the guide has it: in a new project, without a src/ folder yet.
      write('generate-api.mjs')
      const generated = await run(dir, ['node', 'generate-api.mjs'], env)
      expect({ code: generated.code, stderr: generated.stderr }).toEqual({ code: 0, stderr: '' })
      expect(readFileSync(join(dir, 'src', 'storefront-api.d.ts'), 'utf8')).toContain('"/v1/products/{id}/reviews/can-review"')
      write('tsconfig.json')
      write('src/shop.ts')

      // `npx tsc`, with the guide's tsconfig.json: strict, and no way around the types in the app.
      const config = tsconfigIn(dir)
      expect(config.errors).toEqual([])
      expect({ strict: config.options.strict, noUncheckedIndexedAccess: config.options.noUncheckedIndexedAccess }).toEqual({ strict: true, noUncheckedIndexedAccess: true })
      expect(config.fileNames.map((file) => file.slice(dir.length + 1)).sort()).toEqual(['src/shop.ts', 'src/storefront-api.d.ts'])
      expect(escapeHatches(join(dir, 'src', 'shop.ts'))).toEqual([])
      expect(typeErrorsOf(ts.createProgram(config.fileNames, config.options))).toEqual([])

      // `STOREFRONT_PK=$PK bun src/shop.ts`: the only key the app gets is the publishable one.
      const first = await run(dir, [process.execPath, 'src/shop.ts'], env)
      expect({ code: first.code, stderr: first.stderr }).toEqual({ code: 0, stderr: '' })
      const lines = first.stdout.trimEnd().split('\n')
      expect(lines).toEqual([
        'Logged in as Ana Cliente (ana.cliente@example.com)',
        expect.stringMatching(/^Cart: 1 item, \d+(\.\d+)? BRL$/),
        expect.stringMatching(/^Order ord_\w+ is PAID; PIX code: \d+br\.gov\.bcb\.pix.+$/),
        expect.stringMatching(/^Review rev_\w+: 5 of 5 for .+$/),
      ])
      const orderId = /^Order (ord_\w+)/.exec(lines[2]!)![1]!
      const reviewId = /^Review (rev_\w+)/.exec(lines[3]!)![1]!

      // What the store sees, with the secret key: the customer's order, paid with PIX, and the review of what it held.
      const order = await expectOk(call('GET', `/v1/store/orders/${orderId}`, { headers: sk }))
      expect(order).toMatchObject({
        status: 'PAID',
        customer: { name: 'Ana Cliente', email: 'ana.cliente@example.com' },
        payments: [{ method: 'PIX', status: 'APPROVED', amount: order.total }],
      })
      expect(order.items).toHaveLength(1)
      expect(order.items[0]).toMatchObject({ quantity: 1 })
      const productId: string = order.items[0].productId
      const product = await expectOk(call('GET', `/v1/products/${productId}`, { headers: apiKey(pk) }))
      expect(product.state).toBe('PUBLISHED')
      expect(lines[1]).toBe(`Cart: 1 item, ${order.total} BRL`)
      expect(lines[3]).toBe(`Review ${reviewId}: 5 of 5 for ${product.name}`)
      const reviews = await expectOk(call('GET', `/v1/store/reviews?productId=${productId}`, { headers: sk }))
      expect(reviews.data.filter((r: { id: string }) => r.id === reviewId)).toEqual([
        expect.objectContaining({ productId, rating: 5, title: 'Chegou rápido', comment: 'Igual à foto.', hidden: false, customer: { id: order.customer.id, name: 'Ana Cliente' } }),
      ])

      // A second run, as the guide says: the e-mail is taken (the 409 is read, the login goes on), a second
      // order is paid, and the product already reviewed is not reviewed again. The store receives one more
      // of what was bought first, so that the run finds the same product in stock whatever the demo had.
      await expectOk(call('POST', `/v1/variants/${order.items[0].variantId}/stock/receive`, { headers: sk, body: { quantity: 1 } }))
      const second = await run(dir, [process.execPath, 'src/shop.ts'], env)
      expect({ code: second.code, stderr: second.stderr }).toEqual({ code: 0, stderr: '' })
      const again = second.stdout.trimEnd().split('\n')
      expect(again.at(-1)).toBe('No review: ALREADY_REVIEWED')
      const orders = await expectOk(call('GET', `/v1/store/orders?customerId=${order.customer.id}`, { headers: sk }))
      expect(orders.data.map((o: { status: string }) => o.status)).toEqual(['PAID', 'PAID'])
      expect(orders.data.map((o: { id: string }) => o.id)).toContain(orderId)
    } finally {
      server.stop(true)
    }
  }, limit(60_000))
})
