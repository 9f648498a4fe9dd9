import { asc, eq } from 'drizzle-orm'
import { describe, expect, test } from 'bun:test'
import { webhookDeliveries } from '../../src/features/webhooks/tables'
import { calmly, createTestApp } from '../helpers/app'
import { activityProbes } from '../helpers/probes'
import { admin, apiKey, bearer, createKey, expectOk, twoStores } from '../helpers/world'

describe('GET /v1/admin/board', () => {
  test("per group: today's calls and errors, the error rate, the last call, who has not called today, and failing webhooks", async () => {
    const t = createTestApp({ extraRoutes: activityProbes, settings: { rateLimitRps: '0' } })
    // The setup's calls happen on 2026-01-01, the day before the board is read.
    const { A, B } = await twoStores(t.call, t.deps)
    const hook = await expectOk(t.call('POST', '/v1/webhooks', { headers: apiKey(B.key.apiKey), body: { url: 'https://10.9.8.7/hook', events: ['*'] } }), 201)
    await expectOk(t.call('POST', `/v1/webhooks/${hook.id}/ping`, { headers: apiKey(B.key.apiKey) }), 202)
    t.deps.activity.flush()
    t.clock.set(Date.parse('2026-01-02T09:00:00Z'))
    for (let i = 0; i < 3; i++) await t.call('GET', '/v1/probe', { headers: { ...apiKey(A.key.apiKey), 'x-student-rm': A.rms.spare } })
    await t.call('GET', '/v1/probe/conflict', { headers: { ...apiKey(A.key.apiKey), 'x-student-rm': A.rms.spare } })
    t.clock.set(Date.parse('2026-01-02T10:30:00Z'))
    // Not flushed: the board counts the last second's calls too. A's active student has their own token's call.
    const fresh = await expectOk(t.call('POST', '/v1/store/auth/login', { body: { rm: A.rms.active, password: `pw-${A.rms.active}-secret` } }))
    await expectOk(t.call('GET', '/v1/store/settings', { headers: bearer(fresh.token) }))
    const [ping] = t.deps.db.select({ id: webhookDeliveries.id }).from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, hook.id)).orderBy(asc(webhookDeliveries.id)).all()
    t.deps.db.update(webhookDeliveries).set({ status: 'FAILED', createdAt: Date.parse('2026-01-02T10:00:00Z') }).where(eq(webhookDeliveries.id, ping!.id)).run()

    const board = await expectOk(t.call('GET', '/v1/admin/board', { headers: admin }))
    expect(board.today).toEqual({ from: '2026-01-02T00:00:00.000Z', to: '2026-01-03T00:00:00.000Z', timeZone: 'UTC' })
    const a = board.groups.find((g: any) => g.groupId === A.group.id)
    expect(a).toEqual({
      groupId: A.group.id,
      name: A.group.name,
      callsToday: 5,
      errorsToday: 1,
      errorRate: 0.2,
      shopFront: { callsToday: 0, errorsToday: 0, errorRate: 0 },
      lastCallAt: '2026-01-02T10:30:00.000Z',
      members: 3,
      silentStudents: [{ rm: A.rms.fresh, name: `Fresh a` }],
      failingWebhooks: [],
    })
    const b = board.groups.find((g: any) => g.groupId === B.group.id)
    // B's calls were all yesterday: none today, everyone silent, and its endpoint failed an hour ago.
    expect([b.callsToday, b.errorRate, b.lastCallAt, b.silentStudents.length]).toEqual([0, 0, null, 3])
    expect(b.failingWebhooks).toEqual([{ url: 'https://10.9.8.7/hook', failed: 1 }])
    // Only the teacher reads it.
    expect((await t.call('GET', '/v1/admin/board', { headers: apiKey(A.key.apiKey) })).status).toBe(401)
  })

  test("an evening class in São Paulo keeps its day past 21:00, when the UTC day turns: today is the machine's calendar day", async () => {
    const t = createTestApp({ extraRoutes: activityProbes, settings: { rateLimitRps: '0' } })
    t.clock.timeZone = 'America/Sao_Paulo'
    const { A } = await twoStores(t.call, t.deps)
    t.deps.activity.flush()
    const call = async (at: string) => {
      t.clock.set(Date.parse(at))
      await expectOk(t.call('GET', '/v1/probe', { headers: { ...apiKey(A.key.apiKey), 'x-student-rm': A.rms.spare } }))
    }
    await call('2026-01-02T02:30:00Z') // 23:30 on 1 January in São Paulo: the day before
    await call('2026-01-02T22:00:00Z') // 19:00, the class starts
    await call('2026-01-03T00:30:00Z') // 21:30, a new UTC day but the same evening
    t.clock.set(Date.parse('2026-01-03T01:00:00Z'))
    const board = await expectOk(t.call('GET', '/v1/admin/board', { headers: admin }))
    expect(board.today).toEqual({ from: '2026-01-02T03:00:00.000Z', to: '2026-01-03T03:00:00.000Z', timeZone: 'America/Sao_Paulo' })
    const a = board.groups.find((g: any) => g.groupId === A.group.id)
    expect([a.callsToday, a.lastCallAt, a.silentStudents.map((s: any) => s.rm)]).toEqual([2, '2026-01-03T00:30:00.000Z', [A.rms.active, A.rms.fresh]])
    // At 00:30 in São Paulo the day has turned: the evening's calls were yesterday's.
    t.clock.set(Date.parse('2026-01-03T03:30:00Z'))
    const next = (await expectOk(t.call('GET', '/v1/admin/board', { headers: admin }))).groups.find((g: any) => g.groupId === A.group.id)
    expect([next.callsToday, next.lastCallAt]).toEqual([0, null])
  })

  test("a flood of the publishable key, refused 429 by its own bucket, is the shop front's figure: the group's error rate stays its own and no student gets the calls", async () => {
    const t = createTestApp({ extraRoutes: activityProbes, settings: { rateLimitRps: '1', rateLimitBurst: '5' } })
    const calm = calmly(t)
    const { B } = await twoStores(calm, t.deps)
    const pk = (await createKey(calm, B.student, 'shop front', 'publishable')).apiKey
    t.deps.activity.flush()
    t.clock.set(Date.parse('2026-01-02T09:00:00Z'))
    // The group's own work: three calls and a failing one with the secret key for its spare member, one with a student token.
    for (let i = 0; i < 3; i++) await expectOk(t.call('GET', '/v1/probe', { headers: { ...apiKey(B.key.apiKey), 'x-student-rm': B.rms.spare } }))
    await t.call('GET', '/v1/probe/conflict', { headers: { ...apiKey(B.key.apiKey), 'x-student-rm': B.rms.spare } })
    const fresh = await expectOk(t.call('POST', '/v1/store/auth/login', { body: { rm: B.rms.active, password: `pw-${B.rms.active}-secret` } }))
    await expectOk(t.call('GET', '/v1/store/settings', { headers: bearer(fresh.token) }))
    // A classmate floods the key copied from the shop page, naming a member who made no call.
    const statuses: Record<number, number> = {}
    for (let i = 0; i < 100; i++) {
      const res = await t.call('GET', '/v1/probe', { headers: { ...apiKey(pk), 'x-student-rm': B.rms.fresh } })
      statuses[res.status] = (statuses[res.status] ?? 0) + 1
    }
    expect(statuses).toEqual({ 200: 5, 429: 95 })

    const board = await expectOk(t.call('GET', '/v1/admin/board', { headers: admin }))
    const b = board.groups.find((g: any) => g.groupId === B.group.id)
    expect(b).toMatchObject({
      callsToday: 5,
      errorsToday: 1,
      errorRate: 0.2,
      shopFront: { callsToday: 100, errorsToday: 95, errorRate: 0.95 },
      lastCallAt: '2026-01-02T09:00:00.000Z',
      silentStudents: [{ rm: B.rms.fresh, name: 'Fresh b' }],
    })
    // The report for the day holds the same calls: the group's 105, the shop front's 100, none for the named member.
    const day = (await expectOk(t.call('GET', `/v1/admin/activity?groupId=${B.group.id}&from=2026-01-02&to=2026-01-02`, { headers: admin }))).groups[0]
    expect([day.calls, day.errors, day.unattributed, day.shopFront.calls, day.shopFront.errors]).toEqual([105, 96, 0, 100, 95])
    expect(day.students.map((s: any) => [s.rm, s.calls, s.errors])).toEqual([
      [B.rms.active, 1, 0],
      [B.rms.fresh, 0, 0],
      [B.rms.spare, 4, 1],
    ])
  })
})
