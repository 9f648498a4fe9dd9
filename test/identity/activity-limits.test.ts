import { describe, expect, test } from 'bun:test'
import { activityCounts } from '../../src/features/activity/tables'
import { type CallResult, createTestApp } from '../helpers/app'
import { activityProbes } from '../helpers/probes'
import { admin, apiKey, bearer, createKey, expectOk, twoStores } from '../helpers/world'

/** `startMs` after the clock's start (on the hour), the two stores are made. */
const setup = async (settings = {}, startMs = 0) => {
  const t = createTestApp({ extraRoutes: activityProbes, settings: { rateLimitRps: '0', ...settings } })
  t.clock.advance(startMs)
  const world = await twoStores(t.call, t.deps)
  return { ...t, world }
}

const report = async (t: Awaited<ReturnType<typeof setup>>, query = '') =>
  expectOk(t.call('GET', `/v1/admin/activity${query}`, { headers: admin }))

describe('activity attribution: calls counted per group and per student', () => {
  test('N calls with X-Student-RM of a member count N for that student; another group’s RM is unattributed', async () => {
    const t = await setup()
    const { A, B } = t.world
    const before = await report(t, `?groupId=${A.group.id}`)
    const baseline = before.groups[0]
    const ana = baseline.students.find((s: any) => s.rm === A.rms.spare)
    expect(ana).toEqual({ rm: A.rms.spare, name: 'Spare a', member: true, calls: 0, errors: 0, lastCallAt: null })

    for (let i = 0; i < 7; i++) await t.call('GET', '/v1/probe', { headers: { ...apiKey(A.key.apiKey), 'x-student-rm': A.rms.spare } })
    for (let i = 0; i < 3; i++) await t.call('GET', '/v1/probe', { headers: { ...apiKey(A.key.apiKey), 'x-student-rm': B.rms.active } })
    await t.call('GET', '/v1/probe', { headers: { ...apiKey(A.key.apiKey), 'x-student-rm': 'nobody' } })
    await t.call('GET', '/v1/probe/conflict', { headers: { ...apiKey(A.key.apiKey), 'x-student-rm': A.rms.spare } })

    const after = (await report(t, `?groupId=${A.group.id}`)).groups[0]
    const spare = after.students.find((s: any) => s.rm === A.rms.spare)
    expect(spare.calls).toBe(8)
    expect(spare.errors).toBe(1)
    expect(spare.lastCallAt).toBe(new Date(t.clock.now()).toISOString())
    expect(after.unattributed - baseline.unattributed).toBe(4)
    expect(after.calls - baseline.calls).toBe(12)
    expect(after.errors - baseline.errors).toBe(1)
    // Store B's report did not move: A cannot inflate B's student.
    const bBefore = (await report(t, `?groupId=${B.group.id}`)).groups[0]
    await t.call('GET', '/v1/probe', { headers: { ...apiKey(A.key.apiKey), 'x-student-rm': B.rms.active } })
    const bAfter = (await report(t, `?groupId=${B.group.id}`)).groups[0]
    expect(bAfter.calls).toBe(bBefore.calls)
    expect(bAfter.students).toEqual(bBefore.students)
  })

  test('X-Student-RM names a member whatever its case: the calls count under the RM as kept', async () => {
    const t = await setup()
    const { A } = t.world
    const shouted = A.rms.spare.toUpperCase()
    expect(shouted).not.toBe(A.rms.spare)
    const before = (await report(t, `?groupId=${A.group.id}`)).groups[0].unattributed
    for (let i = 0; i < 3; i++) await t.call('GET', '/v1/probe', { headers: { ...apiKey(A.key.apiKey), 'x-student-rm': shouted } })
    const group = (await report(t, `?groupId=${A.group.id}`)).groups[0]
    expect(group.students.find((s: any) => s.rm === A.rms.spare).calls).toBe(3)
    expect(group.students.map((s: any) => s.rm)).not.toContain(shouted)
    expect(group.unattributed).toBe(before)
  })

  test("the secret key with a student's own token beside it counts for that student; another group's token, or one that is no session, for no one", async () => {
    const t = await setup()
    const { A, B } = t.world
    const before = (await report(t, `?groupId=${A.group.id}`)).groups[0]
    const calls = (rm: string, group: any) => group.students.find((s: any) => s.rm === rm).calls
    for (let i = 0; i < 4; i++) await t.call('GET', '/v1/probe', { headers: { ...apiKey(A.key.apiKey), ...bearer(A.student) } })
    await t.call('GET', '/v1/probe', { headers: { ...apiKey(A.key.apiKey), ...bearer(B.student) } })
    await t.call('GET', '/v1/probe', { headers: { ...apiKey(A.key.apiKey), ...bearer('stu_notatokenofanyone0000000000000000000000') } })
    // X-Student-RM, when sent, says whom the call is for.
    await t.call('GET', '/v1/probe', { headers: { ...apiKey(A.key.apiKey), ...bearer(A.student), 'x-student-rm': A.rms.spare } })
    const after = (await report(t, `?groupId=${A.group.id}`)).groups[0]
    expect(calls(A.rms.active, after) - calls(A.rms.active, before)).toBe(4)
    expect(after.unattributed - before.unattributed).toBe(2)
    expect(calls(A.rms.spare, after) - calls(A.rms.spare, before)).toBe(1)
  })

  test("calls with a student's token count for that student, whatever X-Student-RM says", async () => {
    const t = await setup()
    const { A } = t.world
    const before = (await report(t, `?groupId=${A.group.id}`)).groups[0].students.find((s: any) => s.rm === A.rms.active).calls
    for (let i = 0; i < 4; i++) await t.call('GET', '/v1/probe', { headers: { ...bearer(A.student), 'x-student-rm': A.rms.spare } })
    const students = (await report(t, `?groupId=${A.group.id}`)).groups[0].students
    expect(students.find((s: any) => s.rm === A.rms.active).calls).toBe(before + 4)
    expect(students.find((s: any) => s.rm === A.rms.spare).calls).toBe(0)
  })

  test('counting writes nothing on the request path: counts reach the database when flushed', async () => {
    const t = await setup()
    t.deps.activity.flush()
    const rows = () => t.deps.db.select().from(activityCounts).all().reduce((n, r) => n + r.calls, 0)
    const stored = rows()
    for (let i = 0; i < 5; i++) await t.call('GET', '/v1/probe', { headers: apiKey(t.world.A.key.apiKey) })
    expect(rows()).toBe(stored)
    t.deps.activity.flush()
    expect(rows()).toBe(stored + 5)
  })

  test('calls on both sides of an hour, with no flush between, are stored in their own hours', async () => {
    const t = await setup()
    const { A } = t.world
    t.deps.activity.flush()
    const HOUR = 3600_000
    t.clock.set(Math.floor(t.clock.now() / HOUR) * HOUR + 2 * HOUR - 1) // the last millisecond of an hour
    const first = t.clock.now() - (HOUR - 1)
    const headers = { ...apiKey(A.key.apiKey), 'x-student-rm': A.rms.spare }
    await t.call('GET', '/v1/probe', { headers })
    await t.call('GET', '/v1/probe', { headers })
    t.clock.advance(1) // the next hour
    await t.call('GET', '/v1/probe', { headers })
    await t.call('GET', '/v1/probe/conflict', { headers })
    t.deps.activity.flush()
    const rows = t.deps.db
      .select()
      .from(activityCounts)
      .all()
      .filter((r) => r.rm === A.rms.spare)
      .map((r) => [r.hourStart - first, r.calls, r.errors])
      .sort((a, b) => a[0]! - b[0]!)
    expect(rows).toEqual([
      [0, 2, 0],
      [HOUR, 2, 1],
    ])
  })

  test('stopping the server writes the counts still in memory', async () => {
    const t = await setup()
    t.deps.activity.flush()
    const rows = () => t.deps.db.select().from(activityCounts).all().reduce((n, r) => n + r.calls, 0)
    const stored = rows()
    for (let i = 0; i < 3; i++) await t.call('GET', '/v1/probe', { headers: apiKey(t.world.A.key.apiKey) })
    expect(rows()).toBe(stored)
    await t.deps.lifecycle.stop()
    expect(rows()).toBe(stored + 3)
  })

  test("the key's lastUsedAt is the time of its last call", async () => {
    const t = await setup()
    const { A } = t.world
    const key = await createKey(t.call, A.student, 'fresh')
    t.clock.advance(60_000)
    await t.call('GET', '/v1/probe', { headers: apiKey(key.apiKey) })
    const keys = (await t.call('GET', '/v1/store/api-keys', { headers: bearer(A.student) })).body.data
    expect(keys.find((k: any) => k.id === key.id).lastUsedAt).toBe(new Date(t.clock.now()).toISOString())
    expect(keys.find((k: any) => k.id === A.spareKey.id).lastUsedAt).toBeNull()
  })

  test('from and to are ISO dates, year first: a day-first or month-first date, a date past its month and a bare number are 400s saying so', async () => {
    const t = await setup()
    for (const path of ['/v1/admin/activity', '/v1/admin/activity/series']) {
      for (const from of ['01/12/2026', '1', '2026-02-30', '2026-11-21 14:00', '2026-11-21T25:00:00Z']) {
        const res = await t.call('GET', `${path}?from=${encodeURIComponent(from)}`, { headers: admin })
        expect([path, from, res.status, res.body.error.details]).toEqual([
          path,
          from,
          400,
          [{ path: 'from', message: 'from must be an ISO date, year first, such as 2026-11-21, or a date and time such as 2026-11-21T14:00:00Z' }],
        ])
      }
      for (const from of ['2026-01-12', '2026-01-12T10:00', '2026-01-12T10:00:00.5-03:00']) {
        expect([path, from, (await t.call('GET', `${path}?from=${encodeURIComponent(from)}&to=2026-01-13`, { headers: admin })).status]).toEqual([path, from, 200])
      }
    }
  })

  test('a `to` before the default start names that start, not a `from` that was never sent', async () => {
    const t = await setup()
    const created = new Date(t.clock.now() - 3600_000).toISOString()
    const res = await t.call('GET', `/v1/admin/activity?to=${encodeURIComponent(created)}`, { headers: admin })
    const groups = await t.call('GET', '/v1/admin/groups', { headers: admin })
    const first = groups.body.data.map((g: { createdAt: string }) => g.createdAt).sort()[0]
    const hour = `${first.slice(0, 13)}:00:00.000Z`
    expect([res.status, res.body.error.message, res.body.error.details]).toEqual([
      400,
      `\`to\` ends before ${hour}, the start of the hour the first group was created in (${first}), where the window starts when \`from\` is left out. Send a later \`to\`, or a \`from\` before it.`,
      [{ path: 'to', message: `must be after ${hour} when from is left out` }],
    ])
  })

  test('a `to` earlier in the hour the first group was made in counts that hour, as it counts any hour it falls in', async () => {
    const t = await setup({}, 20 * 60_000)
    const { A } = t.world
    await t.call('GET', '/v1/probe', { headers: { ...apiKey(A.key.apiKey), 'x-student-rm': A.rms.spare } })
    const groups = await t.call('GET', '/v1/admin/groups', { headers: admin })
    const first = Date.parse(groups.body.data.map((g: { createdAt: string }) => g.createdAt).sort()[0])
    expect(first % 3600_000).toBeGreaterThan(0)
    const hour = first - (first % 3600_000)
    const answer = await report(t, `?groupId=${A.group.id}&to=${new Date(first - 1).toISOString()}`)
    const spare = answer.groups[0].students.find((s: any) => s.rm === A.rms.spare)
    expect([answer.from, answer.to, spare.calls]).toEqual([new Date(hour).toISOString(), new Date(hour + 3600_000).toISOString(), 1])
  })

  test('from and to select whole hours; a date alone covers its day; csv has a row per student', async () => {
    const t = await setup()
    const { A } = t.world
    const day = new Date(t.clock.now()).toISOString().slice(0, 10)
    t.clock.advance(3 * 3600_000)
    await t.call('GET', '/v1/probe', { headers: { ...apiKey(A.key.apiKey), 'x-student-rm': A.rms.spare } })
    const later = new Date(t.clock.now()).toISOString()
    const onlyLater = (await report(t, `?groupId=${A.group.id}&from=${later}`)).groups[0]
    expect(onlyLater.calls).toBe(1)
    const wholeDay = await report(t, `?groupId=${A.group.id}&from=${day}&to=${day}`)
    expect(wholeDay.from).toBe(`${day}T00:00:00.000Z`)
    expect(wholeDay.to).toBe(new Date(Date.parse(day) + 86400_000).toISOString())
    const bad = await t.call("GET", `/v1/admin/activity?from=${later}&to=${day}T01:00:00Z`, { headers: admin })
    expect([bad.status, bad.body.error.code]).toEqual([400, 'VALIDATION_ERROR'])
    expect((await t.call('GET', '/v1/admin/activity?from=yesterday', { headers: admin })).status).toBe(400)
    expect((await t.call('GET', '/v1/admin/activity?groupId=grp_nope', { headers: admin })).status).toBe(404)

    const csv = await t.call('GET', `/v1/admin/activity?groupId=${A.group.id}&format=csv`, { headers: admin })
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    const lines = csv.text.trimEnd().split('\r\n')
    // The byte order mark first: Excel reads the file as UTF-8.
    expect(lines[0]).toBe('\ufeffgroup_id,group,rm,name,calls,errors,last_call_at')
    expect(lines).toHaveLength(1 + 3 + 3)
    expect(lines[3]).toStartWith(`${A.group.id},Group A,${A.rms.spare},Spare a,1,0,`)
    expect(lines[4]).toStartWith(`${A.group.id},Group A,,(unattributed),`)
    expect(lines[5]).toBe(`${A.group.id},Group A,,(shop front),0,0,`)
    expect(lines[6]).toStartWith(`${A.group.id},Group A,,(group total),`)
  })
})

