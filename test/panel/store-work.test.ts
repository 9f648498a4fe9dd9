import { beforeAll, describe, expect, test } from 'bun:test'
import { createHmac } from 'node:crypto'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { startReceiver } from '../helpers/receivers'
import { expectOk } from '../helpers/world'
import { eventually, groupWithStudent, noBrowser, signInAsStudent, usePanel } from './browser'

// Loopback webhook URLs (the test's receivers) are allowed, as on a student's own copy.
const panel = usePanel(['--allow-loopback-webhooks'])
let student: Record<string, string>
const RM = '2026300'
const PASSWORD = 'a-better-password'

beforeAll(async () => {
  if (noBrowser) return
  const made = await groupWithStudent(panel, 'Loja Demo', { rm: RM, name: 'Duda' }, PASSWORD)
  student = made.student
  await expectOk(panel.call('POST', `/v1/admin/groups/${made.groupId}/seed-demo`, { headers: { 'x-admin-token': panel.adminToken } }), 201)
})

const signIn = (page: Page, route: string) => signInAsStudent(page, panel, RM, PASSWORD, route)

describe.skipIf(noBrowser)('a student running the store from the panel', () => {
  test('hides a review: it leaves the public list and the product rating', async () => {
    const all = await expectOk(panel.call('GET', '/v1/store/reviews', { headers: student }))
    const review = all.data[0]
    const before = await expectOk(panel.call('GET', `/v1/products/${review.productId}/reviews`, { headers: student }))
    expect(before.data.map((r: { id: string }) => r.id)).toContain(review.id)

    await panel.withPage('student hides a review', async (page) => {
      await signIn(page, '/store/reviews')
      const row = page.getByRole('row').filter({ hasText: review.title })
      await row.getByText('public').waitFor()
      await row.getByRole('button', { name: 'Hide' }).click()
      await row.getByText('hidden').waitFor()
      expect(await row.getByRole('button').allTextContents()).toEqual(['Show'])
    })
    const after = await expectOk(panel.call('GET', `/v1/products/${review.productId}/reviews`, { headers: student }))
    expect(after.data.map((r: { id: string }) => r.id)).not.toContain(review.id)
    expect(after.summary.count).toBe(before.summary.count - 1)
  })

  test('registers a webhook, reads the signed text of its ping, and redelivers it', async () => {
    const receiver = startReceiver(() => Response.json({ thanks: 'from the receiver' }))
    await panel.withPage('student webhook ping and redeliver', async (page) => {
      await signIn(page, '/store/webhooks')
      await page.getByLabel('URL').fill(receiver.url)
      // No event ticked: said in the form's words, before anything is sent.
      await page.getByRole('button', { name: 'Register endpoint' }).click()
      await page.getByRole('alert').filter({ hasText: 'Tick the events this endpoint receives, or "all events (*)".' }).waitFor()
      await page.getByLabel('all events (*)').check()
      await page.getByRole('button', { name: 'Register endpoint' }).click()
      const secret = (await page.getByTestId('secret').textContent())!.trim()
      expect(secret).toMatch(/^whsec_/)
      // Which endpoint the secret is for, with several registered.
      await page.getByText(`Copy the signing secret of ${receiver.url} now: it is shown only this once.`).waitFor()

      await page.getByRole('button', { name: 'Ping' }).click()
      await eventually(() => expect(receiver.received).toHaveLength(1))
      const sent = receiver.received[0]!
      const signed = `${sent.headers['x-timestamp']}.${sent.body}`
      // The secret the panel showed is the one that signs: the receiver's check passes.
      expect(sent.headers['x-signature']).toBe(`sha256=${createHmac('sha256', secret).update(signed).digest('hex')}`)

      const delivery = page.locator('details.delivery').first()
      await eventually(async () => {
        await page.getByRole('button', { name: 'Refresh', exact: true }).click()
        expect(await delivery.locator('summary').textContent()).toContain('SUCCEEDED')
      })
      await delivery.locator('summary').click()
      // The panel shows exactly the text that was signed, and the receiver's answer.
      expect(await delivery.locator('pre').first().textContent()).toBe(signed)
      expect(await delivery.textContent()).toContain('{"thanks":"from the receiver"}')

      await delivery.getByRole('button', { name: 'Redeliver' }).click()
      await eventually(() => expect(receiver.received).toHaveLength(2))
      expect(receiver.received[1]!.body).toBe(sent.body)
      await eventually(async () => {
        await page.getByRole('button', { name: 'Refresh', exact: true }).click()
        expect(await page.locator('details.delivery summary').first().textContent()).toContain('attempt 2 (redelivery)')
      })
      // One endpoint's deliveries: the list says whose.
      await page.getByRole('button', { name: `Deliveries to ${receiver.url}` }).click()
      await page.getByTestId('deliveries-of').filter({ hasText: `The deliveries to ${receiver.url} only.` }).waitFor()
    })
  })

  test('uploads a picture to the media library and sees the space used grow', async () => {
    const before = await expectOk(panel.call('GET', '/v1/media/usage', { headers: student }))
    await panel.withPage('student uploads media', async (page) => {
      await signIn(page, '/store/media')
      await page.getByText(`used by ${before.files} files`).waitFor()
      await page.getByLabel('File').setInputFiles(join(import.meta.dir, '..', 'fixtures', 'media', 'sample.png'))
      await page.getByRole('button', { name: 'Upload' }).click()
      await page.getByText(/sample\.png uploaded \(image\/png/).waitFor()
      await page.getByText(`used by ${before.files + 1} files`).waitFor()
      expect(await page.getByRole('img', { name: 'sample.png' }).count()).toBe(1)
    })
    const after = await expectOk(panel.call('GET', '/v1/media/usage', { headers: student }))
    expect(after.files).toBe(before.files + 1)
    expect(after.usedBytes).toBeGreaterThan(before.usedBytes)
  })

  test('deleting a file a product shows says which product, and Delete anyway unlinks and deletes it', async () => {
    const products = await expectOk(panel.call('GET', '/v1/products?pageSize=100', { headers: student }))
    const shown = await expectOk(panel.call('GET', `/v1/products/${products.data.find((p: any) => p.image !== null).id}`, { headers: student }))
    const library = async () => (await expectOk(panel.call('GET', '/v1/media?pageSize=100', { headers: student }))).data as { id: string; filename: string }[]
    const file = (await library()).find((f) => f.id === shown.images[0].mediaId)!
    await panel.withPage('student deletes a file in use', async (page) => {
      await signIn(page, '/store/media')
      const card = page.getByRole('figure').filter({ hasText: file.filename })
      await card.getByRole('button', { name: 'Delete' }).click()
      await card.getByRole('button', { name: 'Yes, delete' }).click()
      // Said on the file's own tile, where Delete was pressed, with the way on: not at the top of a long page.
      await card.getByText(`It is used by a product image (${shown.id}). Delete anyway removes it from them, then deletes it.`).waitFor()
      await card.getByRole('alert').filter({ hasText: 'MEDIA_IN_USE' }).waitFor()
      await card.getByRole('button', { name: 'Delete anyway' }).click()
      await card.getByRole('button', { name: 'Yes, delete anyway' }).click()
      await page.getByText(`${file.filename} deleted.`).waitFor()
    })
    expect((await library()).map((f) => f.id)).not.toContain(file.id)
  })

  test('revokes an API key with the keyboard alone: Escape cancels the confirmation, Enter confirms', async () => {
    const key = await expectOk(panel.call('POST', '/v1/store/api-keys', { headers: student, body: { name: 'old laptop' } }), 201)
    expect((await panel.call('GET', '/v1/products', { headers: { 'x-api-key': key.apiKey } })).status).toBe(200)
    await panel.withPage('student revokes a key by keyboard', async (page) => {
      await signIn(page, '/store/keys')
      const row = page.getByRole('row', { name: /old laptop/ })
      await row.getByRole('button', { name: 'Revoke' }).focus()
      await page.keyboard.press('Enter')
      // The question takes the focus, on the button that confirms.
      await eventually(async () => expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Yes, revoke'))
      // Its two answers cannot be read as one ("Cancel" beside "Yes, cancel order" could).
      expect(await row.getByRole('button').allTextContents()).toEqual(['Yes, revoke', 'No, keep it'])
      await page.keyboard.press('Escape')
      await row.getByRole('button', { name: 'Revoke' }).waitFor()
      expect((await panel.call('GET', '/v1/products', { headers: { 'x-api-key': key.apiKey } })).status).toBe(200)
      // Cancelled, the focus is back on Revoke: Enter asks again, with no click or Tab between.
      expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Revoke')
      await page.keyboard.press('Enter')
      await eventually(async () => expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Yes, revoke'))
      await page.keyboard.press('Enter')
      await page.getByText('Key "old laptop" revoked').waitFor()
      // The row and its button go: the focus is on what was done, not left at the top of the page.
      expect(await page.evaluate<string>('document.activeElement.getAttribute("role") + ": " + document.activeElement.textContent')).toStartWith('status: Key "old laptop" revoked')
      // The list reloads after the message: the row leaves once the new list is there.
      await page.getByRole('row', { name: /old laptop/ }).waitFor({ state: 'detached' })
      expect(await page.getByRole('row', { name: /old laptop/ }).count()).toBe(0)
    })
    const refused = await panel.call('GET', '/v1/products', { headers: { 'x-api-key': key.apiKey } })
    expect(refused.status).toBe(401)
  })
})
