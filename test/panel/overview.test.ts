import { beforeAll, describe, expect, test } from 'bun:test'
import { apiKey, createKey, expectOk } from '../helpers/world'
import { groupWithStudent, noBrowser, PHONE, sidewaysOverflow, signInAsStudent, usePanel } from './browser'

const panel = usePanel()
const RM = '2026500'
const PASSWORD = 'a-better-password'
let student: Record<string, string>
let key: string
/** The answer to the app's refused checkout: the overview's recent error. */
let refusedCheckout: { error: { code: string; message: string } }
/** The demo's customers, who bought and reviewed. */
let demoCustomers: { email: string; password: string }[]

beforeAll(async () => {
  if (noBrowser) return
  const made = await groupWithStudent(panel, 'Loja Vista', { rm: RM, name: 'Lia' }, PASSWORD)
  student = made.student
  demoCustomers = (await expectOk(panel.call('POST', `/v1/admin/groups/${made.groupId}/seed-demo`, { headers: { 'x-admin-token': panel.adminToken } }), 201)).customers
  key = (await createKey(panel.call, made.token, 'shop app')).apiKey
  // A German store: money and dates follow its locale, not the browser's.
  await expectOk(panel.call('PUT', '/v1/store/settings', { headers: student, body: { locale: 'de-DE', currency: 'EUR' } }))
  await expectOk(panel.call('POST', '/v1/products', { headers: apiKey(key), body: { name: 'Quase esgotado', sku: 'LOW-ONE', price: 12.5, stock: 1, minStock: 4, state: 'PUBLISHED' } }), 201)
  const checkout = await panel.call('POST', '/v1/orders/checkout', { headers: apiKey(key) })
  expect(checkout.status).toBe(401)
  refusedCheckout = checkout.body
})

