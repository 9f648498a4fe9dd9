import { describe, expect, test } from 'bun:test'
import { MAX_MEMBERS_PER_GROUP } from '../../src/features/members/model'
import { createTestApp } from '../helpers/app'
import { activeStudent, admin, bearer, createGroup, expectOk } from '../helpers/world'

const students = (n: number, prefix = 's') => Array.from({ length: n }, (_, i) => ({ rm: `${prefix}${i + 1}`, name: `Student ${prefix}${i + 1}` }))

const PANEL_NEXT = 'A member of the group can remove one who left (DELETE /v1/store/members/:rm); or make a second group for the others.'

async function fullGroup() {
  const t = createTestApp({ settings: { rateLimitRps: '0' } })
  const group = await createGroup(t.call, 'Azul', students(MAX_MEMBERS_PER_GROUP))
  const student = await activeStudent(t.call, 's1')
  const memberCount = () => t.deps.sqlite.query<{ n: number }, [string]>('select count(*) as n from students where group_id = ?').get(group.id)!.n
  return { ...t, group, student, memberCount }
}

describe(`a group has at most ${MAX_MEMBERS_PER_GROUP} members`, () => {
  test('the 51st member added from the panel is 409 LIMIT_REACHED naming the limit and what to do; after a removal there is room again', async () => {
    const t = await fullGroup()
    const res = await t.call('POST', '/v1/store/members', { headers: bearer(t.student), body: { rm: 'late', name: 'Late Comer' } })
    expect([res.status, res.body.error]).toEqual([
      409,
      {
        code: 'LIMIT_REACHED',
        message: `A group has at most 50 members, and this group has 50 already. ${PANEL_NEXT}`,
        details: [{ limit: 50, members: 50, adding: 1 }],
      },
    ])
    expect(t.memberCount()).toBe(50)
    await expectOk(t.call('DELETE', '/v1/store/members/s50', { headers: bearer(t.student) }), 204)
    expect(await expectOk(t.call('POST', '/v1/store/members', { headers: bearer(t.student), body: { rm: 'late', name: 'Late Comer' } }), 201)).toEqual({ rm: 'late', name: 'Late Comer' })
    expect(t.memberCount()).toBe(50)
  })

  test('the teacher adding a 51st member to a group is 409 LIMIT_REACHED too', async () => {
    const t = await fullGroup()
    const res = await t.call('POST', `/v1/admin/groups/${t.group.id}/members`, { headers: admin, body: { rm: 'late', name: 'Late Comer' } })
    expect([res.status, res.body.error.code, res.body.error.message]).toEqual([409, 'LIMIT_REACHED', `A group has at most 50 members, and this group has 50 already. ${PANEL_NEXT}`])
    expect(t.memberCount()).toBe(50)
  })

  test('two additions sent at once to a group of 49: one is added, the other is 409 LIMIT_REACHED', async () => {
    const t = createTestApp({ settings: { rateLimitRps: '0' } })
    const group = await createGroup(t.call, 'Azul', students(49))
    const answers = await Promise.all(
      ['x1', 'x2'].map((rm) => t.call('POST', `/v1/admin/groups/${group.id}/members`, { headers: admin, body: { rm, name: rm } })),
    )
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409])
    expect(t.deps.sqlite.query('select count(*) as n from students').get()).toEqual({ n: 50 })
  })

  test('creating a group with 51 members is 409 LIMIT_REACHED and creates nothing; 50 is fine', async () => {
    const t = createTestApp()
    const res = await t.call('POST', '/v1/admin/groups', { headers: admin, body: { name: 'Azul', members: students(51) } })
    expect([res.status, res.body.error]).toEqual([
      409,
      {
        code: 'LIMIT_REACHED',
        message: 'A group has at most 50 members, and 51 were listed. Create the group with 50 at most, and a second group for the others.',
        details: [{ limit: 50, members: 0, adding: 51 }],
      },
    ])
    expect(t.deps.sqlite.query('select (select count(*) from groups) as g, (select count(*) from students) as s').get()).toEqual({ g: 0, s: 0 })
    expect((await createGroup(t.call, 'Azul', students(50))).members).toHaveLength(50)
  })

  test('a class list that would take a group past 50 (its members counted after the moves) is 409 LIMIT_REACHED naming it, and imports nothing', async () => {
    const t = createTestApp()
    const importList = (lines: string[]) => t.call('POST', '/v1/admin/groups/import', { headers: { ...admin, 'content-type': 'text/csv' }, raw: lines.join('\n') })
    const line = (group: string) => (m: { rm: string; name: string }) => `${group},${m.rm},${m.name}`

    const tooMany = await importList([...students(51).map(line('Azul')), ...students(3, 'v').map(line('Verde'))])
    expect([tooMany.status, tooMany.body.error]).toEqual([
      409,
      {
        code: 'LIMIT_REACHED',
        message: "A group has at most 50 members, and with this list 'Azul' would have 51; nothing was imported. Put the extra students in a second group (another group name on their lines), then import the list again.",
        details: [{ group: 'Azul', members: 51, limit: 50 }],
      },
    ])
    expect(t.deps.sqlite.query('select (select count(*) from groups) as g, (select count(*) from students) as s').get()).toEqual({ g: 0, s: 0 })

    // Verde holds 48; the list moves two of Azul's students into it and takes two of Verde's out: 48 stays 48.
    await createGroup(t.call, 'Verde', students(48, 'v'))
    await createGroup(t.call, 'Azul', students(2, 'a'))
    const balanced = await importList([...students(2, 'a').map(line('Verde')), ...students(2, 'v').map(line('Rosa'))])
    expect([balanced.status, balanced.body.studentsMoved]).toEqual([200, 4])
    // Verde holds 48 again: three more is 51.
    const over = await importList(students(3, 'n').map(line('verde')))
    expect([over.status, over.body.error.code, over.body.error.details]).toEqual([409, 'LIMIT_REACHED', [{ group: 'Verde', members: 51, limit: 50 }]])
    expect(t.deps.sqlite.query("select count(*) as n from students where rm like 'n%'").get()).toEqual({ n: 0 })
  })
})
