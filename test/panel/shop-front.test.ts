import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import type { Page, Request } from 'playwright-core'
import { createKey, expectOk } from '../helpers/world'
import { eventually, groupWithStudent, noBrowser, usePanel } from './browser'

/**
 * examples/shop-front.html as a student uses it: served from an origin of its own (as from their dev
 * server), talking to the API on another one through CORS, holding only the store's publishable key.
 */
const panel = usePanel()
const PAGE = join(import.meta.dir, '..', '..', 'examples', 'shop-front.html')
const RM = '2026400'
let sk: string
let pk: string
let hookId: string
let shop: ReturnType<typeof Bun.serve> | undefined
let shopUrl: string

beforeAll(async () => {
  if (noBrowser) return
  const { student, token } = await groupWithStudent(panel, 'Loja Vitrine', { rm: RM, name: 'Duda' }, 'a-better-password')
  sk = (await createKey(panel.call, token, 'server')).apiKey
  pk = (await expectOk(panel.call('POST', '/v1/store/api-keys', { headers: student, body: { name: 'shop front', kind: 'publishable' } }), 201)).apiKey
  const secret = { 'x-api-key': sk }
  await expectOk(panel.call('POST', '/v1/products', { headers: secret, body: { name: 'Caneca Azul', sku: 'CANECA-AZUL', price: 39.9, stock: 3, state: 'PUBLISHED' } }), 201)
  await expectOk(panel.call('POST', '/v1/products', { headers: secret, body: { name: 'Rascunho', sku: 'RASCUNHO', price: 1, stock: 1 } }), 201)
  hookId = (await expectOk(panel.call('POST', '/v1/webhooks', { headers: secret, body: { url: 'https://10.9.8.7/hook', events: ['*'] } }), 201)).id
  // Another port is another origin: every call the page makes is cross-origin, as from a student's dev server.
  shop = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response(Bun.file(PAGE)) })
  shopUrl = `http://127.0.0.1:${shop.port}/shop-front.html`
})

afterAll(() => shop?.stop(true))

