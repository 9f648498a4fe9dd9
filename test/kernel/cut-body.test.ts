import { describe, expect, test } from 'bun:test'
import { connect } from 'node:net'
import { createTestApp } from '../helpers/app'
import { bearer, expectOk, twoStores } from '../helpers/world'

/** Sends a request head promising `promised` bytes, then `sent` of them, then closes the connection. */
function sendCutShort(port: number, path: string, headers: Record<string, string>, promised: number, sent: string) {
  return new Promise<void>((resolve, reject) => {
    const head = [`POST ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Content-Type: application/json', `Content-Length: ${promised}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)]
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(`${head.join('\r\n')}\r\n\r\n${sent}`)
      setTimeout(() => socket.destroy(), 50)
    })
    socket.on('error', reject)
    socket.on('close', () => resolve())
  })
}

describe('a client that closes the connection before its whole body arrived', () => {
  test('is the client’s doing: a 400 in the store’s inspector, never a 500, and nothing on the teacher’s terminal', async () => {
    const t = createTestApp({ settings: { rateLimitRps: '0' } })
    const w = await twoStores(t.call, t.deps)
    const app = t.app.listen({ hostname: '127.0.0.1', port: 0 })
    try {
      for (let i = 0; i < 3; i++) {
        await sendCutShort(app.server!.port!, '/v1/customers/login', { 'X-API-Key': w.A.key.apiKey, 'X-Request-Id': `cut-${i}` }, 1000, '{"email":"')
      }
      // The server records each call once it has failed; the client has gone by then.
      let entries: { status: number; errorCode: string; errorMessage: string }[] = []
      for (let waited = 0; entries.length < 3 && waited < 5000; waited += 20) {
        entries = (await expectOk(t.call('GET', '/v1/store/requests?path=/v1/customers/login', { headers: bearer(w.A.student) }))).data
        if (entries.length < 3) await Bun.sleep(20)
      }
      expect(entries.map((e) => [e.status, e.errorCode])).toEqual(Array(3).fill([400, 'VALIDATION_ERROR']))
      expect(entries[0]!.errorMessage).toStartWith('The connection closed before the whole request body arrived')
      expect(t.log.lines.filter((line) => line.includes('request failed'))).toEqual([])
    } finally {
      await app.stop()
    }
  })
})
