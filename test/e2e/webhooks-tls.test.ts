import { beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { buildExecutable, emptyDir, overHttp, startExecutable } from '../helpers/executable'
import { waitFor } from '../helpers/receivers'
import { limit } from '../helpers/limits'

const TLS = join(import.meta.dir, '..', 'fixtures', 'tls')
const ADMIN = 'adm_webhooks_tls_token_012345'

let bin: string

beforeAll(async () => {
  bin = await buildExecutable()
})

/** An https receiver on 127.0.0.1 whose certificate names `localhost` only. */
function tlsReceiver() {
  const received: { host: string | null; body: string }[] = []
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    tls: { cert: readFileSync(join(TLS, 'localhost-cert.pem'), 'utf8'), key: readFileSync(join(TLS, 'localhost-key.pem'), 'utf8') },
    async fetch(request) {
      received.push({ host: request.headers.get('host'), body: await request.text() })
      return new Response('ok')
    },
  })
  return { port: server.port!, received, stop: () => server.stop(true) }
}

describe('webhooks over TLS from the executable', () => {
  test('a name is sent to its checked address with that name as TLS server name and certificate name; the bare address fails the certificate', async () => {
    const receiver = tlsReceiver()
    const dir = emptyDir()
    const server = await startExecutable(bin, dir, ['--admin-token', ADMIN, '--allow-loopback-webhooks'], { NODE_EXTRA_CA_CERTS: join(TLS, 'localhost-cert.pem') })
    try {
      const call = overHttp(server.base)
      await call('POST', '/v1/admin/groups', { headers: { 'x-admin-token': ADMIN }, body: { name: 'TLS', members: [{ rm: 'r3001', name: 'Tess' }] } })
      const first = await call('POST', '/v1/store/auth/login', { body: { rm: 'r3001', password: 'r3001' } })
      const changed = await call('POST', '/v1/store/auth/change-password', { headers: { authorization: `Bearer ${first.body.token}` }, body: { currentPassword: 'r3001', newPassword: 'a-new-password' } })
      const key = { 'x-api-key': (await call('POST', '/v1/store/api-keys', { headers: { authorization: `Bearer ${changed.body.token}` }, body: { name: 'app' } })).body.apiKey }
      const byName = (await call('POST', '/v1/webhooks', { headers: key, body: { url: `https://localhost:${receiver.port}/hook`, events: ['*'] } })).body
      const byAddress = (await call('POST', '/v1/webhooks', { headers: key, body: { url: `https://127.0.0.1:${receiver.port}/hook`, events: ['*'] } })).body
      const ping = (await call('POST', `/v1/webhooks/${byName.id}/ping`, { headers: key })).body
      await call('POST', `/v1/webhooks/${byAddress.id}/ping`, { headers: key })

      const finished = async () => (await call('GET', '/v1/webhooks/deliveries?pageSize=10', { headers: key })).body.data.filter((d: any) => d.status !== 'PENDING' && d.attempt === 1)
      let log: any[] = []
      await waitFor(async () => (log = await finished()).length === 2, 10_000, 'both pings to be recorded')
      const named = log.find((d) => d.webhookId === byName.id)
      const bare = log.find((d) => d.webhookId === byAddress.id)
      expect(named).toMatchObject({ eventId: ping.eventId, status: 'SUCCEEDED', responseStatus: 200, responseBody: 'ok', error: null })
      expect(receiver.received).toHaveLength(1)
      expect(receiver.received[0]!.host).toBe(`localhost:${receiver.port}`)
      // The certificate names localhost, not 127.0.0.1: checked against the URL's host, it is refused.
      expect(bare.status).toBe('FAILED')
      expect(bare.error).toStartWith('tls: ')
    } finally {
      await server.stop()
      receiver.stop()
    }
  }, limit(30_000))
})
