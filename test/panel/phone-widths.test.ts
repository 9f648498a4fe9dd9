import { describe, expect, test } from 'bun:test'
import type { Page } from 'playwright-core'
import { createKey } from '../helpers/world'
import { groupWithStudent, noBrowser, signInAsStudent, signInAsTeacher, usePanel } from './browser'

const panel = usePanel()

const LONG_GROUP = 'Grupo Açaí com Guaraná e Pão de Queijo Especial da Turma da Manhã'
const RM = '2026300'
const PASSWORD = 'a-phone-password'

/**
 * A window as narrow as a small phone, without the phone's emulation: an emulated phone widens its
 * page to whatever overflows (innerWidth grows with it), which hid the overflow this measures.
 */
const NARROW = { viewport: { width: 375, height: 800 } }

/** How far the page reaches past the window: nothing may push it sideways (a table scrolls in its own box). */
const overflow = async (page: Page) => {
  const [scroll, client] = (await page.evaluate('[document.documentElement.scrollWidth, document.documentElement.clientWidth]')) as [number, number]
  return scroll - client
}

describe.skipIf(noBrowser)('the panel on a phone', () => {
  test('the API keys, media and activity screens fit the screen: a table with a hidden column heading, a file picker and a long group name stay inside it', async () => {
    const { token } = await groupWithStudent(panel, LONG_GROUP, { rm: RM, name: 'João Sebastião Gonçalves de Magalhães' }, PASSWORD)
    await createKey(panel.call, token, 'a key with a rather long name for the phone')
    await panel.withPage('keys and media on a phone', async (page) => {
      await signInAsStudent(page, panel, RM, PASSWORD, '/store/keys')
      await page.getByRole('heading', { name: 'API keys' }).waitFor()
      await page.getByRole('table').first().waitFor()
      expect(await overflow(page)).toBeLessThanOrEqual(0)
      await page.goto(`${panel.base}/panel#/store/media`)
      await page.getByRole('heading', { name: 'Media' }).waitFor()
      expect(await overflow(page)).toBeLessThanOrEqual(0)
    }, NARROW)
    await panel.withPage('activity on a phone', async (page) => {
      await signInAsTeacher(page, panel, '/teacher/activity')
      await page.getByRole('heading', { name: 'Activity' }).first().waitFor()
      await page.getByRole('combobox').first().waitFor()
      expect(await overflow(page)).toBeLessThanOrEqual(0)
    }, NARROW)
  })
})
