import { describe, expect, test } from 'bun:test'
import { limit } from '../helpers/limits'
import { eventually, noBrowser, usePanel } from '../panel/browser'

/** The reference at /docs as a student sees it: the real server from source, in headless Chromium. */
const served = usePanel()

/** The section of GET /v1/cart (its id is prefixed with the document's number: `api-1/tag/...`). */
const CART = 'section[id$="/tag/cart-and-orders/GET/v1/cart"]'

/**
 * How long the page may take to draw: the reference renders the whole document (about 270 KB) in the
 * browser, about 3 s on a quiet machine, and past 10 s in a suite's round with other browser tests beside it.
 * Patience, not a bound: the test's own limit covers loading, drawing and a screenshot on failure.
 */
const DRAWN = limit(30_000)
const TEST_LIMIT = limit(90_000)

describe.skipIf(noBrowser)('/docs in a browser', () => {
  test("a buyer route's curl sample shows, readable, a publishable key in X-API-Key and a customer token in Authorization", async () => {
    await served.withPage('docs curl sample', async (page) => {
      page.setDefaultTimeout(DRAWN)
      await page.goto(`${served.base}/docs#tag/cart-and-orders/GET/v1/cart`)
      const sample = page.locator(CART).locator('.code-snippet pre').first()
      const text = await eventually(async () => {
        const text = await sample.innerText()
        expect(text).toContain('/v1/cart')
        return text
      }, DRAWN)
      expect(text.split('\n').filter((line) => line.includes('--header')).map((line) => line.trim())).toEqual([
        "--header 'X-API-Key: pk_...' \\",
        "--header 'Authorization: Bearer ctk_...'",
      ])
      // The values are placeholders, so they are drawn, not masked with dots.
      const drawn = await sample.locator('.credential-value').evaluateAll((values) => values.map((v) => (globalThis as unknown as { getComputedStyle(e: unknown): { fontSize: string } }).getComputedStyle(v).fontSize !== '0px'))
      expect(drawn).toEqual([true, true])
    })
  }, TEST_LIMIT)

  test('a collapsed answer keeps its error code as written, in code, underscores and all', async () => {
    await served.withPage('docs answer summary', async (page) => {
      page.setDefaultTimeout(DRAWN)
      await page.goto(`${served.base}/docs#tag/cart-and-orders/GET/v1/cart`)
      const operation = page.locator(CART)
      const summaries = operation.locator('.parameter-item-description-summary')
      const codes = await eventually(async () => {
        const codes = await summaries.evaluateAll((all) => all.map((s) => s.querySelector('p > code:first-child')?.textContent ?? null))
        expect(codes.length).toBeGreaterThan(3)
        return codes
      }, DRAWN)
      // The success answer has no code; every error answer starts with its code.
      expect(codes).toEqual([null, 'VALIDATION_ERROR', 'UNAUTHENTICATED', 'RATE_LIMITED', 'INTERNAL_ERROR', 'INSUFFICIENT_STORAGE'])
    })
  }, TEST_LIMIT)
})
