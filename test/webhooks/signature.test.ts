import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { createHmac } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { verifyWebhook } from '../../examples/webhook-receiver'
import { eventBody, signature, signedHeaders, signedPayload } from '../../src/features/webhooks/signature'

const root = join(import.meta.dir, '..', '..')
const SECRET = 'whsec_test_0123456789abcdef0123456789'
const T = 1767225600000 // 2026-01-01T00:00:00.000Z
const PAID = { id: 'evt_000001', type: 'order.paid', createdAt: T, data: { orderId: 'ord_000001', total: 59.97 } }
const PAID_BODY = '{"id":"evt_000001","type":"order.paid","createdAt":"2026-01-01T00:00:00.000Z","data":{"orderId":"ord_000001","total":59.97}}'

/** HMAC-SHA256 by another implementation than the service's (Bun.CryptoHasher): node:crypto. */
const nodeSignature = (secret: string, text: string) => `sha256=${createHmac('sha256', secret).update(text, 'utf8').digest('hex')}`

describe('webhook signatures', () => {
  test('the body is the event as {id, type, createdAt, data}, byte for byte', () => {
    expect(eventBody(PAID)).toBe(PAID_BODY)
  })

  test('fixed vectors (computed with openssl dgst -sha256 -hmac)', () => {
    expect(signedPayload(T, PAID_BODY)).toBe(`1767225600000.${PAID_BODY}`)
    expect(signature(SECRET, signedPayload(T, PAID_BODY))).toBe('sha256=c09fae48abc7f6cb96f235d720e5e25b53703f72e91d4f048e9d55f119a5760a')
    const unicode = '{"id":"evt_x","type":"ping","createdAt":"2026-01-01T00:00:00.000Z","data":{"message":"olá, café ☕"}}'
    expect(signature(SECRET, signedPayload(T, unicode))).toBe('sha256=aedd764759a37040d10c9082cfcc85ae2b7ab9e691ad6deb676886697537ec9f')
    expect(signature('k', signedPayload(0, ''))).toBe('sha256=6b4a4b8b3c40f1e8f53a3d36682e5f99f7ad2ac1df1c93dfe336f329167641e7')
    // RFC 4231, test case 2: the HMAC itself.
    expect(signature('Jefe', 'what do ya want for nothing?')).toBe('sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843')
  })

  test('agrees with node:crypto for any secret, timestamp and body', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.nat(), fc.string({ unit: 'grapheme' }), (secret, timestamp, body) => {
        expect(signature(secret, signedPayload(timestamp, body))).toBe(nodeSignature(secret, `${timestamp}.${body}`))
      }),
      { numRuns: 300 },
    )
  })

  test('each attempt carries the documented headers, its own timestamp and a signature over exactly that text', () => {
    const a = signedHeaders(SECRET, PAID, PAID_BODY, T, 'Storefront-Webhooks/9.9.9')
    expect(a.headers).toEqual({
      'content-type': 'application/json',
      'user-agent': 'Storefront-Webhooks/9.9.9',
      'x-webhook-event': 'order.paid',
      'x-webhook-id': 'evt_000001',
      'x-timestamp': '1767225600000',
      'x-signature': 'sha256=c09fae48abc7f6cb96f235d720e5e25b53703f72e91d4f048e9d55f119a5760a',
    })
    expect(a.payload).toBe(`1767225600000.${PAID_BODY}`)
    const b = signedHeaders(SECRET, PAID, PAID_BODY, T + 10_000, 'Storefront-Webhooks/9.9.9')
    expect(b.headers['x-signature']).toBe(nodeSignature(SECRET, `${T + 10_000}.${PAID_BODY}`))
    expect(b.headers['x-signature']).not.toBe(a.headers['x-signature'])
  })
})

describe("the student guide's verification code (examples/webhook-receiver.ts)", () => {
  const headersFor = (timestamp: number | string, sig: string) => new Headers({ 'x-timestamp': String(timestamp), 'x-signature': sig })
  const good = nodeSignature(SECRET, `${T}.${PAID_BODY}`)

  test('is quoted in docs/student-guide.md exactly as it is tested', () => {
    const source = readFileSync(join(root, 'examples', 'webhook-receiver.ts'), 'utf8')
    const quoted = /\/\/ --- quoted in docs\/student-guide.md ---\n([\s\S]*?)\/\/ --- end of quote ---/.exec(source)![1]!
    expect(quoted.length).toBeGreaterThan(500)
    expect(readFileSync(join(root, 'docs', 'student-guide.md'), 'utf8')).toContain(quoted)
  })

  test('accepts a signed, fresh delivery and returns the event', () => {
    expect(verifyWebhook(SECRET, PAID_BODY, headersFor(T, good), T + 4 * 60_000)).toEqual({ ...PAID, createdAt: '2026-01-01T00:00:00.000Z' })
  })

  test('refuses a timestamp more than 5 minutes off, either way, or not a number', () => {
    expect(verifyWebhook(SECRET, PAID_BODY, headersFor(T, good), T + 5 * 60_000 + 1)).toBeNull()
    expect(verifyWebhook(SECRET, PAID_BODY, headersFor(T, good), T - 5 * 60_000 - 1)).toBeNull()
    const text = 'soon'
    expect(verifyWebhook(SECRET, PAID_BODY, headersFor(text, nodeSignature(SECRET, `${text}.${PAID_BODY}`)), T)).toBeNull()
  })

  test('refuses a changed body, another secret, a changed timestamp and a signature of another length', () => {
    expect(verifyWebhook(SECRET, PAID_BODY.replace('59.97', '0.01'), headersFor(T, good), T)).toBeNull()
    expect(verifyWebhook('whsec_other', PAID_BODY, headersFor(T, good), T)).toBeNull()
    expect(verifyWebhook(SECRET, PAID_BODY, headersFor(T + 1, good), T)).toBeNull()
    expect(verifyWebhook(SECRET, PAID_BODY, headersFor(T, good.slice(0, -1)), T)).toBeNull()
    expect(verifyWebhook(SECRET, PAID_BODY, headersFor(T, `${good.slice(0, -1)}é`), T)).toBeNull()
  })
})