describe.skipIf(noBrowser)("the store's overview in the panel", () => {
  test('the landing page shows products, orders, money paid today, low stock, the last error and the keys, in the store locale', async () => {
    const o = await expectOk(panel.call('GET', '/v1/store/overview', { headers: student }))
    const euros = new Intl.NumberFormat('de-DE', { style: 'currency', currency: 'EUR' })
    await panel.withPage('overview', async (page) => {
      await signInAsStudent(page, panel, RM, PASSWORD)
      await page.getByRole('heading', { name: 'Overview' }).waitFor()
      expect(await page.getByRole('link', { name: 'Overview' }).getAttribute('aria-current')).toBe('page')
      expect(await page.getByRole('link', { name: /^Products:/ }).getAttribute('aria-label')).toBe(
        `Products: ${o.products.PUBLISHED} published, ${o.products.DRAFT} drafts, ${o.products.ARCHIVED} archived`,
      )
      expect(await page.getByRole('link', { name: /^Paid today:/ }).getAttribute('aria-label')).toBe(`Paid today: ${o.orders.paidToday.orders} orders, ${euros.format(o.orders.paidToday.amount)}`)
      expect(o.orders.paidToday.orders).toBeGreaterThan(0)
      expect(await page.getByText(/orders paid since midnight/).textContent()).toBe(`${o.orders.paidToday.orders} orders paid since midnight (${o.today.timeZone}), refunds not taken off`)
      const byStatus = page.getByRole('table', { name: 'Orders by status' })
      expect(await byStatus.getByRole('cell').allTextContents()).toEqual(['PENDING', 'PAID', 'SHIPPED', 'DELIVERED', 'CANCELLED', 'REFUNDED'].map((s) => String(o.orders.byStatus[s])))
      const low = page.getByRole('row', { name: /Quase esgotado/ })
      expect(await low.getByRole('cell').allTextContents()).toEqual(['LOW-ONE', '1', '4'])
      // The app's last error, from the request inspector: when (in the store's locale), its code and message; it links to the whole request.
      const refused = (await expectOk(panel.call('GET', '/v1/store/requests?status=4xx&path=/v1/orders/checkout', { headers: student }))).data[0]
      expect([refused.errorCode, refused.errorMessage]).toEqual([refusedCheckout.error.code, refusedCheckout.error.message])
      const errorLine = page.getByRole('region', { name: "Your app's recent errors" }).getByRole('listitem').filter({ hasText: 'POST /v1/orders/checkout' })
      expect(await errorLine.locator('small').textContent()).toBe(`${new Date(refused.createdAt).toLocaleString('de-DE')} · ${refused.errorCode}: ${refused.errorMessage}`)
      const error = errorLine.getByRole('link', { name: 'POST /v1/orders/checkout' })
      await error.click()
      await page.getByRole('heading', { name: 'POST /v1/orders/checkout' }).waitFor()
      await page.getByRole('link', { name: 'Overview' }).click()
      const keyRow = page.getByRole('row', { name: /shop app/ })
      await keyRow.waitFor()
      const listed = (await expectOk(panel.call('GET', '/v1/store/api-keys', { headers: student }))).data.find((k: any) => k.name === 'shop app')
      expect(await keyRow.getByRole('cell').allTextContents()).toEqual(['secret', new Date(listed.lastUsedAt).toLocaleString('de-DE')])
    })
  })

  test("reviews name their product, with dates in the store's locale", async () => {
    const reviews = await expectOk(panel.call('GET', '/v1/store/reviews', { headers: student }))
    const first = reviews.data[0]
    await panel.withPage('reviews name products', async (page) => {
      await signInAsStudent(page, panel, RM, PASSWORD, '/store/reviews')
      const row = page.getByRole('row').filter({ hasText: first.title })
      expect(await row.locator('small').first().textContent()).toBe(`${first.productName} · ${new Date(first.createdAt).toLocaleString('de-DE')}`)
      expect(await page.content()).not.toContain(first.productId)
    })
  })

  test("a review with a long link keeps the moderation button on a laptop's screen, and its comment keeps its lines", async () => {
    const login = await expectOk(panel.call('POST', '/v1/customers/login', { headers: apiKey(key), body: demoCustomers[0] }))
    const buyer = { ...apiKey(key), authorization: `Bearer ${login.token}` }
    const [mine] = (await expectOk(panel.call('GET', '/v1/me/reviews', { headers: buyer }))).data
    const link = `https://example.com/fotos?id=${'a1b2c3d4'.repeat(40)}`
    await expectOk(panel.call('PATCH', `/v1/reviews/${mine.id}`, { headers: buyer, body: { title: 'Veja as fotos', comment: `Pontos:\n- costura solta\n- ${link}` } }))
    await panel.withPage('a long review', async (page) => {
      await signInAsStudent(page, panel, RM, PASSWORD, '/store/reviews')
      const row = page.getByRole('row').filter({ hasText: 'Veja as fotos' })
      const button = row.getByRole('button', { name: mine.hidden ? 'Show' : 'Hide' })
      const box = (await button.boundingBox())!
      expect(box.x + box.width).toBeLessThanOrEqual(page.viewportSize()!.width)
      // Nor is it scrolled out of its table's box: the link breaks where it must.
      const table = page.locator('.table').filter({ has: row })
      expect(await table.evaluate((e) => (e as unknown as { scrollWidth: number }).scrollWidth - (e as unknown as { clientWidth: number }).clientWidth)).toBeLessThanOrEqual(0)
      expect(await row.getByText('Pontos:').evaluate((e) => (e as unknown as { innerText: string }).innerText)).toBe(`Pontos:\n- costura solta\n- ${link}`)
    })
  })

  test("on a phone the app's recent errors come before low stock, and the panel's own failures are not among them", async () => {
    // A failure the panel made (its header says so) is the panel's, not the app's.
    const panelMiss = await panel.call('GET', '/v1/products/prod_from_the_panel', { headers: { ...student, 'x-storefront-client': 'panel' } })
    expect(panelMiss.status).toBe(404)
    await panel.withPage('overview on a phone', async (page) => {
      await signInAsStudent(page, panel, RM, PASSWORD)
      const errors = page.getByRole('region', { name: "Your app's recent errors" })
      await errors.getByRole('listitem').filter({ hasText: 'POST /v1/orders/checkout' }).waitFor()
      const low = page.getByRole('heading', { name: 'Low stock' })
      const errorsTop = (await errors.boundingBox())!.y
      const lowTop = (await low.boundingBox())!.y
      expect(errorsTop).toBeLessThan(lowTop)
      expect(await errors.getByText('prod_from_the_panel').count()).toBe(0)
      expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0)
    }, PHONE)
  })

  test('when the server does not answer, the screen says so and Try again loads it once it is back, without a reload', async () => {
    await panel.withPage('overview try again', async (page) => {
      await signInAsStudent(page, panel, RM, PASSWORD)
      await page.getByRole('heading', { name: 'Overview' }).waitFor()
      await page.getByRole('link', { name: /^Products:/ }).waitFor()
      // The server stops answering (restarted, or the laptop left the network): every API call fails.
      await page.route('**/v1/**', (route) => route.abort('connectionrefused'))
      await page.getByRole('link', { name: 'Orders', exact: true }).click()
      await page.getByRole('link', { name: 'Overview', exact: true }).click()
      await page.getByText('The server did not answer').waitFor()
      const retry = page.getByRole('button', { name: 'Try again' })
      await page.unroute('**/v1/**')
      await retry.click()
      await page.getByRole('link', { name: /^Products:/ }).waitFor()
      expect(await retry.count()).toBe(0)
    })
  })
})
