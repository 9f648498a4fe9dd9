import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { tempDir } from '../helpers/temp'
import { activeStudent, admin, bearer, expectOk, firstLogin } from '../helpers/world'
import { eventually, noBrowser, PHONE, sidewaysOverflow, signInAsTeacher, usePanel } from './browser'

/** A lab machine in São Paulo; the browser tests that care are elsewhere (Honolulu), so whose day a bar is shows. */
const panel = usePanel([], { TZ: 'America/Sao_Paulo' })

/** The totals row of a group on the Activity screen, as its cells read: [calls, errors, unattributed, shop front, last call, students with no calls]. */
async function totalsOf(page: Page, group: string): Promise<string[]> {
  const row = page.getByRole('table', { name: 'Calls per group' }).getByRole('row', { name: new RegExp(`^${group}\\b`) })
  return (await row.getByRole('cell').allTextContents()).map((c) => c.trim())
}

/** A student's row in the table of their group: [RM, calls, errors, last call], and the name cell. */
async function studentOf(page: Page, group: string, name: string) {
  const row = page.getByRole('table', { name: `Students of ${group}` }).getByRole('row', { name: new RegExp(`^${name}\\b`) })
  return { header: (await row.getByRole('rowheader').textContent())?.trim(), cells: (await row.getByRole('cell').allTextContents()).map((c) => c.trim()) }
}

/**
 * Clicks Download CSV and saves the file where the test says (the browser is reached as a server,
 * browser.ts, whose downloads have no local path): the download and the file's bytes.
 */
async function downloadCsv(page: Page) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()])
  const saved = join(tempDir('download'), 'activity.csv')
  await download.saveAs(saved)
  return { download, bytes: readFileSync(saved) }
}

const chartLabel = (page: Page, what: 'Calls' | 'Errors') => page.getByRole('img', { name: new RegExp(`^${what} per hour`) }).getAttribute('aria-label')