describe('what the report counted', () => {
  test("a window that is not whole hours is counted in whole hours, and the answer says which: a call after the asked `to` is never shown as before it", async () => {
    const t = await setup()
    const { A } = t.world
    const hour = t.clock.now() - (t.clock.now() % 3600_000) + 3 * 3600_000
    const probe = (minute: number) => {
      t.clock.set(hour + minute * 60_000)
      return t.call('GET', '/v1/probe', { headers: { ...apiKey(A.key.apiKey), 'x-student-rm': A.rms.spare } })
    }
    for (const minute of [10, 40, 50]) await probe(minute)
    const iso = (ms: number) => new Date(ms).toISOString()
    const asked = await report(t, `?groupId=${A.group.id}&from=${iso(hour + 20 * 60_000)}&to=${iso(hour + 45 * 60_000)}`)
    // The three calls of the hour, with the hour's bounds: the deadline of :45 is shown to have been :00 of the next hour.
    expect([asked.from, asked.to]).toEqual([iso(hour), iso(hour + 3600_000)])
    const spare = asked.groups[0].students.find((s: { rm: string }) => s.rm === A.rms.spare)
    expect([spare.calls, spare.lastCallAt]).toEqual([3, iso(hour + 50 * 60_000)])
    expect(Date.parse(spare.lastCallAt)).toBeLessThan(Date.parse(asked.to))
    // Before 1970 too (a time below zero): rounded down and up, not toward zero.
    const old = await report(t, `?groupId=${A.group.id}&from=1969-12-31T23:30:00Z&to=1969-12-31T23:45:00Z`)
    expect([old.from, old.to]).toEqual(['1969-12-31T23:00:00.000Z', '1970-01-01T00:00:00.000Z'])
    // On the hour, a bound is kept as it is.
    const whole = await report(t, `?groupId=${A.group.id}&from=${iso(hour)}&to=${iso(hour + 3600_000)}`)
    expect([whole.from, whole.to]).toEqual([iso(hour), iso(hour + 3600_000)])
  })

  test("the unattributed calls' errors are shown beside them, in the answer and the csv: the group's errors add up", async () => {
    const t = await setup()
    const { A } = t.world
    const before = (await report(t, `?groupId=${A.group.id}`)).groups[0]
    await t.call('GET', '/v1/probe/conflict', { headers: apiKey(A.key.apiKey) })
    await t.call('GET', '/v1/probe', { headers: apiKey(A.key.apiKey) })
    const after = (await report(t, `?groupId=${A.group.id}`)).groups[0]
    expect([after.unattributed - before.unattributed, after.unattributedErrors - before.unattributedErrors]).toEqual([2, 1])
    const parts = after.unattributedErrors + after.shopFront.errors + after.students.reduce((n: number, s: { errors: number }) => n + s.errors, 0)
    expect(parts).toBe(after.errors)
    const csv = await t.call('GET', `/v1/admin/activity?groupId=${A.group.id}&format=csv`, { headers: admin })
    expect(csv.text.split('\r\n').find((l) => l.includes('(unattributed)'))).toBe(`${A.group.id},Group A,,(unattributed),${after.unattributed},${after.unattributedErrors},`)
  })
})

