import { beforeAll, describe, expect, test } from 'bun:test'
import { startReceiver } from '../helpers/receivers'
import { apiKey, createKey, expectOk } from '../helpers/world'
import { eventually, groupWithStudent, noBrowser, PHONE, sidewaysOverflow, signInAsStudent, usePanel } from './browser'

// Loopback webhook URLs (the test's receiver) are allowed, as on a student's own copy.
const panel = usePanel(['--allow-loopback-webhooks'])
const RM = '2026600'
const PASSWORD = 'a-better-password'
let order: any
/** A paid order of a customer with a long e-mail, which the phone test ships and refunds. */
let paid: any
let token: string
const LONG_EMAIL = 'bianca.souza.de.oliveira.compras.online@um-provedor-de-email-bem-comprido.example.com'

beforeAll(async () => {
  if (noBrowser) return
  ;({ token } = await groupWithStudent(panel, 'Loja Pedido', { rm: RM, name: 'Rui' }, PASSWORD))
  const key = apiKey((await createKey(panel.call, token, 'app')).apiKey)
  const receiver = startReceiver()
  await expectOk(panel.call('POST', '/v1/webhooks', { headers: key, body: { url: receiver.url, events: ['*'] } }), 201)
  const product = await expectOk(panel.call('POST', '/v1/products', { headers: key, body: { name: 'Caneca Azul', sku: 'CAN-AZ', price: 25, stock: 10, state: 'PUBLISHED' } }), 201)
  const buyer = await expectOk(panel.call('POST', '/v1/customers/register', { headers: key, body: { name: 'Bia Souza', email: 'bia@example.com', password: 'password-123' } }), 201)
  const customer = { ...key, authorization: `Bearer ${buyer.token}` }
  await expectOk(panel.call('POST', '/v1/cart/items', { headers: customer, body: { variantId: product.variants[0].id, quantity: 2 } }))
  const made = await expectOk(panel.call('POST', '/v1/orders/checkout', { headers: customer }), 201)
  expect((await panel.call('POST', `/v1/orders/${made.id}/pay`, { headers: customer, body: { method: 'CREDIT_CARD', installments: 1, simulate: 'decline' } })).status).toBe(402)
  await expectOk(panel.call('POST', `/v1/orders/${made.id}/pay`, { headers: customer, body: { method: 'PIX' } }))
  await expectOk(panel.call('POST', `/v1/store/orders/${made.id}/transition`, { headers: key, body: { to: 'SHIPPED', trackingCode: 'BR123456' } }))
  order = await expectOk(panel.call('POST', `/v1/store/orders/${made.id}/refund`, { headers: key, body: { restock: true, reason: 'arrived broken' } }))
  const longBuyer = await expectOk(panel.call('POST', '/v1/customers/register', { headers: key, body: { name: 'Bianca', email: LONG_EMAIL, password: 'password-123' } }), 201)
  const longCustomer = { ...key, authorization: `Bearer ${longBuyer.token}` }
  await expectOk(panel.call('POST', '/v1/cart/items', { headers: longCustomer, body: { variantId: product.variants[0].id, quantity: 1 } }))
  paid = await expectOk(panel.call('POST', '/v1/orders/checkout', { headers: longCustomer }), 201)
  await expectOk(panel.call('POST', `/v1/orders/${paid.id}/pay`, { headers: longCustomer, body: { method: 'PIX' } }))
  // Every event of the order reached the receiver before the page looks.
  await eventually(() => expect(receiver.events().filter((e: any) => e.data?.orderId === made.id).length).toBe(4))
})