describe.skipIf(noBrowser)('the teacher side of the panel', () => {
  test('the teacher creates a group, sees its activity chart change after API calls, and downloads the CSV', async () => {
    await panel.withPage('teacher creates a group, sees activity and downloads the CSV', async (page) => {
      await signInAsTeacher(page, panel, '/teacher/groups')

      await page.getByLabel('Group name').fill('Alpha')
      await page.getByLabel('Members (optional)').fill('a1001,Ana Souza\na1002,Bruno Lima')
      await page.getByRole('button', { name: 'Create group' }).click()
      await page.getByText('Group Alpha created with 2 members').waitFor()
      await page.getByRole('table').getByRole('link', { name: 'Alpha' }).waitFor()
      // The same name again is the server's 409; a list with a bad line then shows that line's problem
      // alone, not the 409 of the try before.
      await page.getByLabel('Group name').fill('Alpha')
      await page.getByRole('button', { name: 'Create group' }).click()
      await page.getByRole('alert').filter({ hasText: "A group named 'Alpha' already exists" }).waitFor()
      await page.getByLabel('Group name').fill('Alpha 2')
      // A spreadsheet's semicolon is taken; an RM twice (in any case) is named with both its lines.
      await page.getByLabel('Members (optional)').fill('a1003;Caio\nA1003,Caio Lima\na1004')
      await page.getByRole('button', { name: 'Create group' }).click()
      await page.getByRole('alert').filter({ hasText: 'Fix the members list first.' }).waitFor()
      expect(await page.getByRole('alert').allTextContents()).toEqual([
        'Fix the members list first.line 2: RM A1003 is already on line 1; a student is listed onceline 3: write the RM, a comma and the name, such as 12345,Ana Souza',
      ])
      // What only the server refuses (an escape sequence in a name) is said by its line too, not by its API path.
      await page.getByLabel('Members (optional)').fill('a1003,Caio\n\na1004,Dora\u001b[31m')
      await page.getByRole('button', { name: 'Create group' }).click()
      await page.getByRole('alert').filter({ hasText: 'line 3: name' }).waitFor()
      const [refused] = await page.getByRole('alert').allTextContents()
      expect(refused).toStartWith('Fix the members list first.line 3: name holds a control character')
      expect(refused).not.toContain('members.1')
      await page.getByLabel('Members (optional)').fill('')

      await page.getByRole('link', { name: 'Activity' }).click()
      await page.getByRole('img', { name: /^Calls per hour/ }).waitFor()
      expect(await chartLabel(page, 'Calls')).toContain('Alpha 0. Total 0.')
      expect(await totalsOf(page, 'Alpha')).toEqual(['0', '0', '0', '0', '—', '2'])

      // The student works on their store: the password change and four calls, one of them a 404.
      const token = await activeStudent(panel.call, 'a1001')
      for (let i = 0; i < 3; i++) expect((await panel.call('GET', '/v1/store/settings', { headers: bearer(token) })).status).toBe(200)
      expect((await panel.call('GET', '/v1/store/orders/no-such-order', { headers: bearer(token) })).status).toBe(404)

      await page.getByRole('button', { name: 'Refresh' }).click()
      await eventually(async () => expect(await chartLabel(page, 'Calls')).toContain('Alpha 5. Total 5.'))
      expect(await chartLabel(page, 'Errors')).toContain('Alpha 1. Total 1.')
      const totals = await totalsOf(page, 'Alpha')
      expect(totals.slice(0, 4)).toEqual(['5', '1', '0', '0'])
      expect(totals[4]).not.toBe('—')
      expect(totals[5]).toBe('1')

      // Ana worked; Bruno made no call and is marked with words, not colour alone.
      const ana = await studentOf(page, 'Alpha', 'Ana Souza')
      expect(ana.header).toBe('Ana Souza')
      expect(ana.cells.slice(0, 3)).toEqual(['a1001', '5', '1'])
      const bruno = await studentOf(page, 'Alpha', 'Bruno Lima')
      expect(bruno.header).toBe('Bruno Lima no calls')
      expect(bruno.cells.slice(0, 3)).toEqual(['a1002', '0', '0'])

      // One group picked: a line per student.
      await page.getByRole('combobox', { name: 'Group' }).selectOption({ label: 'Alpha' })
      await eventually(async () => expect(await chartLabel(page, 'Calls')).toContain('the students of Alpha: Ana Souza 5, Bruno Lima 0. Total 5.'))

      const { download, bytes } = await downloadCsv(page)
      expect(download.suggestedFilename()).toBe('activity.csv')
      // The mark that makes Excel read UTF-8 first; commas in a browser whose language writes 1.5.
      expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
      const csv = bytes.subarray(3).toString('utf8').split(/\r?\n/)
      expect(csv[0]).toBe('group_id,group,rm,name,calls,errors,last_call_at')
      expect(csv.find((l) => l.includes(',a1001,'))).toMatch(/,Alpha,a1001,Ana Souza,5,1,\d{4}-/)
      expect(csv.find((l) => l.includes(',a1002,'))).toMatch(/,Alpha,a1002,Bruno Lima,0,0,$/)
      expect(csv.find((l) => l.includes('(group total)'))).toMatch(/,Alpha,,\(group total\),5,1,\d{4}-/)
    })
  })

  test('a class list with one bad row shows the problem by line and imports nothing; fixed, it imports', async () => {
    await panel.withPage('teacher imports a class list with a bad row', async (page) => {
      await signInAsTeacher(page, panel, '/teacher/import')
      const list = page.getByLabel('Class list (CSV)')
      await list.fill('group,rm,name\nBeta,b2001,Carla Dias\nBeta,not an rm!,Davi Reis\nBeta,b2003,Eva Nunes\n')
      await page.getByRole('button', { name: 'Import' }).click()
      await page.getByRole('heading', { name: 'Problems, by line' }).waitFor()
      const problems = await page.getByRole('list').filter({ hasText: 'line 3' }).getByRole('listitem').allTextContents()
      expect(problems).toHaveLength(1)
      expect(problems[0]).toMatch(/^line 3: .*rm/)
      // Said in the screen's words: the API's "what details lists" means nothing here.
      const [said] = await page.getByRole('alert').allTextContents()
      expect(said).toStartWith('A problem in the class list: nothing was imported. Fix what is listed below and import the whole list again.')
      expect(said).not.toContain('details')
      const groups = await panel.call('GET', '/v1/admin/groups', { headers: admin })
      expect(groups.body.data.map((g: { name: string }) => g.name)).not.toContain('Beta')

      await list.fill('group,rm,name\nBeta,b2001,Carla Dias\nBeta,b2002,Davi Reis\nBeta,b2003,Eva Nunes\n')
      await page.getByRole('button', { name: 'Import' }).click()
      await page.getByText('The class list was imported').waitFor()
      await page.getByRole('link', { name: 'Groups' }).first().click()
      const beta = page.getByRole('table').getByRole('row', { name: /^Beta\b/ })
      expect((await beta.getByRole('cell').first().textContent())?.trim()).toBe('3')
    })
  })

  test('an RM another group squatted is moved by the import, and the screen lists the move and the group left empty', async () => {
    await panel.withPage('teacher imports a list that moves a squatted RM', async (page) => {
      await panel.call('POST', '/v1/admin/groups', { headers: admin, body: { name: 'Squat', members: [{ rm: 'q3001', name: 'Quem' }] } })
      const squatted = await firstLogin(panel.call, 'q3001')
      await signInAsTeacher(page, panel, '/teacher/import')
      await page.getByLabel('Class list (CSV)').fill('group,rm,name\nGamma,g3001,Gil Souza\nGamma,q3001,Quitéria Lima\n')
      await page.getByRole('button', { name: 'Import' }).click()
      await page.getByRole('heading', { name: 'Moved from another group' }).waitFor()
      const moves = await page.getByRole('list').filter({ hasText: 'q3001' }).getByRole('listitem').allTextContents()
      expect(moves).toEqual(['line 3: RM q3001 from Squat to Gamma, renamed from Quem'])
      // The summary does not contradict it: the renamed it counts are those who stayed in their group.
      const said = await page.getByText('The class list was imported').textContent()
      expect([said!.includes('students moved 1'), said!.includes('students renamed in their own group 0')]).toEqual([true, true])
      await page.getByText('Left with no members (kept, with their store): Squat.').waitFor()
      expect((await panel.call('GET', '/v1/store/auth/me', { headers: bearer(squatted) })).status).toBe(401)
    })
  })

  test("the group's page renames the group and removes a member, who is logged out; the board says when a group has no members", async () => {
    await panel.withPage('teacher renames a group and removes its members', async (page) => {
      const group = (await expectOk(panel.call('POST', '/v1/admin/groups', { headers: admin, body: { name: 'Delta', members: [{ rm: 'd4001', name: 'Dora Reis' }, { rm: 'd4002', name: 'Davi Luz' }] } }), 201)) as { id: string }
      const davi = await activeStudent(panel.call, 'd4002')
      await signInAsTeacher(page, panel, `/teacher/groups/${group.id}`)
      await page.getByText('Rename the group').click()
      await page.getByLabel('New name').fill('Delta Força')
      await page.getByRole('button', { name: 'Rename', exact: true }).click()
      await page.getByText('The group is named Delta Força now.').waitFor()
      await page.getByRole('heading', { name: 'Delta Força', level: 1 }).waitFor()

      const row = page.getByRole('row', { name: /Davi Luz/ })
      await row.getByRole('button', { name: 'Remove' }).click()
      await row.getByRole('button', { name: 'Yes, remove' }).click()
      await page.getByText('Davi Luz (d4002) left Delta Força').waitFor()
      await page.getByRole('row', { name: /Davi Luz/ }).waitFor({ state: 'detached' })
      expect((await panel.call('GET', '/v1/store/auth/me', { headers: bearer(davi) })).status).toBe(401)
      const dora = page.getByRole('row', { name: /Dora Reis/ })
      await dora.getByRole('button', { name: 'Remove' }).click()
      await dora.getByRole('button', { name: 'Yes, remove' }).click()
      await page.getByText('No members yet.').waitFor()

      await page.getByRole('link', { name: 'Board' }).first().click()
      await page.getByRole('listitem', { name: 'Delta Força' }).getByText('the group has no members').waitFor()
    })
  })

  test("the week's chart has a bar per day of the server's time zone, each labelled with its date there, wherever the browser is", async () => {
    await panel.call('POST', '/v1/admin/groups', { headers: admin, body: { name: 'Semana' } })
    const from = new Date(Date.now() - 6 * 24 * 3_600_000).toISOString()
    const series = await expectOk(panel.call('GET', `/v1/admin/activity/series?bucket=day&from=${from}`, { headers: admin }))
    expect([series.timeZone, series.times.length]).toEqual(['America/Sao_Paulo', 7])
    const dates = series.times.map((t: string) => new Date(t).toLocaleDateString('pt-BR', { day: 'numeric', month: 'short', timeZone: 'America/Sao_Paulo' }))
    await panel.withPage(
      'activity week in another time zone',
      async (page) => {
        await signInAsTeacher(page, panel, '/teacher/activity?window=week')
        const chart = page.getByRole('img', { name: /^Calls per day/ })
        await chart.waitFor()
        // The dates along the bottom of the chart (the axis' numbers are at the left).
        expect(await chart.locator('text[y="250"]').allTextContents()).toEqual(dates)
      },
      { locale: 'en-US', timezoneId: 'Pacific/Honolulu' },
    )
  })

  test("the week's totals and its CSV count from the chart's first day, not from a moment of it", async () => {
    await panel.withPage('activity week totals from the first bar', async (page) => {
      const asked: URL[] = []
      page.on('request', (request) => {
        const url = new URL(request.url())
        if (url.pathname.startsWith('/v1/admin/activity')) asked.push(url)
      })
      const seriesAnswer = page.waitForResponse((r) => new URL(r.url()).pathname === '/v1/admin/activity/series')
      await signInAsTeacher(page, panel, '/teacher/activity?window=week')
      const series = await (await seriesAnswer).json()
      await page.getByRole('table', { name: 'Calls per group' }).waitFor()
      const totals = asked.filter((u) => u.pathname === '/v1/admin/activity')
      expect(totals.map((u) => u.searchParams.get('from'))).toEqual([series.from])
      // The first day starts at the server's midnight (São Paulo), before the moment a week ago.
      expect(Date.parse(series.from)).toBeLessThanOrEqual(Date.now() - 6 * 24 * 3_600_000)
      await downloadCsv(page)
      const csv = asked.filter((u) => u.searchParams.get('format') === 'csv')
      expect(csv.map((u) => u.searchParams.get('from'))).toEqual([series.from])
    })
  })

  test('in a browser in Portuguese the CSV is split by semicolons, as Excel there expects, and says so', async () => {
    await panel.call('POST', '/v1/admin/groups', { headers: admin, body: { name: 'Ação', members: [{ rm: 'p1', name: 'João' }] } })
    await panel.withPage(
      'activity CSV in Portuguese',
      async (page) => {
        await signInAsTeacher(page, panel, '/teacher/activity')
        await page.getByRole('img', { name: /^Calls per hour/ }).waitFor()
        const { bytes } = await downloadCsv(page)
        expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
        const lines = bytes.subarray(3).toString('utf8').split('\r\n')
        expect(lines[0]).toBe('group_id;group;rm;name;calls;errors;last_call_at')
        expect(lines.find((l) => l.includes(';p1;'))).toMatch(/^grp_[0-9a-z]+;Ação;p1;João;0;0;$/)
        await page.getByText('activity.csv downloaded, its cells split by semicolons').waitFor()
      },
      { locale: 'pt-BR' },
    )
  })

  test('a wrong admin token is refused with the server message, and the screen fits a phone', async () => {
    await panel.withPage('teacher signs in on a phone', async (page) => {
      await page.goto(panel.url('/teacher'))
      await page.getByLabel('Admin token').fill('not-the-token-at-all')
      await page.getByRole('button', { name: 'Sign in' }).click()
      expect(await page.getByRole('alert').textContent()).toContain('401')
      await signInAsTeacher(page, panel, '/teacher/activity')
      await page.getByRole('img', { name: /^Calls per hour/ }).waitFor()
      expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0)
    }, PHONE)
  })
})
