import { describe, expect, test } from 'bun:test'
import { MAX_STREAMS } from '../../src/features/inspector/log'
import { createTestApp } from '../helpers/app'
import { admin, apiKey, bearer, twoStores } from '../helpers/world'

async function setup() {
  const t = createTestApp({ settings: { rateLimitRps: '0' } })
  return { ...t, w: await twoStores(t.call, t.deps) }
}

/** Opens a stream through app.handle and reads its events as they come. */
async function open(t: Awaited<ReturnType<typeof setup>>, path: string, headers: Record<string, string>) {
  const abort = new AbortController()
  const response = await t.app.handle(new Request(`http://localhost:3000${path}`, { headers, signal: abort.signal }))
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  let buffered = ''
  return {
    response,
    /** The next `event: request`, parsed. */
    async next(): Promise<{ id: string; data: any }> {
      for (;;) {
        const end = buffered.indexOf('\n\n')
        if (end >= 0) {
          const block = buffered.slice(0, end)
          buffered = buffered.slice(end + 2)
          if (!block.startsWith('event: request')) continue
          const lines = Object.fromEntries(block.split('\n').map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]))
          return { id: lines.id!, data: JSON.parse(lines.data!) }
        }
        const { value, done } = await reader.read()
        if (done) throw new Error('the stream ended')
        buffered += value
      }
    },
    close: async () => {
      await reader.cancel()
      abort.abort()
    },
  }
}

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
    expect(event.data).toMatchObject({ id: 'a-call', method: 'GET', path: '/v1/products/nope', status: 404, credential: 'secret', error: { code: 'NOT_FOUND' } })
    await stream.close()
  })

  test(`the teacher's stream of a group; at most ${MAX_STREAMS} open per store, and a closed one frees its place`, async () => {
    const t = await setup()
    const streams = [await open(t, `/v1/admin/groups/${t.w.A.group.id}/requests/stream`, admin)]
    for (let i = 1; i < MAX_STREAMS; i++) streams.push(await open(t, '/v1/store/requests/stream', apiKey(t.w.A.key.apiKey)))
    const refused = await t.call('GET', '/v1/store/requests/stream', { headers: bearer(t.w.A.student) })
    expect([refused.status, refused.body.error.code]).toEqual([409, 'LIMIT_REACHED'])
    expect(refused.body.error.message).toContain('Close a panel tab')
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
})
