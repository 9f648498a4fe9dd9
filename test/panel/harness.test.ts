import { describe, expect, test } from 'bun:test'
import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { noBrowser, SCREENSHOTS, usePanel } from './browser'

const panel = usePanel()

describe.skipIf(noBrowser)('the browser-test harness', () => {
  test('the panel loads in Chromium and offers the student and the teacher side', async () => {
    await panel.withPage('panel home', async (page) => {
      const errors: string[] = []
      page.on('pageerror', (e) => errors.push(e.message))
      await page.goto(panel.url())
      await page.getByRole('heading', { name: 'Storefront panel' }).waitFor()
      expect(await page.getByRole('link', { name: /Teacher/ }).getAttribute('href')).toBe('#/teacher')
      expect(await page.getByRole('link', { name: /Student/ }).getAttribute('href')).toBe('#/store')
      expect(errors).toEqual([])
    })
  })

  test('a failing step leaves a full-page screenshot named after the test and rethrows', async () => {
    const file = join(SCREENSHOTS, 'harness-deliberate-failure.png')
    rmSync(file, { force: true })
    const failure = panel.withPage('harness deliberate failure', async (page) => {
      await page.goto(panel.url())
      await page.getByRole('button', { name: 'No such button' }).click({ timeout: 500 })
    })
    // Settled first: bun's `rejects`, waiting on a pending promise, slows the browser's messages (seconds).
    await failure.catch(() => {})
    await expect(failure).rejects.toThrow(/screenshot: .*harness-deliberate-failure\.png/)
    expect(existsSync(file)).toBe(true)
    rmSync(file, { force: true })
  })
})
