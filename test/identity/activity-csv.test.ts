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

  test('a cell is defused for =, +, -, @, tab and CR starts only, then quoted when it holds a comma, a semicolon, a tab, a quote or a line break', () => {
    expect(['=1', '+1', '-1', '@A1', '\t=1', '\r=1'].map(csvCell)).toEqual(["'=1", "'+1", "'-1", "'@A1", `"'\t=1"`, `"'\r=1"`])
    expect(['a=1', ' =1', 'a,b', 'a;b', 'say "hi"', 'two\nlines', ''].map(csvCell)).toEqual(['a=1', ' =1', '"a,b"', '"a;b"', '"say ""hi"""', '"two\nlines"', ''])
    expect([csvCell(-5), csvCell(7), csvCell(null)]).toEqual(["'-5", '7', ''])
    expect(csvText([['a', '=b'], [1, null]])).toBe("a,'=b\r\n1,\r\n")
  })
})
