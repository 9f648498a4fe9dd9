import { describe, expect, test } from 'bun:test'
import { createTestApp } from '../helpers/app'
import { activityProbes } from '../helpers/probes'
import { admin, apiKey, bearer, expectOk, twoStores } from '../helpers/world'

const setup = async () => {
  const t = createTestApp({ extraRoutes: activityProbes, settings: { rateLimitRps: '0' } })
  // The setup's own calls happen at 2026-01-01T00:00Z, the ManualClock's start.
  const world = await twoStores(t.call, t.deps)
  return { ...t, world }
}

const series = (t: Awaited<ReturnType<typeof setup>>, query = '') => t.call('GET', `/v1/admin/activity/series${query}`, { headers: admin })

/** An array of `n` zeros with the given positions set. */
const line = (n: number, set: Record<number, number> = {}) => Array.from({ length: n }, (_, i) => set[i] ?? 0)

describe('GET /v1/admin/activity/series', () => {
  test('by default: the last 24 hours per hour, zero buckets and idle members included, the calls of the last second too', async () => {
    const t = await setup()
    const { A } = t.world
    t.clock.set(Date.parse('2026-01-02T08:15:00Z'))
    for (let i = 0; i < 2; i++) await t.call('GET', '/v1/probe', { headers: { ...apiKey(A.key.apiKey), 'x-student-rm': A.rms.spare } })
    await t.call('GET', '/v1/probe/conflict', { headers: { ...apiKey(A.key.apiKey), 'x-student-rm': A.rms.spare } })
    t.deps.activity.flush()
    t.clock.set(Date.parse('2026-01-02T10:30:00Z'))
    // Not flushed yet: the series flushes first.
    for (let i = 0; i < 4; i++) await t.call('GET', '/v1/probe', { headers: apiKey(A.key.apiKey) })

    const body = await expectOk(series(t, `?groupId=${A.group.id}`))
    // 2026-01-01T10:30 is rounded down to 10:00; the hour of now (10:00 on the 2nd) is the last bucket.
    expect(body.from).toBe('2026-01-01T10:00:00.000Z')
    expect(body.to).toBe('2026-01-02T11:00:00.000Z')
    expect(body.bucket).toBe('hour')
    expect(body.times).toHaveLength(25)
    expect(body.times.slice(0, 2)).toEqual(['2026-01-01T10:00:00.000Z', '2026-01-01T11:00:00.000Z'])
    expect(body.times.at(-1)).toBe('2026-01-02T10:00:00.000Z')
    // 08:00 on the 2nd is bucket 22, 10:00 bucket 24.
    expect(body.groups).toEqual([
      {
        groupId: A.group.id,
        name: 'Group A',
        calls: line(25, { 22: 3, 24: 4 }),
        errors: line(25, { 22: 1 }),
        unattributed: line(25, { 24: 4 }),
        shopFront: { calls: line(25), errors: line(25) },
        students: [
          { rm: A.rms.active, name: 'Active a', member: true, calls: line(25), errors: line(25) },
          { rm: A.rms.fresh, name: 'Fresh a', member: true, calls: line(25), errors: line(25) },
          { rm: A.rms.spare, name: 'Spare a', member: true, calls: line(25, { 22: 3 }), errors: line(25, { 22: 1 }) },
        ],
      },
    ])
  })

  test('bucket=day over whole days (UTC on a machine in UTC) lists every group; a former member keeps their counts under their name and "(no longer a member)"', async () => {
    const t = await setup()
    const { A, B } = t.world
    t.clock.set(Date.parse('2026-01-01T20:00:00Z'))
    for (let i = 0; i < 5; i++) await t.call('GET', '/v1/probe', { headers: { ...apiKey(A.key.apiKey), 'x-student-rm': A.rms.spare } })
    await expectOk(t.call('DELETE', `/v1/store/members/${A.rms.spare}`, { headers: bearer(A.student) }), 204)
    t.clock.set(Date.parse('2026-01-02T23:59:00Z'))
    for (let i = 0; i < 3; i++) await t.call('GET', '/v1/probe', { headers: apiKey(A.key.apiKey) })
    const body = await expectOk(series(t, '?from=2026-01-01&to=2026-01-03&bucket=day'))
    expect(body.times).toEqual(['2026-01-01T00:00:00.000Z', '2026-01-02T00:00:00.000Z', '2026-01-03T00:00:00.000Z'])
    expect(body.to).toBe('2026-01-04T00:00:00.000Z')
    expect(body.groups.map((g: any) => g.name)).toEqual(['Group A', 'Group B'])
    const [a, b] = body.groups
    // Day 1 holds the setup's calls and the spare member's: the same numbers the report gives for that day.
    const report = await expectOk(t.call('GET', `/v1/admin/activity?from=2026-01-01&to=2026-01-01`, { headers: admin }))
    for (const [mine, theirs] of [[a, report.groups[0]], [b, report.groups[1]]]) {
      expect([mine.calls[0], mine.errors[0], mine.unattributed[0]]).toEqual([theirs.calls, theirs.errors, theirs.unattributed])
      expect(mine.students.map((s: any) => [s.rm, s.name, s.calls[0], s.errors[0]])).toEqual(theirs.students.map((s: any) => [s.rm, s.name, s.calls, s.errors]))
    }
    expect(a.calls[0]).toBeGreaterThan(5)
    expect([a.calls.slice(1), a.unattributed.slice(1)]).toEqual([[3, 0], [3, 0]])
    expect(b.calls.slice(1)).toEqual([0, 0])
    // Named as when they left, and marked; the report's board never counts them as silent.
    expect(a.students.map((s: any) => [s.rm, s.name, s.member])).toEqual([
      [A.rms.active, 'Active a', true],
      [A.rms.fresh, 'Fresh a', true],
      [A.rms.spare, 'Spare a (no longer a member)', false],
    ])
    expect(a.students[2].calls).toEqual([5, 0, 0])
    expect(B.group.id).toBe(b.groupId)
  })

  test("bucket=day follows the machine's time zone: in São Paulo a day runs 03:00 to 03:00 UTC, and a date or a time without an offset is read there", async () => {
    const t = await setup()
    t.clock.timeZone = 'America/Sao_Paulo'
    const { A } = t.world
    const call = async (at: string, n: number) => {
      t.clock.set(Date.parse(at))
      for (let i = 0; i < n; i++) await t.call('GET', '/v1/probe', { headers: { ...apiKey(A.key.apiKey), 'x-student-rm': A.rms.spare } })
    }
    await call('2026-01-02T01:00:00Z', 2) // 22:00 on 1 January there
    await call('2026-01-02T04:00:00Z', 3) // 01:00 on 2 January
    const body = await expectOk(series(t, `?from=2026-01-01&to=2026-01-02&bucket=day&groupId=${A.group.id}`))
    expect([body.timeZone, body.times, body.to]).toEqual(['America/Sao_Paulo', ['2026-01-01T03:00:00.000Z', '2026-01-02T03:00:00.000Z'], '2026-01-03T03:00:00.000Z'])
    // The setup's calls (21:00 on 31 December there) are before the window.
    expect(body.groups[0].calls).toEqual([2, 3])
    const report = await expectOk(t.call('GET', `/v1/admin/activity?from=2026-01-01&to=2026-01-01&groupId=${A.group.id}`, { headers: admin }))
    expect([report.from, report.to, report.groups[0].calls]).toEqual(['2026-01-01T03:00:00.000Z', '2026-01-02T03:00:00.000Z', 2])
    // 19:00 without an offset is 19:00 in São Paulo, 22:00 UTC; with Z it is 19:00 UTC.
    const evening = await expectOk(t.call('GET', `/v1/admin/activity?from=2026-01-01T19:00:00&groupId=${A.group.id}`, { headers: admin }))
    expect([evening.from, evening.groups[0].calls]).toEqual(['2026-01-01T22:00:00.000Z', 5])
    expect((await expectOk(t.call('GET', '/v1/admin/activity?from=2026-01-01T19:00:00Z', { headers: admin }))).from).toBe('2026-01-01T19:00:00.000Z')
    // An offset of its own, with or without seconds, is taken as written.
    for (const from of ['2026-01-01T19:00-02:00', '2026-01-01T19:00:00-02:00']) {
      expect((await expectOk(t.call('GET', `/v1/admin/activity?from=${encodeURIComponent(from)}`, { headers: admin }))).from).toBe('2026-01-01T21:00:00.000Z')
    }
  })

  test('across a daylight-saving change a day bucket has 23 or 25 hours (Berlin)', async () => {
    const t = await setup()
    t.clock.timeZone = 'Europe/Berlin'
    const body = await expectOk(series(t, '?from=2026-03-28&to=2026-03-30&bucket=day'))
    expect(body.times).toEqual(['2026-03-27T23:00:00.000Z', '2026-03-28T23:00:00.000Z', '2026-03-29T22:00:00.000Z'])
    expect(body.to).toBe('2026-03-30T22:00:00.000Z')
  })

  test('more than 744 buckets is 400 VALIDATION_ERROR saying to use bucket=day or a shorter window', async () => {
    const t = await setup()
    const hours = await series(t, '?from=2026-01-01&to=2026-02-28')
    expect(hours.status).toBe(400)
    expect(hours.body.error.code).toBe('VALIDATION_ERROR')
    expect(hours.body.error.message).toContain('1416 hours')
    expect(hours.body.error.message).toContain('Use bucket=day or a shorter window')
    // 31 days of hours is the most.
    expect((await expectOk(series(t, '?from=2026-01-01&to=2026-01-31'))).times).toHaveLength(744)
    expect((await series(t, '?from=2026-01-01&to=2026-02-01T00:00:00.001Z')).status).toBe(400)
    expect((await expectOk(series(t, '?from=2026-01-01&to=2026-02-28&bucket=day'))).times).toHaveLength(59)
    const days = await series(t, '?from=2020-01-01&to=2026-01-01&bucket=day')
    expect([days.status, days.body.error.message]).toEqual([400, 'The window holds 2193 days, more than the 744 buckets a series can have. Use a shorter window (from/to).'])
  })

  test('an unknown groupId is 404, from after to and a bad bucket or date are 400', async () => {
    const t = await setup()
    const unknown = await series(t, '?groupId=grp_nope')
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'NOT_FOUND'])
    expect(unknown.body.error.message).toContain('GET /v1/admin/groups')
    const backwards = await series(t, '?from=2026-01-02&to=2026-01-01T12:00:00Z')
    expect([backwards.status, backwards.body.error.message]).toEqual([400, '`from` must be before `to`.'])
    const bucket = await series(t, '?bucket=week')
    expect([bucket.status, bucket.body.error.details]).toEqual([400, [{ path: 'bucket', message: 'bucket must be hour or day' }]])
    expect((await series(t, '?from=yesterday')).status).toBe(400)
    expect((await t.call('GET', '/v1/admin/activity/series', { headers: bearer(t.world.A.student) })).status).toBe(401)
  })

  test('what a teacher gets wrong is said as such: a store id for a group id, a from after now with no to, an offset whose + the query string made a space', async () => {
    const t = await setup()
    const { storeId } = t.world.A.group
    for (const path of ['/v1/admin/activity', '/v1/admin/activity/series']) {
      const store = await t.call('GET', `${path}?groupId=${storeId}`, { headers: admin })
      expect([store.status, store.body.error.details]).toEqual([400, [{ path: 'groupId', message: `'${storeId}' is a store id, not a group id` }]])
    }
    const byPath = await t.call('GET', `/v1/admin/groups/${storeId}`, { headers: admin })
    expect([byPath.status, byPath.body.error.message]).toEqual([404, `No group with id '${storeId}'. '${storeId}' is a store id, not a group id. GET /v1/admin/groups lists the groups with their ids.`])

    const now = new Date(t.clock.now())
    const future = await series(t, '?from=2099-01-01')
    expect([future.status, future.body.error.details]).toEqual([400, [{ path: 'from', message: 'must be before now when to is left out' }]])
    expect(future.body.error.message).toContain(`not before now (${now.toISOString()}), where the window ends when \`to\` is left out`)

    const spaced = await series(t, '?from=2026-01-01T14:00:00+05:30')
    expect([spaced.status, spaced.body.error.details]).toEqual([
      400,
      [{ path: 'from', message: "from has a space where its offset's + was: a + in a query string is read as a space. Write it as %2B (2026-01-01T14:00:00%2B05:30), or give the time in UTC with Z" }],
    ])
    expect((await series(t, '?from=2026-01-01T14:00:00%2B05:30&to=2026-01-02')).status).toBe(200)
  })
})
