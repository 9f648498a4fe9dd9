import { beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { buildExecutable, emptyDir, startExecutable, type Running } from '../helpers/executable'
import { startReceiver, waitFor } from '../helpers/receivers'
import { limit } from '../helpers/limits'

let bin: string

beforeAll(async () => {
  bin = await buildExecutable()
})

async function api(server: Running, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const res = await fetch(`${server.base}${path}`, {
    method,
    headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  })
  const text = await res.text()
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`)
  return JSON.parse(text)
}

/** A group, its student's API key and a webhook to `url`, through the API as a class would do it. */
async function storeWithWebhook(server: Running, dir: string, url: string) {
  const admin = { 'x-admin-token': readFileSync(join(dir, 'data', 'admin-token'), 'utf8').trim() }
  await api(server, 'POST', '/v1/admin/groups', admin, { name: 'Restart', members: [{ rm: 'r1001', name: 'Rita' }] })
  const first = await api(server, 'POST', '/v1/store/auth/login', {}, { rm: 'r1001', password: 'r1001' })
  const { token } = await api(server, 'POST', '/v1/store/auth/change-password', { authorization: `Bearer ${first.token}` }, { currentPassword: 'r1001', newPassword: 'a-new-password' })
  const { apiKey } = await api(server, 'POST', '/v1/store/api-keys', { authorization: `Bearer ${token}` }, { name: 'app' })
  const key = { 'x-api-key': apiKey }
  const hook = await api(server, 'POST', '/v1/webhooks', key, { url, events: ['*'] })
  return { key, hook }
}

describe('webhooks across a kill -9', () => {
  test('events pending when the process is killed with SIGKILL are delivered after it starts again; none is lost', async () => {
    let answering = false
    const receiver = startReceiver(() => (answering ? new Response('ok') : new Promise<Response>(() => {})))
    const dir = emptyDir()
    const first = await startExecutable(bin, dir, ['--allow-loopback-webhooks'])
    const { key, hook } = await storeWithWebhook(first, dir, receiver.url)
    const sent: string[] = []
    for (let i = 0; i < 10; i++) sent.push((await api(first, 'POST', `/v1/webhooks/${hook.id}/ping`, key)).eventId)
    // The receiver holds the first attempts open, so some are in flight and the rest wait, when the process dies.
    await waitFor(() => receiver.received.length >= 4, 5_000, 'the first attempts to reach the receiver')
    await first.stop('SIGKILL')
    expect(first.proc.signalCode).toBe('SIGKILL')

    answering = true
    const second = await startExecutable(bin, dir, ['--allow-loopback-webhooks'])
    const delivered = () => new Set(receiver.received.slice(4).map((r) => JSON.parse(r.body).id))
    await waitFor(() => sent.every((id) => delivered().has(id)), 10_000, 'every event after the restart')
    expect([...delivered()].sort()).toEqual([...sent].sort())

    // The receiver has each event before the server records the attempt's answer: wait for the log too.
    const succeeded = async () =>
      new Set((await api(second, 'GET', '/v1/webhooks/deliveries?status=SUCCEEDED&pageSize=100', key)).data.map((d: any) => d.eventId))
    let logged = new Set<unknown>()
    await waitFor(async () => (logged = await succeeded()).size >= sent.length, 5_000, 'every attempt recorded as SUCCEEDED')
    expect(logged).toEqual(new Set(sent))
    expect(await second.stop('SIGTERM')).toBe(0)
  }, limit(30_000))
})
