import { beforeAll, describe, expect, test } from 'bun:test'
import type { Page } from 'playwright-core'
import { apiKey, createKey, expectOk } from '../helpers/world'
import { eventually, groupWithStudent, noBrowser, signInAsStudent, signInAsTeacher, usePanel } from './browser'

const panel = usePanel()
const RM = '2026400'
const PASSWORD = 'a-better-password'
const SECRET_IN_BODY = 'hunter2-never-shown'
let key: string
let groupId: string
let student: Record<string, string>
let made: Awaited<ReturnType<typeof groupWithStudent>>

beforeAll(async () => {
  if (noBrowser) return
  made = await groupWithStudent(panel, 'Loja Espelho', { rm: RM, name: 'Caio' }, PASSWORD)
  groupId = made.groupId
  student = made.student
  key = (await createKey(panel.call, made.token, 'shop app')).apiKey
})

/** What a student's app does wrong: a product without its price, and a customer with a password in the body. */
async function badRequests() {
  const product = await panel.call('POST', '/v1/products', { headers: apiKey(key), body: { name: 'Caneca', sku: 'CAN-1', stock: 3 } })
  expect(product.status).toBe(400)
  const customer = await panel.call('POST', '/v1/customers/register', { headers: apiKey(key), body: { name: 'Bia', email: 'not-an-email', password: SECRET_IN_BODY } })
  expect(customer.status).toBe(400)
  return { product, customer }
}

const rowOf = (page: Page, text: string) => page.getByRole('row').filter({ hasText: text })

