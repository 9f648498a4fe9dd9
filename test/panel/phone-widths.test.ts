import { describe, expect, test } from 'bun:test'
import { createKey } from '../helpers/world'
import { groupWithStudent, noBrowser, sidewaysOverflow, signInAsStudent, signInAsTeacher, usePanel } from './browser'

const panel = usePanel()

const LONG_GROUP = 'Grupo Açaí com Guaraná e Pão de Queijo Especial da Turma da Manhã'
const RM = '2026300'
const PASSWORD = 'a-phone-password'

/** A window as narrow as a small phone (the emulated PHONE is 390 px wide). */
const NARROW = { viewport: { width: 375, height: 800 } }

describe.skipIf(noBrowser)('the panel on a phone', () => {
  test('the API keys, media and activity screens fit the screen: a table with a hidden column heading, a file picker and a long group name stay inside it', async () => {
    const { token } = await groupWithStudent(panel, LONG_GROUP, { rm: RM, name: 'João Sebastião Gonçalves de Magalhães' }, PASSWORD)
    await createKey(panel.call, token, 'a key with a rather long name for the phone')
    await panel.withPage('keys and media on a phone', async (page) => {
      await signInAsStudent(page, panel, RM, PASSWORD, '/store/keys')
      await page.getByRole('heading', { name: 'API keys' }).waitFor()
      await page.getByRole('table').first().waitFor()
      expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0)
      await page.goto(`${panel.base}/panel#/store/media`)
      await page.getByRole('heading', { name: 'Media' }).waitFor()
      expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0)
    }, NARROW)
    await panel.withPage('activity on a phone', async (page) => {
      await signInAsTeacher(page, panel, '/teacher/activity')
      await page.getByRole('heading', { name: 'Activity' }).first().waitFor()
      await page.getByRole('combobox').first().waitFor()
      expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0)
    }, NARROW)
  })

  test("a group name of one long word, as long as a name may be, stays inside the teacher's board, activity and group screens", async () => {
    const { groupId } = await groupWithStudent(panel, `Grupo${'x'.repeat(75)}`, { rm: '2026301', name: 'Bia' }, 'a-phone-password-2')
    await panel.withPage('a long word on a phone', async (page) => {
      await signInAsTeacher(page, panel, '/teacher/board')
      for (const [route, heading] of [['/teacher/board', 'Class board'], ['/teacher/activity', 'Activity'], [`/teacher/groups/${groupId}`, 'Members']] as const) {
        await page.goto(`${panel.base}/panel#${route}`)
        await page.getByRole('heading', { name: heading }).first().waitFor()
        await page.waitForLoadState('networkidle')
        expect({ route, overflow: await sidewaysOverflow(page) }).toEqual({ route, overflow: 0 })
      }
    }, NARROW)
  })
})
