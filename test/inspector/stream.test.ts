import { describe, expect, test } from 'bun:test'
import { MAX_STREAMS, MAX_TEACHER_STREAMS } from '../../src/features/inspector/log'
import { createTestApp } from '../helpers/app'
import { activeStudent, admin, apiKey, bearer, expectOk, passwordOf, twoStores } from '../helpers/world'
import { openStream } from './sse'

async function setup() {
  const t = createTestApp({ settings: { rateLimitRps: '0' } })
  return { ...t, w: await twoStores(t.call, t.deps) }
}

const open = (t: Awaited<ReturnType<typeof setup>>, path: string, headers: Record<string, string>) => openStream(t.app, path, headers)

describe('the live stream of a store’s calls', () => {
  test('delivers a call made after connecting, as a RequestEntry, and nothing of another store', async () => {
    const t = await setup()
    const stream = await open(t, '/v1/store/requests/stream', bearer(t.w.A.student))
    expect(stream.response.status).toBe(200)
    expect(stream.response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
    await t.call('GET', '/v1/products/nope', { headers: { ...apiKey(t.w.B.key.apiKey), 'x-request-id': 'b-call' } })
    await t.call('GET', '/v1/products/nope', { headers: { ...apiKey(t.w.A.key.apiKey), 'x-request-id': 'a-call' } })
    const event = await stream.next()
    expect(event.id).toBe('a-call')
    expect(event.data).toMatchObject({ id: 'a-call', method: 'GET', path: '/v1/products/nope', status: 404, credential: 'secret', errorCode: 'NOT_FOUND' })
    await stream.close()
  })

  test('a stream ends when the credential that opened it does: a revoked key, a removed member, a changed password', async () => {
    const t = await setup()
    const { A } = t.w
    const spare = await activeStudent(t.call, A.rms.spare)
    const fresh = await activeStudent(t.call, A.rms.fresh)
    const streams = {
      key: await open(t, '/v1/store/requests/stream', apiKey(A.key.apiKey)),
      revoked: await open(t, '/v1/store/requests/stream', apiKey(A.spareKey.apiKey)),
      removed: await open(t, '/v1/store/requests/stream', bearer(spare)),
    }
    await expectOk(t.call('DELETE', `/v1/store/api-keys/${A.spareKey.id}`, { headers: bearer(A.student) }), 204)
    await expectOk(t.call('DELETE', `/v1/store/members/${A.rms.spare}`, { headers: bearer(A.student) }), 204)
    await t.call('GET', '/v1/products/nope', { headers: { ...apiKey(A.key.apiKey), 'x-request-id': 'after' } })
    // The key still valid gets the call (after those that revoked and removed); the others end before it.
    const until = async (stream: Awaited<ReturnType<typeof open>>, id: string) => {
      for (;;) if ((await stream.next()).id === id) return id
    }
    expect(await until(streams.key, 'after')).toBe('after')
    for (const name of ['revoked', 'removed'] as const) expect([name, await until(streams[name], 'after').catch((e: Error) => e.message)]).toEqual([name, 'the stream ended'])
    // A session ended by a password change: its stream ends at the next message.
    const old = await open(t, '/v1/store/requests/stream', bearer(fresh))
    await expectOk(t.call('POST', '/v1/store/auth/change-password', { headers: bearer(fresh), body: { currentPassword: passwordOf(A.rms.fresh), newPassword: 'another-good-password' } }))
    await t.call('GET', '/v1/products/nope', { headers: { ...apiKey(A.key.apiKey), 'x-request-id': 'after-change' } })
    expect(await until(streams.key, 'after-change')).toBe('after-change')
    expect(await until(old, 'after-change').catch((e: Error) => e.message)).toBe('the stream ended')
    await streams.key.close()
  })

  test(`at most ${MAX_STREAMS} streams per store; a closed one frees its place, and another store is not affected`, async () => {
    const t = await setup()
    const streams = [await open(t, '/v1/store/requests/stream', bearer(t.w.A.student))]
    for (let i = 1; i < MAX_STREAMS; i++) streams.push(await open(t, '/v1/store/requests/stream', apiKey(t.w.A.key.apiKey)))
    const refused = await t.call('GET', '/v1/store/requests/stream', { headers: bearer(t.w.A.student) })
    expect([refused.status, refused.body.error.code]).toEqual([409, 'LIMIT_REACHED'])
    expect(refused.body.error.message).toBe(`This store already has ${MAX_STREAMS} live request streams open. Close a panel tab or a stream your app left open, then try again.`)
    // B is not affected by A's streams.
    const b = await open(t, '/v1/store/requests/stream', bearer(t.w.B.student))
    expect(b.response.status).toBe(200)
    await b.close()

    await t.call('POST', '/v1/products', { headers: { ...apiKey(t.w.A.key.apiKey), 'x-request-id': 'to-all' }, body: {} })
    for (const s of streams) expect((await s.next()).id).toBe('to-all')
    await streams.pop()!.close()
    const again = await open(t, '/v1/store/requests/stream', bearer(t.w.A.student))
    expect(again.response.status).toBe(200)
    for (const s of [...streams, again]) await s.close()
  })

  test(`the teacher's stream of a group opens while the group's ${MAX_STREAMS} are open; the teacher has ${MAX_TEACHER_STREAMS} places of their own`, async () => {
    const t = await setup()
    const group = []
    for (let i = 0; i < MAX_STREAMS; i++) group.push(await open(t, '/v1/store/requests/stream', bearer(t.w.A.student)))
    const teacher = []
    for (let i = 0; i < MAX_TEACHER_STREAMS; i++) {
      const s = await open(t, `/v1/admin/groups/${t.w.A.group.id}/requests/stream`, admin)
      expect(s.response.status).toBe(200)
      teacher.push(s)
    }
    const refused = await t.call('GET', `/v1/admin/groups/${t.w.A.group.id}/requests/stream`, { headers: admin })
    expect([refused.status, refused.body.error.code]).toEqual([409, 'LIMIT_REACHED'])
    expect(refused.body.error.message).toBe(
      `You already have ${MAX_TEACHER_STREAMS} live request streams of this group open. Close a tab showing this group's requests, then try again; the group's own streams do not take your places.`,
    )
    // The teacher's streams took none of the group's places, nor of another group's.
    expect((await t.call('GET', '/v1/store/requests/stream', { headers: bearer(t.w.A.student) })).status).toBe(409)
    const other = await open(t, `/v1/admin/groups/${t.w.B.group.id}/requests/stream`, admin)
    expect(other.response.status).toBe(200)
    await other.close()

    await t.call('POST', '/v1/products', { headers: { ...apiKey(t.w.A.key.apiKey), 'x-request-id': 'seen-by-all' }, body: {} })
    for (const s of [...group, ...teacher]) expect((await s.next()).data).toMatchObject({ id: 'seen-by-all', status: 400, count: 1 })
    await teacher.pop()!.close()
    const again = await open(t, `/v1/admin/groups/${t.w.A.group.id}/requests/stream`, admin)
    expect(again.response.status).toBe(200)
    for (const s of [...group, ...teacher, again]) await s.close()
  })
})