describe.skipIf(noBrowser)('the order detail page', () => {
  test('shows the items, both payment attempts, the refund, every state change and the webhook deliveries of the order', async () => {
    await panel.withPage('order detail', async (page) => {
      await signInAsStudent(page, panel, RM, PASSWORD, '/store/orders')
      await page.getByRole('link', { name: `#${order.number}` }).click()
      await page.getByRole('heading', { name: `Order #${order.number}` }).waitFor()
      expect(await page.getByRole('link', { name: 'Orders', exact: true }).getAttribute('aria-current')).toBe('page')
      const cells = async (table: string) => (await page.getByRole('table', { name: table }).getByRole('row').allTextContents()).slice(1)
      const brl = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' })
      expect(await cells('Items')).toEqual([`Caneca AzulCAN-AZ${brl.format(25)}2${brl.format(50)}`])
      expect(await cells('History')).toEqual(order.history.map((h: any) => `${h.status}${new Date(h.at).toLocaleString('pt-BR')}`))
      expect(order.history.map((h: any) => h.status)).toEqual(['PENDING', 'PAID', 'SHIPPED', 'REFUNDED'])
      const payments = await cells('Payments')
      expect(payments.map((p) => p.slice(0, p.indexOf(brl.format(50))))).toEqual(['CREDIT_CARDDECLINED', 'PIXAPPROVED'])
      expect((await cells('Refunds'))[0]).toStartWith(`${brl.format(50)}yesarrived broken`)
      const deliveries = page.getByRole('region', { name: 'Webhook deliveries of this order' })
      await eventually(async () => {
        await page.reload()
        const events = await deliveries.locator('tbody th').allTextContents()
        expect(events.sort()).toEqual(['order.created', 'order.paid', 'order.refunded', 'shipment.updated'])
      })
      expect(await deliveries.locator('tbody .badge').allTextContents()).toEqual(['SUCCEEDED', 'SUCCEEDED', 'SUCCEEDED', 'SUCCEEDED'])
    })
  })

  test("the list's status filter is in the address: an order's page goes back to the list as it was left, and a reload keeps it", async () => {
    await panel.withPage('order list filter', async (page) => {
      await signInAsStudent(page, panel, RM, PASSWORD, '/store/orders')
      const rows = () => page.getByRole('row', { name: /^Order #/ }).count()
      await page.getByRole('row', { name: `Order #${paid.number}` }).waitFor()
      expect(await rows()).toBe(2)
      await page.getByLabel('Status').selectOption('REFUNDED')
      await page.getByRole('row', { name: `Order #${paid.number}` }).waitFor({ state: 'detached' })
      expect(await rows()).toBe(1)
      await page.getByRole('link', { name: `#${order.number}` }).click()
      await page.getByRole('heading', { name: `Order #${order.number}` }).waitFor()
      await page.getByRole('link', { name: '← All orders' }).click()
      await page.getByRole('row', { name: `Order #${order.number}` }).waitFor()
      expect([await page.getByLabel('Status').inputValue(), await rows(), new URL(page.url()).hash]).toEqual(['REFUNDED', 1, '#/store/orders?status=REFUNDED'])
      await page.reload()
      await page.getByRole('row', { name: `Order #${order.number}` }).waitFor()
      expect([await page.getByLabel('Status').inputValue(), await rows()]).toEqual(['REFUNDED', 1])
    })
  })

  test('on a phone the navigation folds behind Menu, and the page does not overflow sideways', async () => {
    await panel.withPage('order detail on a phone', async (page) => {
      await signInAsStudent(page, panel, RM, PASSWORD, `/store/orders/${order.id}`)
      await page.getByRole('heading', { name: `Order #${order.number}` }).waitFor()
      const menu = page.getByRole('button', { name: 'Menu' })
      expect(await menu.getAttribute('aria-expanded')).toBe('false')
      expect(await page.getByRole('link', { name: 'Webhooks' }).isVisible()).toBe(false)
      await menu.click()
      await page.getByRole('button', { name: 'Menu', expanded: true }).waitFor()
      await page.getByRole('link', { name: 'Webhooks' }).click()
      await page.getByRole('heading', { name: 'Webhook endpoints' }).waitFor()
      // Choosing a page folds the menu again, in the same render that shows the page.
      expect(await menu.getAttribute('aria-expanded')).toBe('false')
      await page.goBack()
      await page.getByRole('heading', { name: `Order #${order.number}` }).waitFor()
      expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0)
      // A wide table scrolls inside its own box rather than being cut.
      const box = page.getByRole('table', { name: 'Items' }).locator('xpath=..')
      expect(await box.evaluate((e) => (globalThis as unknown as { getComputedStyle(e: unknown): { overflowX: string } }).getComputedStyle(e).overflowX)).toBe('auto')
    }, PHONE)
  })

  test('on a phone the order page has its Ship and Refund buttons, a long e-mail wraps, and a wide table says it scrolls', async () => {
    await panel.withPage('order actions on a phone', async (page) => {
      await signInAsStudent(page, panel, RM, PASSWORD, `/store/orders/${paid.id}`)
      await page.getByRole('heading', { name: `Order #${paid.number}` }).waitFor()
      const email = page.locator('dt:text-is("Customer") + dd')
      expect(await email.textContent()).toBe(`Bianca · ${LONG_EMAIL}`)
      expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0)
      expect(await email.evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true)
      // The Items table is wider than the phone: the line under it says so, until it is scrolled to its end.
      const items = page.getByRole('table', { name: 'Items' }).locator('xpath=..')
      const cue = items.locator('xpath=following-sibling::p[1]')
      expect(await cue.textContent()).toBe('Swipe or scroll sideways for more columns →')
      expect(await cue.isVisible()).toBe(true)
      await items.evaluate((e) => e.scrollTo({ left: e.scrollWidth }))
      await eventually(async () => expect(await items.getAttribute('class')).toBe('table'))
      expect(await items.evaluate((e) => e.nextElementSibling?.className)).not.toBe('scroll-cue')

      const actions = page.getByRole('region', { name: 'Actions of this order' })
      expect(await actions.getByRole('button').allTextContents()).toEqual(['Ship', 'Refund'])
      await actions.getByRole('button', { name: 'Ship' }).click()
      await actions.getByText(`Order #${paid.number} is now SHIPPED.`).waitFor()
      // The page reads the order again after the move: the message can show before the new status does.
      await eventually(async () => expect(await page.locator('dt:text-is("Status") + dd').textContent()).toBe('SHIPPED'))
      await actions.getByRole('button', { name: 'Refund' }).click()
      await actions.getByRole('button', { name: 'Yes, refund' }).click()
      await actions.getByText(`Order #${paid.number} refunded; its units are back in stock.`).waitFor()
      await eventually(async () => expect(await page.locator('dt:text-is("Status") + dd').textContent()).toBe('REFUNDED'))
      const after = await expectOk(panel.call('GET', `/v1/store/orders/${paid.id}`, { headers: { authorization: `Bearer ${token}` } }))
      expect(after.history.map((h: any) => h.status)).toEqual(['PENDING', 'PAID', 'SHIPPED', 'REFUNDED'])
    }, PHONE)
  })
})