describe.skipIf(noBrowser)('the request inspector in the panel', () => {
  test('a failed request made while the page is open appears live; opened, it shows both bodies, no secret, and a curl with $API_KEY', async () => {
    await panel.withPage('inspector live tail', async (page) => {
      await signInAsStudent(page, panel, RM, PASSWORD, '/store/requests')
      await page.getByRole('heading', { name: 'Requests' }).waitFor()
      await page.getByText('New requests appear at the top as they happen.').waitFor()
      // The page has loaded its list (the key made in the setup is in it) before the app's calls are made: they can only come by the stream.
      await rowOf(page, '/v1/store/api-keys').waitFor()
      const { product } = await badRequests()

      // Both arrive without a reload, newest first, marked as failed with their status and code.
      const customerRow = rowOf(page, '/v1/customers/register')
      await customerRow.waitFor()
      const productRow = rowOf(page, '/v1/products')
      expect(await customerRow.getAttribute('class')).toBe('failed')
      expect(await productRow.getByRole('cell').nth(3).textContent()).toBe(`400${product.body.error.code}`)
      // The time shown is the entry's createdAt, in the store's locale (pt-BR by default).
      const productEntry = (await expectOk(panel.call('GET', '/v1/store/requests?status=400&path=/v1/products', { headers: student }))).data[0]
      expect([productEntry.errorCode, productEntry.errorMessage]).toEqual([product.body.error.code, product.body.error.message])
      const shownTime = await page.evaluate((iso) => new Date(iso).toLocaleString('pt-BR'), productEntry.createdAt as string)
      expect(await productRow.getByRole('cell').nth(0).textContent()).toBe(shownTime)
      const paths = await page.locator('tbody tr td:nth-child(3)').allTextContents()
      expect(paths.slice(0, 2)).toEqual(['/v1/customers/register', '/v1/products'])

      // The customer's password never reaches the page.
      await customerRow.getByRole('link').click()
      await page.getByRole('heading', { name: 'POST /v1/customers/register' }).waitFor()
      const sent = await page.getByRole('figure', { name: 'Request body', exact: true }).locator('pre').textContent()
      expect(JSON.parse(sent!)).toEqual({ name: 'Bia', email: 'not-an-email', password: '[redacted]' })
      expect(await page.content()).not.toContain(SECRET_IN_BODY)
      expect(await page.content()).not.toContain(key)

      // Back to the product: the answer is the error envelope the app got, and curl repeats the call.
      await page.getByRole('link', { name: '← All requests' }).click()
      await rowOf(page, '/v1/products').getByRole('link').click()
      await page.getByRole('heading', { name: 'POST /v1/products' }).waitFor()
      const answer = await page.getByRole('figure', { name: 'Response body', exact: true }).locator('pre').textContent()
      expect(JSON.parse(answer!)).toEqual(product.body)
      expect(await page.locator('.note.error').textContent()).toBe(product.body.error.message)
      expect(await page.locator('dt:text-is("Time") + dd').textContent()).toBe(shownTime)
      expect(await page.locator('dt:text-is("Status") + dd').textContent()).toBe(`400 ${product.body.error.code}`)
      const curl = (await page.getByTestId('curl').textContent())!
      expect(curl).toContain(`-X POST '${panel.base}/v1/products'`)
      expect(curl).toContain('-H "X-API-Key: $API_KEY"')
      expect(curl).toContain(`--data-raw '{"name":"Caneca","sku":"CAN-1","stock":3}'`)
      expect(curl).not.toContain(key)
    })
  })

  test('filters: 4xx shows only the refused calls, and a path prefix narrows them', async () => {
    await expectOk(panel.call('GET', '/v1/products', { headers: apiKey(key) }))
    await panel.withPage('inspector filters', async (page) => {
      await signInAsStudent(page, panel, RM, PASSWORD, '/store/requests')
      await rowOf(page, '200').first().waitFor()
      await page.getByLabel('Status').selectOption('4xx')
      await eventually(async () => {
        const statuses = await page.locator('tbody tr td:nth-child(4) .badge').allTextContents()
        expect(statuses.length).toBeGreaterThan(0)
        expect(statuses.every((s) => s.startsWith('4'))).toBe(true)
      })
      await page.getByLabel('Path starts with').fill('/v1/customers')
      await eventually(async () => expect(await page.locator('tbody tr td:nth-child(3)').allTextContents()).toEqual(['/v1/customers/register']))
      // Back from a request, the list is as it was left.
      await rowOf(page, '/v1/customers/register').getByRole('link').click()
      await page.getByRole('link', { name: '← All requests' }).click()
      await eventually(async () => expect(await page.locator('tbody tr td:nth-child(3)').allTextContents()).toEqual(['/v1/customers/register']))
      expect([await page.getByLabel('Status').inputValue(), await page.getByLabel('Path starts with').inputValue()]).toEqual(['4xx', '/v1/customers'])
      // The filters live in the address: a reload keeps them, "everyone" included.
      await page.getByLabel('Who called').selectOption({ label: 'everyone' })
      await page.waitForURL(/client=all/)
      expect(new URL(page.url()).hash).toBe('#/store/requests?status=4xx&path=%2Fv1%2Fcustomers&client=all')
      await page.reload()
      await eventually(async () => expect(await page.locator('tbody tr td:nth-child(3)').allTextContents()).toEqual(['/v1/customers/register']))
      const shown = await Promise.all(['Status', 'Path starts with', 'Who called'].map((label) => page.getByLabel(label).inputValue()))
      expect(shown).toEqual(['4xx', '/v1/customers', ''])
    })
  })

  test('refusals from one sender are one row with their count, which the live view raises in place, to the last one', async () => {
    // The server runs on the real clock: a counted entry is one per minute, so this starts early in one.
    const second = new Date().getSeconds()
    if (second > 50) await Bun.sleep((61 - second) * 1000)
    const refuse = () => panel.call('GET', '/v1/cart', { headers: apiKey(key) })
    const first = Date.now()
    for (let i = 0; i < 3; i++) expect((await refuse()).status).toBe(401)
    await panel.withPage('inspector counted refusals', async (page) => {
      await signInAsStudent(page, panel, RM, PASSWORD, '/store/requests')
      const row = rowOf(page, '/v1/cart')
      await row.waitFor()
      expect(await row.getByRole('cell').nth(3).textContent()).toStartWith('401UNAUTHENTICATED3 calls, the last')
      // The stream sends a counted entry again at most once a second: the next refusal comes after one.
      await Bun.sleep(Math.max(0, 1100 - (Date.now() - first)))
      expect((await refuse()).status).toBe(401)
      await eventually(async () => expect(await row.getByRole('cell').nth(3).textContent()).toStartWith('401UNAUTHENTICATED4 calls, the last'))
      // Two more within the second: the stream sends the last count once the second is over, with no reload.
      for (let i = 0; i < 2; i++) expect((await refuse()).status).toBe(401)
      await eventually(async () => expect(await row.getByRole('cell').nth(3).textContent()).toStartWith('401UNAUTHENTICATED6 calls, the last'))
      expect(await row.count()).toBe(1)
    })
  })

  test("a buyer call without the customer token shows the key it sent, repeats just that, and offers the token as a separate fix", async () => {
    const shopKey = (await createKey(panel.call, made.token, 'shop page', 'publishable')).apiKey
    const refused = await panel.call('GET', '/v1/orders', { headers: { ...apiKey(shopKey), 'x-request-id': 'orders-without-token' } })
    expect(refused.status).toBe(401)
    await panel.withPage('inspector missing customer token', async (page) => {
      await signInAsStudent(page, panel, RM, PASSWORD, '/store/requests/orders-without-token')
      await page.getByRole('heading', { name: 'GET /v1/orders' }).waitFor()
      expect(await page.locator('dt:text-is("Credential") + dd').textContent()).toBe('publishable')
      // The key to set is the kind the call sent.
      await page.getByText('export API_KEY=pk_… (the kind of key this call sent)').first().waitFor()
      const curl = (await page.getByTestId('curl').textContent())!
      expect(curl).toContain('-H "X-API-Key: $API_KEY"')
      expect(curl).not.toContain('Authorization')
      const fix = page.getByRole('region', { name: 'How to fix it' })
      expect(await fix.textContent()).toContain('This route also needs Authorization: Bearer <customer token>')
      const fixed = (await fix.getByTestId('curl-fixed').textContent())!
      expect(fixed).toContain('-H "X-API-Key: $API_KEY" \\\n  -H "Authorization: Bearer $CUSTOMER_TOKEN"')
      expect(fixed).not.toContain(shopKey)
    })
  })

  test('the list shows the app\'s calls at first; "Who called" shows the panel\'s own; X-Student-RM names the student', async () => {
    await expectOk(panel.call('GET', '/v1/products?search=by-app', { headers: { ...apiKey(key), 'x-student-rm': RM, 'x-request-id': 'by-rm' } }))
    await expectOk(panel.call('GET', '/v1/products?search=by-panel-header', { headers: { ...apiKey(key), 'x-storefront-client': 'panel' } }))
    await panel.withPage('inspector who called', async (page) => {
      await signInAsStudent(page, panel, RM, PASSWORD, '/store/requests')
      await rowOf(page, 'search=by-app').waitFor()
      expect(await page.getByLabel('Who called').inputValue()).toBe('app')
      // The panel's own calls (this page's sign-in among them) are not in the app's list.
      expect(await rowOf(page, 'search=by-panel-header').count()).toBe(0)
      expect(await rowOf(page, '/v1/store/settings').count()).toBe(0)
      await page.getByLabel('Who called').selectOption('panel')
      await rowOf(page, 'search=by-panel-header').waitFor()
      await rowOf(page, '/v1/store/settings').first().waitFor()
      await eventually(async () => expect(await rowOf(page, 'search=by-app').count()).toBe(0))
      await page.getByLabel('Who called').selectOption('app')
      await rowOf(page, 'search=by-app').getByRole('link').click()
      await page.getByRole('heading', { name: 'GET /v1/products' }).waitFor()
      expect(await page.locator('dt:text-is("RM") + dd').textContent()).toBe(`${RM} (from X-Student-RM)`)
      expect(await page.locator('dt:text-is("Called by") + dd').textContent()).toBe('the app')
    })
  })

  test('a call with the secret key from a web page is marked in the list, and its page says why and what to do', async () => {
    await expectOk(panel.call('GET', '/v1/products?search=from-a-page', { headers: { ...apiKey(key), origin: 'http://192.168.0.40:5173' } }))
    await panel.withPage('inspector secret key in a page', async (page) => {
      await signInAsStudent(page, panel, RM, PASSWORD, '/store/requests')
      const row = rowOf(page, 'search=from-a-page')
      await row.getByText('secret key in a web page').waitFor()
      await row.getByRole('link').click()
      const said = await page.locator('dt:text-is("From a web page") + dd').textContent()
      expect(said).toStartWith("This call used the store's secret key from a page at http://192.168.0.40:5173")
      expect(said).toContain('A page takes the publishable key (pk_...)')
    })
  })

  test("the teacher opens a group's requests from its page and sees the same entries", async () => {
    const own = await expectOk(panel.call('GET', `/v1/admin/groups/${groupId}/requests?status=4xx&client=app`, { headers: { 'x-admin-token': panel.adminToken } }))
    expect(own.total).toBeGreaterThan(0)
    await panel.withPage('teacher inspector', async (page) => {
      await signInAsTeacher(page, panel, `/teacher/groups/${groupId}`)
      await page.getByRole('link', { name: 'Requests of Loja Espelho' }).click()
      await page.getByRole('heading', { name: 'Requests' }).waitFor()
      await page.getByLabel('Status').selectOption('4xx')
      await eventually(async () => expect(await page.locator('tbody tr').count()).toBe(Math.min(own.total, 25)))
      await rowOf(page, '/v1/customers/register').first().getByRole('link').click()
      await page.getByRole('heading', { name: 'POST /v1/customers/register' }).waitFor()
      expect(await page.content()).not.toContain(SECRET_IN_BODY)
    })
  })
})
