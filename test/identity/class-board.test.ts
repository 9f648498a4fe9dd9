import { asc, eq } from 'drizzle-orm'
import { describe, expect, test } from 'bun:test'
import { webhookDeliveries } from '../../src/features/webhooks/tables'
import { createTestApp } from '../helpers/app'
import { activityProbes } from '../helpers/probes'
import { admin, apiKey, bearer, expectOk, twoStores } from '../helpers/world'

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
    expect(board.today).toEqual({ from: '2026-01-02T00:00:00.000Z', to: '2026-01-03T00:00:00.000Z' })
    const a = board.groups.find((g: any) => g.groupId === A.group.id)
    expect(a).toEqual({
      groupId: A.group.id,
      name: A.group.name,
      callsToday: 5,
      errorsToday: 1,
      errorRate: 0.2,
      lastCallAt: '2026-01-02T10:30:00.000Z',
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
})
