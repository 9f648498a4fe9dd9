import { beforeAll, describe, expect, test } from 'bun:test'
import { activeStudent, apiKey, createKey, expectOk } from '../helpers/world'
import { eventually, noBrowser, signInAsTeacher, usePanel } from './browser'

const panel = usePanel()
const admin = () => ({ 'x-admin-token': panel.adminToken })
let key: string
let pk: string

beforeAll(async () => {
  if (noBrowser) return
  await expectOk(panel.call('POST', '/v1/admin/groups', { headers: admin(), body: { name: 'Turma Norte', members: [{ rm: '7001', name: 'Nina' }, { rm: '7002', name: 'Otto' }] } }), 201)
  await expectOk(panel.call('POST', '/v1/admin/groups', { headers: admin(), body: { name: 'Turma Sul', members: [{ rm: '7101', name: 'Sara' }] } }), 201)
  const token = await activeStudent(panel.call, '7001')
  key = (await createKey(panel.call, token)).apiKey
  pk = (await createKey(panel.call, token, 'shop front', 'publishable')).apiKey
  for (let i = 0; i < 3; i++) await expectOk(panel.call('GET', '/v1/products', { headers: apiKey(key) }))
})

const tile = (page: import('playwright-core').Page, name: string) => page.getByRole('listitem', { name, exact: true })

describe.skipIf(noBrowser)('the class board', () => {
  test("a tile per group with today's numbers, updated live after a new call, a group with errors flagged in words", async () => {
    const board = await expectOk(panel.call('GET', '/v1/admin/board', { headers: admin() }))
    const north = board.groups.find((g: any) => g.name === 'Turma Norte')
    expect(north.callsToday).toBeGreaterThanOrEqual(3)
    await panel.withPage('class board', async (page) => {
      await signInAsTeacher(page, panel, '/teacher/board')
      await page.getByRole('heading', { name: 'Class board' }).waitFor()
      const n = tile(page, 'Turma Norte')
      await eventually(async () => expect(await n.getByTestId('calls').textContent()).toBe(`${north.callsToday} calls today`))
      // Whose day "today" is: the server's time zone, as the board answers it.
      expect(await page.getByText(/^Today \(/).textContent()).toStartWith(`Today (${board.today.timeZone}), updated every 5 s`)
      expect(await n.getByTestId('silent').textContent()).toBe('Otto')
      expect(await tile(page, 'Turma Sul').getByTestId('silent').textContent()).toBe('Sara')
      expect(await tile(page, 'Turma Sul').getByTestId('calls').textContent()).toBe('0 calls today')
      // One call is one call: Sara's password change.
      await activeStudent(panel.call, '7101')
      await eventually(async () => expect(await tile(page, 'Turma Sul').getByTestId('calls').textContent()).toBe('1 call today'), 15_000)
      expect((await expectOk(panel.call('GET', '/v1/admin/board', { headers: admin() }))).groups.find((g: any) => g.name === 'Turma Sul').callsToday).toBe(1)
      // Otto has not called: listed on the tile, but no flag (at the start of a class that is most groups).
      expect(await n.getByText('needs a look').count()).toBe(0)
      expect(await n.getByTestId('why').count()).toBe(0)

      // The app gets a 404: without a reload, the tile counts it and says so.
      expect((await panel.call('GET', '/v1/products/prod_missing', { headers: apiKey(key) })).status).toBe(404)
      await eventually(async () => expect(await n.getByTestId('calls').textContent()).toBe(`${north.callsToday + 1} calls today`), 15_000)
      expect(await n.getByTestId('errors').textContent()).toBe(`1 (${Math.round(100 / (north.callsToday + 1))} %)`)
      await n.getByText('needs a look').waitFor()
      expect(await n.getByTestId('why').textContent()).toBe(`error rate ${Math.round(100 / (north.callsToday + 1))} %`)
      // Times are in the students' locale (pt-BR, every store's default), not the browser's.
      const last = (await expectOk(panel.call('GET', '/v1/admin/board', { headers: admin() }))).groups.find((g: any) => g.name === 'Turma Norte').lastCallAt
      await eventually(async () => expect(await n.locator('dt:text-is("Last call") + dd').textContent()).toBe(new Date(last).toLocaleTimeString('pt-BR')))

      // The shop front's calls (its publishable key) get a line of their own; the group's figures stay as they were.
      expect(await n.getByTestId('shop-front').count()).toBe(0)
      expect((await panel.call('GET', '/v1/products', { headers: apiKey(pk) })).status).toBe(200)
      expect((await panel.call('GET', '/v1/products/prod_missing', { headers: apiKey(pk) })).status).toBe(404)
      await eventually(async () => expect(await n.getByTestId('shop-front').textContent()).toBe('2 calls, 1 error (50 %)'), 15_000)
      expect(await n.getByTestId('calls').textContent()).toBe(`${north.callsToday + 1} calls today`)
    })
  })

  test('the activity chart draws bars whose values are the series', async () => {
    const series = await expectOk(panel.call('GET', '/v1/admin/activity/series', { headers: admin() }))
    const nonZero = series.groups.flatMap((g: any) => g.calls.filter((v: number) => v > 0)).sort()
    expect(nonZero.length).toBeGreaterThan(0)
    await panel.withPage('activity bars', async (page) => {
      await signInAsTeacher(page, panel, '/teacher/activity')
      const chart = page.getByRole('img', { name: /^Calls per hour/ })
      await chart.waitFor()
      const values = await chart.locator('rect.t-bar').evaluateAll((bars) => bars.map((b) => Number(b.getAttribute('data-value'))))
      expect(values.sort()).toEqual(nonZero)
    })
  })
})