/** The page's errors and console errors, and every request it sends to the API. */
function watch(page: Page) {
  const problems: string[] = []
  const sent: Request[] = []
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`))
  page.on('console', (m) => m.type() === 'error' && problems.push(`${m.text()} ${m.location().url}`))
  page.on('request', (r) => r.url().startsWith(panel.base) && sent.push(r))
  return { problems, sent }
}

async function connect(page: Page, key: string) {
  await page.getByLabel('API base URL').fill(panel.base)
  await page.getByLabel('Publishable key').fill(key)
  await page.getByRole('button', { name: 'Connect' }).click()
}

const text = async (page: Page, selector: string) => (await page.locator(selector).textContent())?.trim()

describe.skipIf(noBrowser)('examples/shop-front.html, on another origin with a publishable key', () => {
  test('sells a published product through its own screens: register, cart, checkout, PIX, order PAID', async () => {
    let orderId = ''
    let pixCode = ''
    await panel.withPage('shop front sells a product', async (page) => {
      const { problems, sent } = watch(page)
      await page.goto(shopUrl)
      await connect(page, pk)
      const card = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Caneca Azul' }) })
      await card.waitFor()
      // Only PUBLISHED products: the draft is not on the shop front.
      expect(await page.locator('#products').getByRole('heading').allTextContents()).toEqual(['Caneca Azul'])
      expect(await card.getByRole('paragraph').textContent()).toBe('39.90 · 3 available')

      await page.getByLabel('Name').fill('Bia Lima')
      await page.getByLabel('E-mail').fill('bia@example.com')
      await page.getByLabel('Password').fill('password-123')
      await page.getByRole('button', { name: 'Register' }).click()
      await page.getByText('Signed in as').waitFor()
      expect(await text(page, '#who')).toBe('Bia Lima (bia@example.com)')

      await card.getByLabel('Quantity').fill('2')
      await card.getByRole('button', { name: 'Add to cart' }).click()
      await eventually(async () => expect(await text(page, '#subtotal')).toBe('79.80 BRL'))
      expect(await page.locator('#cart li').allTextContents()).toEqual(['Caneca Azul (CANECA-AZUL) · 2 × 39.90 = 79.80 Remove'])

      await page.getByRole('button', { name: 'Check out' }).click()
      const order = page.getByRole('article', { name: 'Order #1' })
      await order.getByText('PENDING', { exact: true }).waitFor()
      expect(await order.textContent()).toContain('Total: 79.80 BRL')
      // Checkout reserved the two units and emptied the cart.
      await eventually(async () => expect(await card.getByRole('paragraph').textContent()).toBe('39.90 · 1 available'))
      expect(await text(page, '#subtotal')).toBe('0.00 BRL')

      await order.getByRole('button', { name: 'Pay with PIX' }).click()
      await order.getByText('PAID', { exact: true }).waitFor()
      expect(await order.getByRole('button').count()).toBe(0)
      orderId = /ord_[0-9a-z]+/.exec((await order.textContent())!)![0]
      pixCode = (await order.locator('code').textContent())!

      // Every call carried the publishable key and no RM (it would count for no one); only buyer routes carried the customer's token.
      expect(sent.length).toBeGreaterThan(5)
      for (const request of sent) {
        const headers = await request.allHeaders()
        const path = new URL(request.url()).pathname
        expect(`${path} ${headers['x-api-key']} ${headers['x-student-rm']}`).toBe(`${path} ${pk} undefined`)
        const buyerRoute = /^\/v1\/(cart|orders|customers\/me)/.test(path)
        expect(`${path} ${headers.authorization?.slice(0, 11) ?? 'none'}`).toBe(`${path} ${buyerRoute ? 'Bearer ctk_' : 'none'}`)
      }

      // A reload keeps the settings and the customer (localStorage).
      await page.reload()
      await page.getByRole('article', { name: 'Order #1' }).getByText('PAID', { exact: true }).waitFor()
      expect(await text(page, '#who')).toBe('Bia Lima (bia@example.com)')

      // The same key, from the same page, is refused on what only the app's server may do, and the
      // refusal is readable cross-origin.
      const refused = await page.evaluate(
        async ({ base, pk, hookId }) => {
          const call = async (method: string, path: string, body?: string) => {
            const r = await fetch(base + path, { method, headers: { 'X-API-Key': pk, 'Content-Type': 'application/json' }, body })
            const { error } = (await r.json()) as { error: { code: string; message: string } }
            return { status: r.status, ...error }
          }
          return [await call('POST', `/v1/webhooks/${hookId}/sign`, '{"payload":"{\\"forged\\":true}"}'), await call('GET', '/v1/store/orders')]
        },
        { base: panel.base, pk, hookId },
      )
      for (const answer of refused) {
        expect(answer).toMatchObject({ status: 403, code: 'SECRET_KEY_REQUIRED' })
        expect(answer.message).toContain("secret key (sk_...), which belongs on your app's server and never in a browser page")
      }
      // The browser logs each refused fetch; nothing else went wrong on the page.
      expect(problems).toEqual([
        `Failed to load resource: the server responded with a status of 403 (Forbidden) ${panel.base}/v1/webhooks/${hookId}/sign`,
        `Failed to load resource: the server responded with a status of 403 (Forbidden) ${panel.base}/v1/store/orders`,
      ])
    })

    // The store sees the same order, paid, through its secret key.
    const seen = await expectOk(panel.call('GET', `/v1/store/orders/${orderId}`, { headers: { 'x-api-key': sk } }))
    expect(seen).toMatchObject({ number: 1, status: 'PAID', total: 79.8, customer: { name: 'Bia Lima', email: 'bia@example.com' } })
    expect(seen.items.map((i: any) => [i.name, i.quantity, i.unitPrice])).toEqual([['Caneca Azul', 2, 39.9]])
    expect(seen.payments.map((p: any) => [p.method, p.status, p.amount, p.pixCode])).toEqual([['PIX', 'APPROVED', 79.8, pixCode]])
  })

  test('refuses a secret key before sending anything, typed in or in the address; takes a pk_ from the address', async () => {
    await panel.withPage('shop front refuses a secret key', async (page) => {
      const { problems, sent } = watch(page)
      await page.goto(shopUrl)
      await connect(page, sk)
      const alert = page.getByRole('alert')
      await alert.waitFor()
      expect(await alert.textContent()).toBe(
        'SECRET_KEY_IN_PAGE This is a secret key (sk_...). A secret key must never be put in a browser page: anyone can read it ' +
          "in the network tab and refund orders, read customers' data or sign webhooks. Create a publishable key (pk_...) in the store panel (API keys) and paste that one here.",
      )
      expect(await page.evaluate(() => localStorage.getItem('shop.key'))).toBeNull()

      await page.goto(`${shopUrl}?api=${encodeURIComponent(panel.base)}&key=${sk}`)
      await alert.getByText('SECRET_KEY_IN_PAGE').waitFor()
      expect(sent.map((r) => r.url())).toEqual([])

      await page.goto(`${shopUrl}?api=${encodeURIComponent(panel.base)}&key=${pk}`)
      await page.getByRole('heading', { name: 'Caneca Azul' }).waitFor()
      expect(await alert.isHidden()).toBe(true)
      expect(sent.map((r) => new URL(r.url()).pathname)).toEqual(['/v1/products'])
      expect(problems).toEqual([])
    })
  })
})
