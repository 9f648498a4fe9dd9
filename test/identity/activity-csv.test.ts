import { describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { students } from '../../src/kernel/auth/tables'
import { csvCell, csvText } from '../../src/kernel/csv'
import { createTestApp } from '../helpers/app'
import { expectDefusedActivityCsv, FORMULA_GROUP, FORMULA_MEMBERS, RAW_NAMES } from '../helpers/formulas'
import { admin, createGroup } from '../helpers/world'

describe('the activity CSV and spreadsheet formulas', () => {
  test('GET /v1/admin/activity?format=csv writes names that start a formula behind an apostrophe, and still parses with 7 columns', async () => {
    const t = createTestApp()
    const group = await createGroup(t.call, FORMULA_GROUP, [...FORMULA_MEMBERS, ...RAW_NAMES.map((m) => ({ rm: m.rm, name: 'placeholder' }))])
    for (const m of RAW_NAMES) t.deps.db.update(students).set({ name: m.name }).where(eq(students.rm, m.rm)).run()
    const res = await t.call('GET', `/v1/admin/activity?format=csv&groupId=${group.id}`, { headers: admin })
    expect(res.status).toBe(200)
    expectDefusedActivityCsv(res.text)
    expect(res.text).toContain(`,"'=HYPERLINK(""http://x"",""y"")",`)
  })

  test("the file starts with UTF-8's byte order mark, so Excel reads João as João; separator=semicolon splits cells as Excel in Portuguese does", async () => {
    const t = createTestApp()
    const group = await createGroup(t.call, 'Turma Ação', [{ rm: 'RA1', name: 'João Conceição' }, { rm: 'RA2', name: 'Inês; Ana' }])
    const raw = async (query: string) => new Uint8Array(await (await t.app.handle(new Request(`http://localhost/v1/admin/activity?format=csv&groupId=${group.id}${query}`, { headers: admin }))).arrayBuffer())
    const comma = await raw('')
    expect([...comma.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
    const lines = new TextDecoder().decode(comma).split('\r\n') // the decoder drops the mark, as a spreadsheet does
    expect(lines.slice(0, 3)).toEqual(['group_id,group,rm,name,calls,errors,last_call_at', `${group.id},Turma Ação,RA1,João Conceição,0,0,`, `${group.id},Turma Ação,RA2,"Inês; Ana",0,0,`])
    const semicolon = new TextDecoder().decode(await raw('&separator=semicolon')).split('\r\n')
    expect(semicolon.slice(0, 3)).toEqual(['group_id;group;rm;name;calls;errors;last_call_at', `${group.id};Turma Ação;RA1;João Conceição;0;0;`, `${group.id};Turma Ação;RA2;"Inês; Ana";0;0;`])
    const wrong = await t.call('GET', '/v1/admin/activity?format=csv&separator=tab', { headers: admin })
    expect([wrong.status, wrong.body.error.details]).toEqual([400, [{ path: 'separator', message: 'separator must be comma or semicolon' }]])
  })

  test('a cell is defused for =, +, -, @, tab and CR starts only, then quoted when it holds a comma, a semicolon, a tab, a quote or a line break', () => {
    expect(['=1', '+1', '-1', '@A1', '\t=1', '\r=1'].map(csvCell)).toEqual(["'=1", "'+1", "'-1", "'@A1", `"'\t=1"`, `"'\r=1"`])
    expect(['a=1', ' =1', 'a,b', 'a;b', 'say "hi"', 'two\nlines', ''].map(csvCell)).toEqual(['a=1', ' =1', '"a,b"', '"a;b"', '"say ""hi"""', '"two\nlines"', ''])
    expect([csvCell(-5), csvCell(7), csvCell(null)]).toEqual(["'-5", '7', ''])
    expect(csvText([['a', '=b'], [1, null]])).toBe("a,'=b\r\n1,\r\n")
  })
})
