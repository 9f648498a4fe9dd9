import { describe, expect, test } from 'bun:test'
import { buildExecutable, emptyDir, overHttp, startExecutable } from '../helpers/executable'

const bin = await buildExecutable()

const ADMIN = 'adm_switches_token_0123456789'

/** A group, its student's API key, through the API; for registering webhooks on a started server. */
async function studentKey(base: string) {
  const call = overHttp(base)
  const admin = { 'x-admin-token': ADMIN }
  await call('POST', '/v1/admin/groups', { headers: admin, body: { name: 'Switches', members: [{ rm: 'r2001', name: 'Sam' }] } })
  const first = await call('POST', '/v1/store/auth/login', { body: { rm: 'r2001', password: 'r2001' } })
  const changed = await call('POST', '/v1/store/auth/change-password', { headers: { authorization: `Bearer ${first.body.token}` }, body: { currentPassword: 'r2001', newPassword: 'a-new-password' } })
  const key = await call('POST', '/v1/store/api-keys', { headers: { authorization: `Bearer ${changed.body.token}` }, body: { name: 'app' } })
  return { call, key: { 'x-api-key': key.body.apiKey as string } }
}

describe('the webhook switches at start', () => {
  test('listening on 127.0.0.1, loopback targets are allowed by default and the banner says so', async () => {
    const dir = emptyDir()
    const server = await startExecutable(bin, dir, ['--data', dir, '--admin-token', ADMIN])
    try {
      expect(server.stdout()).toContain('  webhooks     also loopback, this machine (--allow-loopback-webhooks)\n')
      const { call, key } = await studentKey(server.base)
      expect((await call('POST', '/v1/webhooks', { headers: key, body: { url: 'http://127.0.0.1:4999/hook', events: ['*'] } })).status).toBe(201)
    } finally {
      await server.stop()
    }
  })

  test('listening on every interface with --allow-insecure-webhooks, http:// to the LAN is allowed but loopback is not', async () => {
    const dir = emptyDir()
    const server = await startExecutable(bin, dir, ['--data', dir, '--admin-token', ADMIN, '--host', '0.0.0.0', '--allow-insecure-webhooks'])
    try {
      expect(server.stdout()).toContain('  webhooks     also http:// to the LAN (--allow-insecure-webhooks)\n')
      expect(server.stdout()).not.toContain('loopback')
      const { call, key } = await studentKey(server.base)
      expect((await call('POST', '/v1/webhooks', { headers: key, body: { url: 'http://10.0.0.7/hook', events: ['*'] } })).status).toBe(201)
      const local = await call('POST', '/v1/webhooks', { headers: key, body: { url: 'http://127.0.0.1:4999/hook', events: ['*'] } })
      expect(local.status).toBe(400)
      expect(local.body.error.details[0].message).toStartWith('127.0.0.1 is a loopback address (this machine), allowed only when the server runs with --allow-loopback-webhooks')
    } finally {
      await server.stop()
    }
  })

  test('with neither switch the banner has no webhooks line', async () => {
    const dir = emptyDir()
    const server = await startExecutable(bin, dir, ['--data', dir, '--admin-token', ADMIN, '--host', '0.0.0.0'])
    try {
      expect(server.stdout()).not.toContain('webhooks')
    } finally {
      await server.stop()
    }
  })
})
