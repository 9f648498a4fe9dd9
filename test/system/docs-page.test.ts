import { describe, expect, test } from 'bun:test'
import { eventually, noBrowser, usePanel } from '../panel/browser'

/** The reference at /docs as a student sees it: the real server from source, in headless Chromium. */
const served = usePanel()

/** The section of GET /v1/cart (its id is prefixed with the document's number: `api-1/tag/...`). */
const CART = 'section[id$="/tag/cart-and-orders/GET/v1/cart"]'

describe.skipIf(noBrowser)('/docs in a browser', () => {
  test("a buyer route's curl sample shows, readable, a publishable key in X-API-Key and a customer token in Authorization", async () => {
    await served.withPage('docs curl sample', async (page) => {
      await page.goto(`${served.base}/docs#tag/cart-and-orders/GET/v1/cart`)
      const sample = page.locator(CART).locator('.code-snippet pre').first()
      const text = await eventually(async () => {
        const text = await sample.innerText()
        expect(text).toContain('/v1/cart')
        return text
      })
      expect(text.split('\n').filter((line) => line.includes('--header')).map((line) => line.trim())).toEqual([
        "--header 'X-API-Key: pk_...' \\",
        "--header 'Authorization: Bearer ctk_...'",
      ])
      // The values are placeholders, so they are drawn, not masked with dots.
      const drawn = await sample.locator('.credential-value').evaluateAll((values) => values.map((v) => (globalThis as unknown as { getComputedStyle(e: unknown): { fontSize: string } }).getComputedStyle(v).fontSize !== '0px'))
      expect(drawn).toEqual([true, true])
    })
  })

  test('a collapsed answer keeps its error code as written, in code, underscores and all', async () => {
    await served.withPage('docs answer summary', async (page) => {
      await page.goto(`${served.base}/docs#tag/cart-and-orders/GET/v1/cart`)
      const operation = page.locator(CART)
      const summaries = operation.locator('.parameter-item-description-summary')
      const codes = await eventually(async () => {
        const codes = await summaries.evaluateAll((all) => all.map((s) => s.querySelector('p > code:first-child')?.textContent ?? null))
        expect(codes.length).toBeGreaterThan(3)
        return codes
      })
      // The success answer has no code; every error answer starts with its code.
      expect(codes).toEqual([null, 'UNAUTHENTICATED', 'RATE_LIMITED', 'INTERNAL_ERROR', 'INSUFFICIENT_STORAGE'])
    })
  })
})
