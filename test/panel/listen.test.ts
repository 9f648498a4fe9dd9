import { beforeAll, describe, expect, test } from 'bun:test'
import { apiKey, createKey } from '../helpers/world'
import { eventually, groupWithStudent, noBrowser, signInAsStudent, usePanel } from './browser'

const panel = usePanel()
const RM = '2026700'
const PASSWORD = 'a-better-password'
let key: string

beforeAll(async () => {
  if (noBrowser) return
  const { token } = await groupWithStudent(panel, 'Loja Escuta', { rm: RM, name: 'Leo' }, PASSWORD)
  key = (await createKey(panel.call, token, 'app')).apiKey
})

describe.skipIf(noBrowser)('the webhooks page', () => {
  test('shows the listen command with this server’s address, and who is listening now', async () => {
    const stream = new AbortController()
    const listening = await fetch(`${panel.base}/v1/webhooks/listen?events=order.paid`, { headers: apiKey(key), signal: stream.signal })
    expect(listening.status).toBe(200)
    // Read as storefront listen reads it: an answer nobody reads may be collected, which closes the stream.
    const reader = listening.body!.getReader()
    const reading = (async () => {
      try {
        while (!(await reader.read()).done);
      } catch {
        // aborted at the end of the test
      }
    })()
    try {
      await panel.withPage('webhooks listen', async (page) => {
        await signInAsStudent(page, panel, RM, PASSWORD, '/store/webhooks')
        const region = page.getByRole('region', { name: 'Listening from your machine' })
        await region.waitFor()
        expect(await region.getByLabel('listen command').textContent()).toBe(
          `storefront listen --server ${panel.base} --key sk_... --forward-to http://localhost:5173/webhooks`,
        )
        const rows = await eventually(async () => {
          const cells = (await region.getByRole('table', { name: '1 of 3 listening' }).getByRole('row').allTextContents()).slice(1)
          expect(cells).toHaveLength(1)
          return cells
        })
        expect(rows[0]).toContain('order.paidsecret key0')
        expect(await region.textContent()).not.toContain('whsec_')
      })
    } finally {
      stream.abort()
      await reading
    }
  }, 30_000)
})