describe('fair limits: one rate limit per store', () => {
  test('a store that floods gets 429 with Retry-After while another store still succeeds', async () => {
    const t = await setup({ rateLimitRps: '10', rateLimitBurst: '20' })
    const { A, B } = t.world
    const statuses: number[] = []
    let last: CallResult | undefined
    for (let i = 0; i < 25; i++) {
      last = await t.call('GET', '/v1/probe', { headers: apiKey(A.key.apiKey) })
      statuses.push(last.status)
    }
    // twoStores already spent some of A's bucket through its student token; the bucket is per store.
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0)
    expect(last!.status).toBe(429)
    expect(last!.body.error.code).toBe('RATE_LIMITED')
    expect(last!.headers.get('retry-after')).toBe('1')
    expect(last!.headers.get('ratelimit-remaining')).toBe('0')
    expect(last!.headers.get('ratelimit-limit')).toBe('20')

    const other = await t.call('GET', '/v1/probe', { headers: apiKey(B.key.apiKey) })
    expect(other.status).toBe(200)
    expect(Number(other.headers.get('ratelimit-remaining'))).toBeGreaterThan(0)

    t.clock.advance(1000) // ten tokens come back
    const allowed = []
    for (let i = 0; i < 11; i++) allowed.push((await t.call('GET', '/v1/probe', { headers: apiKey(A.key.apiKey) })).status)
    expect(allowed).toEqual([...Array(10).fill(200), 429])
  })

  test('a live key that a route refuses (a buyer route without the customer, the store panel) is still a call of its store: counted, limited, with the RateLimit headers; a revoked key is no one’s', async () => {
    const t = await setup({ rateLimitRps: '10', rateLimitBurst: '20' })
    const { A, B } = t.world
    const pk = (await createKey(t.call, A.student, 'shop page', 'publishable')).apiKey
    const before = (await report(t, `?groupId=${A.group.id}`)).groups[0]
    const spare = (group: any) => group.students.find((s: any) => s.rm === A.rms.spare)
    const refusals: [number, string, string | null][] = []
    const send = async (path: string, headers: Record<string, string>) => {
      const r = await t.call('GET', path, { headers })
      refusals.push([r.status, r.body.error.code, r.headers.get('ratelimit-limit')])
    }
    for (let i = 0; i < 3; i++) await send('/v1/cart', { ...apiKey(A.key.apiKey), 'x-student-rm': A.rms.spare })
    for (let i = 0; i < 2; i++) await send('/v1/store/settings', apiKey(A.key.apiKey))
    await send('/v1/cart', apiKey(pk))
    for (let i = 0; i < 4; i++) await send('/v1/products', apiKey(A.revoked.apiKey))
    expect(refusals).toEqual([
      ...Array(3).fill([401, 'UNAUTHENTICATED', '20']),
      ...Array(2).fill([401, 'WRONG_CREDENTIAL', '20']),
      [401, 'UNAUTHENTICATED', '20'],
      ...Array(4).fill([401, 'UNAUTHENTICATED', null]),
    ])
    const after = (await report(t, `?groupId=${A.group.id}`)).groups[0]
    expect([spare(after).calls - spare(before).calls, spare(after).errors - spare(before).errors]).toEqual([3, 3])
    expect([after.unattributed - before.unattributed, after.unattributedErrors - before.unattributedErrors]).toEqual([2, 2])
    expect([after.shopFront.calls - before.shopFront.calls, after.shopFront.errors - before.shopFront.errors]).toEqual([1, 1])
    expect([after.calls - before.calls, after.errors - before.errors]).toEqual([6, 6])

    // A loop of such calls spends the store's bucket like any other: 429, and the other store is not slowed.
    const statuses: number[] = []
    for (let i = 0; i < 25; i++) statuses.push((await t.call('GET', '/v1/cart', { headers: apiKey(A.key.apiKey) })).status)
    expect(statuses.at(-1)).toBe(429)
    expect(new Set(statuses)).toEqual(new Set([401, 429]))
    expect((await t.call('GET', '/v1/probe', { headers: apiKey(B.key.apiKey) })).status).toBe(200)
  })

  test("a student's token on a buyer route counts for that student; a revoked key on the panel counts for no one", async () => {
    const t = await setup({ rateLimitRps: '10', rateLimitBurst: '20' })
    const { A } = t.world
    const before = (await report(t, `?groupId=${A.group.id}`)).groups[0]
    const student = (group: any) => group.students.find((s: any) => s.rm === A.rms.active)
    const asStudent = await t.call('GET', '/v1/cart', { headers: bearer(A.student) })
    expect([asStudent.status, asStudent.body.error.code, asStudent.headers.get('ratelimit-limit')]).toEqual([401, 'WRONG_CREDENTIAL', '20'])
    const revoked = await t.call('GET', '/v1/store/settings', { headers: apiKey(A.revoked.apiKey) })
    expect([revoked.status, revoked.headers.get('ratelimit-limit')]).toEqual([401, null])
    const after = (await report(t, `?groupId=${A.group.id}`)).groups[0]
    expect([student(after).calls - student(before).calls, student(after).errors - student(before).errors]).toEqual([1, 1])
    expect([after.calls - before.calls, after.errors - before.errors]).toEqual([1, 1])
    // Both are in the store's request inspector, where the student looks for what went wrong.
    const listed = await expectOk(t.call('GET', '/v1/store/requests?status=401', { headers: bearer(A.student) }))
    expect(listed.data.map((e: any) => [e.path, e.credential])).toEqual([
      ['/v1/store/settings', 'secret'],
      ['/v1/cart', 'student'],
    ])
  })

  test('every store response carries the RateLimit headers; RATE_LIMIT_RPS=0 turns the limit off', async () => {
    const on = await setup({ rateLimitRps: '50', rateLimitBurst: '100' })
    const res = await on.call('GET', '/v1/probe', { headers: apiKey(on.world.A.key.apiKey) })
    expect(res.headers.get('ratelimit-limit')).toBe('100')
    expect(Number(res.headers.get('ratelimit-remaining'))).toBeLessThan(100)
    expect(res.headers.get('ratelimit-reset')).toMatch(/^\d+$/)
    const off = await setup()
    for (let i = 0; i < 150; i++) expect((await off.call('GET', '/v1/probe', { headers: apiKey(off.world.A.key.apiKey) })).status).toBe(200)
    expect((await off.call('GET', '/v1/probe', { headers: apiKey(off.world.A.key.apiKey) })).headers.get('ratelimit-limit')).toBeNull()
  })
})
