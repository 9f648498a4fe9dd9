import { describe, expect, test } from 'bun:test'
import { registerBuyer } from '../helpers/orders'
import { apiKey, expectOk } from '../helpers/world'
import { eventually, groupWithStudent, noBrowser, signInAsStudent, usePanel } from './browser'

const panel = usePanel()

const RM = '2026100'
const NEW_PASSWORD = 'a-better-password'

describe.skipIf(noBrowser)('the student side of the panel', () => {
  test('first sign-in, forced password change, an API key shown once, a product published, an order shipped', async () => {
    const admin = { 'x-admin-token': panel.adminToken }
    const group = await expectOk(panel.call('POST', '/v1/admin/groups', { headers: admin, body: { name: 'Loja Azul', members: [{ rm: RM, name: 'Ana Lima' }] } }), 201)

    await panel.withPage('student first sign-in to shipped order', async (page) => {
      // First sign-in: the password is the RM, and the panel asks for a new one before anything else.
      await signInAsStudent(page, panel, RM, RM)
      await page.getByRole('heading', { name: 'Choose your own password' }).waitFor()
      expect(await page.getByRole('link', { name: 'API keys' }).count()).toBe(0)
      await page.getByLabel('Current password').fill(RM)
      await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD)
      await page.getByLabel('Repeat the new password').fill(NEW_PASSWORD)
      await page.getByRole('button', { name: 'Change password' }).click()
      // The landing page is the store's overview; API keys are one link away.
      await page.getByRole('heading', { name: 'Overview' }).waitFor()
      await page.getByRole('link', { name: 'API keys' }).click()
      await page.getByRole('heading', { name: 'API keys' }).waitFor()
      expect(await page.getByRole('banner').textContent()).toContain('Ana Lima (2026100) · Loja Azul')
      // The RM no longer works as the password; the new one does.
      expect((await panel.call('POST', '/v1/store/auth/login', { body: { rm: RM, password: RM } })).status).toBe(401)
      await expectOk(panel.call('POST', '/v1/store/auth/login', { body: { rm: RM, password: NEW_PASSWORD } }))

      // An API key: the whole key once, then only its prefix.
      await page.getByLabel('Name of the new key').fill('shop app')
      await page.getByRole('button', { name: 'Create key' }).click()
      const key = (await page.getByTestId("secret").textContent())!.trim()
      expect(key.length).toBeGreaterThan(20)
      const products = await expectOk(panel.call('GET', '/v1/products', { headers: apiKey(key) }))
      expect(products.total).toBe(0)
      expect(key).toStartWith('sk_') // secret is the form's default kind
      const listed = page.getByRole('row', { name: /shop app/ })
      expect(await listed.getByRole('cell').nth(1).textContent()).toBe('Secret (server)')
      const prefix = (await listed.getByRole('cell').nth(2).textContent())!.replace('…', '')
      expect(key.startsWith(prefix)).toBe(true)
      expect(prefix.length).toBeLessThan(key.length)
      await page.getByRole('button', { name: 'I have copied it' }).click()
      await page.reload()
      await page.getByRole('row', { name: /shop app/ }).waitFor()
      expect(await page.content()).not.toContain(key)

      // A publishable key for the browser app: it reads the catalog, and management routes refuse it.
      expect(await page.getByText('Which key goes where').textContent()).toContain('Which key goes where')
      await page.getByLabel('Name of the new key').fill('browser shop')
      await page.getByLabel('Kind').selectOption('publishable')
      await page.getByRole('button', { name: 'Create key' }).click()
      const pk = (await page.getByTestId('secret').textContent())!.trim()
      expect(pk).toMatch(/^pk_/)
      // Another page and back, before saying it was copied: the key is still there, once.
      await page.getByRole('link', { name: 'Settings' }).click()
      await page.getByRole('heading', { name: 'Settings' }).first().waitFor()
      await page.goBack()
      await page.getByRole('heading', { name: 'API keys' }).waitFor()
      expect(await page.getByTestId('secret').allTextContents()).toEqual([pk])
      await page.getByRole('button', { name: 'I have copied it' }).click()
      await page.getByRole('link', { name: 'Settings' }).click()
      await page.getByRole('heading', { name: 'Settings' }).first().waitFor()
      await page.goBack()
      await page.getByRole('row', { name: /browser shop/ }).waitFor()
      expect(await page.getByTestId('secret').count()).toBe(0)
      expect(await page.getByRole('row', { name: /browser shop/ }).getByRole('cell').nth(1).textContent()).toBe('Publishable (browser)')
      expect((await expectOk(panel.call('GET', '/v1/products', { headers: apiKey(pk) }))).total).toBe(0)
      const refused = await panel.call('POST', '/v1/products', { headers: apiKey(pk), body: { name: 'X', sku: 'X-1', price: 1, stock: 1 } })
      expect([refused.status, refused.body.error.code]).toEqual([403, 'SECRET_KEY_REQUIRED'])

      // A draft product, created by the app with the key, published from the panel.
      const draft = await expectOk(panel.call('POST', '/v1/products', { headers: apiKey(key), body: { name: 'Caneca Azul', sku: 'CAN-1', price: 29.9, stock: 5 } }), 201)
      expect(draft.state).toBe('DRAFT')
      await page.getByRole('link', { name: 'Catalog' }).click()
      const row = page.getByRole('row', { name: 'Caneca Azul' })
      await row.getByText('DRAFT').waitFor()
      await row.getByRole('button', { name: 'Publish' }).click()
      await row.getByText('PUBLISHED').waitFor()
      expect((await expectOk(panel.call('GET', `/v1/products/${draft.id}`, { headers: apiKey(key) }))).state).toBe('PUBLISHED')

      // A customer buys and pays; the student ships the order from the panel.
      const customer = await registerBuyer(panel.call, key, 'bia@example.com', 'Bia')
      const order = await customer.buy(draft.variants[0].id, 2)
      await expectOk(customer.pay(order.id, { method: 'PIX' }))
      await page.getByRole('link', { name: 'Orders' }).click()
      const line = page.getByRole('row', { name: 'Order #1' })
      await line.getByText('PAID').waitFor()
      expect(await line.textContent()).toContain('2 × Caneca Azul')
      expect(await line.getByRole('button').allTextContents()).toEqual(['Ship', 'Refund'])
      await line.getByRole('button', { name: 'Ship' }).click()
      await line.getByText('SHIPPED').waitFor()
      expect(await line.getByRole('button').allTextContents()).toEqual(['Mark delivered', 'Refund'])
      const shipped = await customer.order(order.id)
      expect(shipped.status).toBe('SHIPPED')
      expect(shipped.shipment.status).toBe('SHIPPED')
    })
    expect(group.members).toHaveLength(1)
  })

  test('the store colour is previewed live, saved, and applied to the panel', async () => {
    const rm = '2026200'
    const { student } = await groupWithStudent(panel, 'Loja Verde', { rm, name: 'Caio' }, NEW_PASSWORD)

    await panel.withPage('student store colour', async (page) => {
      await signInAsStudent(page, panel, rm, NEW_PASSWORD, '/store/settings')
      await page.getByRole('heading', { name: 'Store settings' }).waitFor()
      // A string runs in the page (this file is type-checked without the browser's types).
      const accent = () => page.evaluate<string>("getComputedStyle(document.querySelector('.top')).backgroundColor")
      expect(await accent()).toBe('rgb(31, 111, 235)') // the default #1f6feb

      await page.getByLabel('Primary colour', { exact: true }).fill('#067647')
      await eventually(async () => expect(await accent()).toBe('rgb(6, 118, 71)')) // previewed before saving
      await page.getByRole('button', { name: 'Save settings' }).click()
      await page.getByText('Settings saved.').waitFor()
      const settings = await expectOk(panel.call('GET', '/v1/store/settings', { headers: student }))
      expect(settings.primaryColor).toBe('#067647')

      await page.reload()
      await page.getByRole('heading', { name: 'Store settings' }).waitFor()
      await eventually(async () => expect(await accent()).toBe('rgb(6, 118, 71)'))

      // A colour the API refuses shows the API's own message.
      await page.getByLabel('Primary colour', { exact: true }).fill('green')
      await page.getByRole('button', { name: 'Save settings' }).click()
      await page.getByText('primaryColor must look like #rrggbb').waitFor()
    })
  })

  test('a second key made before the first was dismissed is not shown as copied; a price takes a decimal comma; a product refused is said under its form, where the student is', async () => {
    const rm = '2026500'
    const { student } = await groupWithStudent(panel, 'Loja Anil', { rm, name: 'Iara' }, NEW_PASSWORD)
    await panel.withPage('student copies keys and makes a product', async (page) => {
      await signInAsStudent(page, panel, rm, NEW_PASSWORD, '/store/keys')
      await page.getByLabel('Name of the new key').fill('k1')
      await page.getByRole('button', { name: 'Create key' }).click()
      const first = (await page.getByTestId('secret').textContent())!.trim()
      await page.getByRole('button', { name: 'Copy key' }).click()
      await page.getByRole('status').filter({ hasText: /^\s*(Copied|Select the text and copy it by hand)$/ }).waitFor()
      await page.getByLabel('Name of the new key').fill('k2')
      await page.getByRole('button', { name: 'Create key' }).click()
      await eventually(async () => expect((await page.getByTestId('secret').textContent())!.trim()).not.toBe(first))
      expect(await page.getByRole('status').filter({ hasText: /^\s*(Copied|Select the text and copy it by hand)$/ }).count()).toBe(0)

      await page.getByRole('link', { name: 'Catalog' }).first().click()
      await page.getByRole('heading', { name: 'New product' }).waitFor()
      const form = page.getByRole('region', { name: 'New product' })
      const create = async (sku: string, price = '19.9') => {
        await form.getByLabel('Name').fill('Caneca')
        await form.getByLabel('SKU').fill(sku)
        await form.getByLabel('Price').fill(price)
        await form.getByLabel('Stock').fill('3')
        await form.getByRole('button', { name: 'Create product' }).click()
      }
      const prices = async () => (await expectOk(panel.call('GET', '/v1/products', { headers: student }))).data.map((p: { sku: string; price: number }) => [p.sku, p.price])
      // Each answer under the form: the first made (the form is emptied only then), the second refused.
      // A Brazilian keyboard's "19,90" is 19.90 (a number field had sent 1990).
      await create('ANIL-1', '19,90')
      await form.getByText('"Caneca" created as a DRAFT: publish it to sell it.').waitFor()
      expect(await prices()).toEqual([['ANIL-1', 19.9]])
      // A price with a thousands separator, or three decimals, is held by the form: nothing is sent.
      for (const price of ['1.990,00', '19,999']) {
        await create('ANIL-2', price)
        expect([price, await page.evaluate<boolean>("document.querySelector('input[name=price]').validity.patternMismatch")]).toEqual([price, true])
      }
      expect(await prices()).toEqual([['ANIL-1', 19.9]])
      await create('anil-1')
      await form.getByRole('alert').filter({ hasText: 'ANIL-1' }).waitFor()
    })
  })

  test("the header names the group as it is now: a rename by the teacher shows at the student's next reload", async () => {
    const rm = '2026700'
    const { groupId } = await groupWithStudent(panel, 'Loja Leste B', { rm, name: 'Joao' }, NEW_PASSWORD)
    await panel.withPage('student sees the group renamed', async (page) => {
      await signInAsStudent(page, panel, rm, NEW_PASSWORD)
      const who = page.locator('.who')
      await eventually(async () => expect(await who.textContent()).toStartWith('Joao (2026700) · Loja Leste B'))
      await expectOk(panel.call('PATCH', `/v1/admin/groups/${groupId}`, { headers: { 'x-admin-token': panel.adminToken }, body: { name: 'Loja Leste C' } }))
      await page.reload()
      await eventually(async () => expect(await who.textContent()).toStartWith('Joao (2026700) · Loja Leste C'))
      // A session the teacher ended meanwhile: the next page the student opens lands on the sign-in, which
      // says why, and still says it after a reload (a bare sign-in would leave them guessing).
      await expectOk(panel.call('POST', `/v1/admin/students/${rm}/reset-password`, { headers: { 'x-admin-token': panel.adminToken } }))
      // The page may notice on its own first (it polls); opening another page makes it ask in any case.
      await page.goto(`${panel.base}/panel#/store/orders`)
      await page.getByRole('heading', { name: 'Student sign-in' }).waitFor()
      expect(await page.getByRole('main').textContent()).toContain('Sign in again')
      await page.reload()
      await page.getByRole('heading', { name: 'Student sign-in' }).waitFor()
      expect(await page.getByRole('main').textContent()).toContain('Sign in again')
      // Signed in again, the notice is gone for good.
      await page.getByLabel('RM').fill(rm)
      await page.getByLabel('Password').fill(rm)
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.getByRole('heading', { name: /password/i }).first().waitFor()
      await page.reload()
      expect(await page.getByRole('main').textContent()).not.toContain('Sign in again')
    })
  })

  test('a member is added from the group page; an RM the server would refuse is held by the form, and nothing is sent', async () => {
    const rm = '2026300'
    const { student, groupId } = await groupWithStudent(panel, 'Loja Rosa', { rm, name: 'Rita' }, NEW_PASSWORD)
    const rms = async () => (await expectOk(panel.call('GET', '/v1/store/members', { headers: student }))).data.map((m: { rm: string }) => m.rm)

    await panel.withPage('student adds a member', async (page) => {
      await signInAsStudent(page, panel, rm, NEW_PASSWORD, '/store/members')
      await page.getByRole('heading', { name: 'Members' }).waitFor()
      // A space, or dots alone (which no URL could name), as the server would refuse them.
      for (const wrong of ['2026 301', '..']) {
        await page.getByLabel('RM').fill(wrong)
        await page.getByLabel('Name').fill('Rui')
        await page.getByRole('button', { name: 'Add member' }).click()
        // A string runs in the page (this file is type-checked without the browser's types).
        expect([wrong, await page.evaluate<boolean>("document.querySelector('input[name=rm]').validity.patternMismatch")]).toEqual([wrong, true])
      }
      expect(await rms()).toEqual([rm])

      await page.getByLabel('RM').fill('2026301')
      await page.getByRole('button', { name: 'Add member' }).click()
      await page.getByText('Rui joined the group. Their first password is their RM (2026301).').waitFor()
      expect((await rms()).sort()).toEqual([rm, '2026301'])
      // One's own row has no Remove (the API refuses it); a classmate's has.
      const row = (who: string) => page.getByRole('row').filter({ hasText: who })
      await row('Rui').getByRole('button', { name: 'Remove' }).waitFor()
      expect(await row('Rita').getByRole('button', { name: 'Remove' }).count()).toBe(0)
      expect(await row('Rita').locator('td').last().textContent()).toBe('you')

      // The teacher resets the password meanwhile: the next action signs out, saying why and that it was not saved.
      await expectOk(panel.call('POST', `/v1/admin/students/${rm}/reset-password`, { headers: { 'x-admin-token': panel.adminToken } }))
      await page.getByLabel('RM').fill('2026302')
      await page.getByLabel('Name').fill('Rosa')
      await page.getByRole('button', { name: 'Add member' }).click()
      await page.getByRole('heading', { name: 'Student sign-in' }).waitFor()
      const notice = await page.getByRole('main').textContent()
      expect(notice).toContain('Sign in again; what you were sending when it ended was not saved.')
      expect(notice).not.toContain('POST /v1/store/auth/login')
      const group = await expectOk(panel.call('GET', `/v1/admin/groups/${groupId}`, { headers: { 'x-admin-token': panel.adminToken } }))
      expect(group.members.map((m: { rm: string }) => m.rm).sort()).toEqual([rm, '2026301'])
    })
  })
})
