import { describe, expect, test } from 'bun:test'
import { createHmac } from 'node:crypto'
import { verifyWebhook } from '../../examples/webhook-receiver'
import { RETRY_DELAYS_MS } from '../../src/features/webhooks/deliveries'
import { eq } from 'drizzle-orm'
import { transactionsEnded } from '../../src/kernel/db/database'
import { outboxEvents } from '../../src/kernel/tables'
import { createTestApp } from '../helpers/app'
import { closedPortUrl, deliverDue, emit, startReceiver, waitFor } from '../helpers/receivers'
import { apiKey, expectOk, oneStore, twoStores } from '../helpers/world'
import { openListen } from './listen-stream'

/**
 * Real receivers on loopback (ALLOW_LOOPBACK_WEBHOOKS), a ManualClock for the retry schedule: the
 * test moves the clock and asks the dispatcher to send what is due.
 */
type TestApp = ReturnType<typeof createTestApp>

const setup = async () => {
  const t = createTestApp({ settings: { allowLoopbackWebhooks: true } })
  const store = await oneStore(t.call, t.deps, 'a')
  return { t, store, storeId: store.group.storeId as string, headers: apiKey(store.key.apiKey) }
}

const register = async (t: TestApp, headers: Record<string, string>, url: string, events: string[] = ['*']) =>
  expectOk<{ id: string; signingSecret: string }>(t.call('POST', '/v1/webhooks', { headers, body: { url, events } }), 201)

const deliveries = async (t: TestApp, headers: Record<string, string>, query = '') =>
  (await expectOk(t.call('GET', `/v1/webhooks/deliveries${query}`, { headers }))).data as any[]

const hmac = (secret: string, text: string) => `sha256=${createHmac('sha256', secret).update(text).digest('hex')}`

describe('webhook delivery to a real receiver', () => {
  test('an event arrives with the documented headers and body, signed over <timestamp>.<raw body>', async () => {
    const { t, storeId, headers } = await setup()
    const receiver = startReceiver()
    const hook = await register(t, headers, receiver.url, ['order.paid'])
    const eventId = emit(t.deps, storeId, 'order.paid', { orderId: 'ord_1', number: 7, total: 59.97 })
    await deliverDue(t.deps)

    expect(receiver.received).toHaveLength(1)
    const [got] = receiver.received
    const timestamp = String(t.clock.now())
    const body = `{"id":"${eventId}","type":"order.paid","createdAt":"${new Date(t.clock.now()).toISOString()}","data":{"orderId":"ord_1","number":7,"total":59.97}}`
    expect(got!.path).toBe('/hook')
    expect(got!.body).toBe(body)
    expect(got!.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': `Storefront-Webhooks/${t.deps.version}`,
      'x-webhook-event': 'order.paid',
      'x-webhook-id': eventId,
      'x-timestamp': timestamp,
      'x-signature': hmac(hook.signingSecret, `${timestamp}.${body}`),
    })
    expect(verifyWebhook(hook.signingSecret, got!.body, new Headers(got!.headers), t.clock.now())?.id).toBe(eventId)

    const [attempt] = await deliveries(t, headers)
    expect(attempt).toEqual({
      id: expect.stringMatching(/^dlv_/), webhookId: hook.id, eventId, eventType: 'order.paid', attempt: 1, status: 'SUCCEEDED', redelivery: false,
      scheduledAt: new Date(t.clock.now()).toISOString(), sentAt: new Date(t.clock.now()).toISOString(),
      responseStatus: 200, responseBody: 'ok', error: null, durationMs: expect.any(Number),
      requestHeaders: {
        'content-type': 'application/json', 'user-agent': `Storefront-Webhooks/${t.deps.version}`, 'x-webhook-event': 'order.paid',
        'x-webhook-id': eventId, 'x-timestamp': timestamp, 'x-signature': got!.headers['x-signature'],
      },
      signedPayload: `${timestamp}.${body}`, createdAt: new Date(t.clock.now()).toISOString(), nextRetryAt: null,
    })
    expect(attempt.durationMs).toBeLessThan(2000)
  })

  test("each endpoint gets the events it subscribed to, '*' gets them all, another store's endpoints none", async () => {
    const t = createTestApp({ settings: { allowLoopbackWebhooks: true } })
    const w = await twoStores(t.call, t.deps)
    const [paid, all, some, otherStore] = [startReceiver(), startReceiver(), startReceiver(), startReceiver()]
    await register(t, apiKey(w.A.key.apiKey), paid.url, ['order.paid'])
    await register(t, apiKey(w.A.key.apiKey), all.url, ['*'])
    await register(t, apiKey(w.A.key.apiKey), some.url, ['order.cancelled', 'product.low_stock'])
    await register(t, apiKey(w.B.key.apiKey), otherStore.url, ['*'])
    for (const type of ['order.paid', 'order.cancelled', 'review.created'] as const) emit(t.deps, w.A.group.storeId, type)
    await deliverDue(t.deps)
    const types = (r: ReturnType<typeof startReceiver>) => r.events().map((e) => e.type).sort()
    expect(types(paid)).toEqual(['order.paid'])
    expect(types(all)).toEqual(['order.cancelled', 'order.paid', 'review.created'])
    expect(types(some)).toEqual(['order.cancelled'])
    expect(types(otherStore)).toEqual([])
  })

  test('an event no endpoint subscribes to is written dispatched: no look of the dispatcher takes a transaction for it, and an endpoint registered later never gets it', async () => {
    const { t, storeId, headers } = await setup()
    // The store's listen secret is kept among its endpoints, subscribed to nothing.
    const stream = await openListen(t.app, headers)
    expect((await stream.next()).event).toBe('ready')
    await stream.close()
    const receiver = startReceiver()
    await register(t, headers, receiver.url, ['order.paid'])
    const dispatchedAt = (id: string) => t.deps.db.select({ at: outboxEvents.dispatchedAt }).from(outboxEvents).where(eq(outboxEvents.id, id)).get()!.at
    const cancelled = emit(t.deps, storeId, 'order.cancelled', { orderId: 'ord_1' })
    const paid = emit(t.deps, storeId, 'order.paid', { orderId: 'ord_2', total: 1 })
    const written = t.clock.now()
    expect([dispatchedAt(cancelled), dispatchedAt(paid)]).toEqual([written, null])

    t.clock.advance(1000)
    await deliverDue(t.deps)
    expect(receiver.events().map((e) => e.id)).toEqual([paid])
    expect(dispatchedAt(paid)).toBe(t.clock.now())
    // With nothing waiting, a look reads and writes nothing: no transaction ends.
    const ended = transactionsEnded(t.deps.sqlite)
    t.deps.webhooks.tick()
    expect(transactionsEnded(t.deps.sqlite)).toBe(ended)

    // An endpoint of every event, registered since: it gets the events written after it, and only those.
    const all = startReceiver()
    await register(t, headers, all.url, ['*'])
    const reviewed = emit(t.deps, storeId, 'review.created', { reviewId: 'rev_1' })
    expect(dispatchedAt(reviewed)).toBeNull()
    await deliverDue(t.deps)
    expect(all.events().map((e) => e.id)).toEqual([reviewed])
    expect(dispatchedAt(cancelled)).toBe(written)
  })

  test('a receiver that fails, then recovers, gets the same event again 10 s later, signed afresh', async () => {
    const { t, storeId, headers } = await setup()
    const receiver = startReceiver((_, n) => (n === 1 ? new Response('boom', { status: 500 }) : new Response('thanks')))
    const hook = await register(t, headers, receiver.url)
    const eventId = emit(t.deps, storeId, 'order.paid', { orderId: 'ord_1', total: 10 })
    await deliverDue(t.deps)
    const failedAt = t.clock.now()
    const [retry, first] = await deliveries(t, headers)
    expect(first).toMatchObject({
      attempt: 1, status: 'FAILED', responseStatus: 500, responseBody: 'boom', nextRetryAt: new Date(failedAt + 10_000).toISOString(),
      error: 'status: answered 500; only a 2xx answer counts as delivered',
    })
    expect(retry).toMatchObject({ attempt: 2, status: 'PENDING', eventId, scheduledAt: new Date(failedAt + 10_000).toISOString(), sentAt: null })

    t.clock.advance(9_999)
    await deliverDue(t.deps)
    expect(receiver.received).toHaveLength(1)
    t.clock.advance(1)
    await deliverDue(t.deps)
    expect(receiver.received).toHaveLength(2)

    const [a, b] = receiver.received
    expect(b!.body).toBe(a!.body)
    expect(b!.headers['x-webhook-id']).toBe(eventId)
    expect(Number(b!.headers['x-timestamp']) - Number(a!.headers['x-timestamp'])).toBe(10_000)
    expect(b!.headers['x-signature']).toBe(hmac(hook.signingSecret, `${b!.headers['x-timestamp']}.${b!.body}`))
    expect(b!.headers['x-signature']).not.toBe(a!.headers['x-signature'])
    const [second] = await deliveries(t, headers)
    expect(second).toMatchObject({ attempt: 2, status: 'SUCCEEDED', responseStatus: 200, responseBody: 'thanks', error: null, nextRetryAt: null })
  })

  test('a receiver that never succeeds is tried 7 times, after 10 s, 1 min, 5 min, 30 min, 2 h, 6 h, then FAILED for good', async () => {
    const { t, storeId, headers } = await setup()
    const url = closedPortUrl()
    await register(t, headers, url)
    emit(t.deps, storeId, 'order.paid', { orderId: 'ord_1', total: 10 })
    const start = t.clock.now()
    await deliverDue(t.deps)
    for (const delay of RETRY_DELAYS_MS) {
      t.clock.advance(delay - 1)
      await deliverDue(t.deps)
      t.clock.advance(1)
      await deliverDue(t.deps)
    }
    t.clock.advance(24 * 60 * 60_000)
    await deliverDue(t.deps)

    const log = (await deliveries(t, headers, '?pageSize=100')).reverse()
    expect(RETRY_DELAYS_MS).toEqual([10_000, 60_000, 300_000, 1_800_000, 7_200_000, 21_600_000])
    expect(log.map((d) => d.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7])
    expect(log.every((d) => d.status === 'FAILED')).toBe(true)
    const sent = log.map((d) => Date.parse(d.sentAt) - start)
    expect(sent).toEqual([0, 10_000, 70_000, 370_000, 2_170_000, 9_370_000, 30_970_000])
    expect(log.map((d) => d.nextRetryAt && Date.parse(d.nextRetryAt) - start)).toEqual([...sent.slice(1), null])
    const port = new URL(url).port
    expect(log[0].error).toBe(`connection refused: nothing listens on 127.0.0.1:${port}; is your app running on that port?`)
    expect(log[0].responseStatus).toBeNull()
  })

  test('redirects are not followed: a 302 is a failed attempt that names where it pointed', async () => {
    const { t, storeId, headers } = await setup()
    const receiver = startReceiver((request) =>
      new URL(request.url).pathname === '/hook' ? new Response('moved', { status: 302, headers: { location: '/final' } }) : new Response('ok'),
    )
    await register(t, headers, receiver.url)
    emit(t.deps, storeId, 'order.paid')
    await deliverDue(t.deps)
    expect(receiver.received.map((r) => r.path)).toEqual(['/hook'])
    const [, first] = await deliveries(t, headers)
    expect(first).toMatchObject({
      status: 'FAILED', responseStatus: 302, responseBody: 'moved',
      error: 'redirect: answered 302 to /final; redirects are not followed, register the final URL',
    })
  })

  test('the log keeps the first 2 KB of the answer', async () => {
    const { t, storeId, headers } = await setup()
    const receiver = startReceiver(() => new Response('é'.repeat(1500) + 'x'.repeat(3000)))
    await register(t, headers, receiver.url)
    emit(t.deps, storeId, 'order.paid')
    await deliverDue(t.deps)
    const [attempt] = await deliveries(t, headers)
    expect(attempt.status).toBe('SUCCEEDED')
    expect(Buffer.byteLength(attempt.responseBody)).toBe(2048)
    expect(attempt.responseBody).toBe('é'.repeat(1024))
  })

  test('a receiver that does not speak TLS on an https:// URL is a tls error', async () => {
    const { t, storeId, headers } = await setup()
    const receiver = startReceiver()
    await register(t, headers, `https://127.0.0.1:${receiver.port}/hook`)
    emit(t.deps, storeId, 'order.paid')
    await deliverDue(t.deps)
    const [, first] = await deliveries(t, headers)
    expect(first.status).toBe('FAILED')
    expect(first.error).toStartWith('tls: ')
    expect(first.error).toEndWith('(the receiver needs a certificate this server trusts, or use http:// where allowed)')
  })

  test('a name that resolves to a forbidden address at send time is refused, not sent to', async () => {
    const { t, storeId, headers } = await setup()
    const receiver = startReceiver()
    let address = '127.0.0.1'
    t.deps.webhooks.resolve = async () => [address]
    await register(t, headers, `http://shop.lab.test:${receiver.port}/hook`)
    address = '169.254.169.254' // the name now points at the cloud metadata service
    emit(t.deps, storeId, 'order.paid')
    await deliverDue(t.deps)
    expect(receiver.received).toEqual([])
    const [retry, first] = await deliveries(t, headers)
    expect(first).toMatchObject({
      status: 'FAILED', responseStatus: null,
      error: 'refused target: 169.254.169.254 is a link-local, metadata or non-host address, which webhooks never target (the name shop.lab.test resolves to it)',
    })
    expect(retry.status).toBe('PENDING')
  })

  test('a name is sent to the address that was checked, not resolved again: a second answer that differs is never used', async () => {
    const { t, storeId, headers } = await setup()
    const receiver = startReceiver()
    t.deps.webhooks.resolve = async () => ['127.0.0.1']
    await register(t, headers, `http://shop.lab.test:${receiver.port}/hook`)
    // From now on the name answers the receiver's address once, then an address where nothing listens.
    const asked: string[] = []
    t.deps.webhooks.resolve = async (host) => {
      asked.push(host)
      return asked.length === 1 ? ['127.0.0.1'] : ['127.0.0.2']
    }
    emit(t.deps, storeId, 'order.paid')
    await deliverDue(t.deps)
    expect(asked).toEqual(['shop.lab.test'])
    expect(receiver.received).toHaveLength(1)
    // The receiver still sees its own name, as it would through DNS.
    expect(receiver.received[0]!.headers.host).toBe(`shop.lab.test:${receiver.port}`)
    const [attempt] = await deliveries(t, headers)
    expect(attempt).toMatchObject({ status: 'SUCCEEDED', responseStatus: 200, responseBody: 'ok', error: null })
  })

  test('of a name\'s checked addresses, the next is tried when one refuses the connection', async () => {
    const { t, storeId, headers } = await setup()
    const receiver = startReceiver()
    // The receiver listens on 127.0.0.1 only: ::1 (or, without IPv6, no route) refuses first.
    t.deps.webhooks.resolve = async () => ['::1', '127.0.0.1']
    await register(t, headers, `http://shop.lab.test:${receiver.port}/hook`)
    emit(t.deps, storeId, 'order.paid')
    await deliverDue(t.deps)
    expect(receiver.received).toHaveLength(1)
    expect((await deliveries(t, headers))[0]).toMatchObject({ status: 'SUCCEEDED', responseStatus: 200 })
  })

  test('an endpoint whose name does not resolve is kept, each attempt logs the resolution error, and the address rules hold once it resolves', async () => {
    const { t, storeId, headers } = await setup()
    let resolved: string[] | undefined
    t.deps.webhooks.resolve = async () => {
      if (resolved) return resolved
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' })
    }
    await register(t, headers, 'https://not-yet.lab.test/hook')
    emit(t.deps, storeId, 'order.paid')
    await deliverDue(t.deps)
    const [retry, first] = await deliveries(t, headers)
    expect(first).toMatchObject({
      status: 'FAILED', responseStatus: null, nextRetryAt: new Date(t.clock.now() + 10_000).toISOString(),
      error: "dns: the host name 'not-yet.lab.test' could not be resolved (ENOTFOUND); check its spelling, or use the IP address",
    })
    expect(retry.status).toBe('PENDING')
    // The name now exists, and points at the cloud metadata service: the retry is refused, not sent.
    resolved = ['169.254.169.254']
    t.clock.advance(10_000)
    await deliverDue(t.deps)
    const [, second] = await deliveries(t, headers)
    expect(second).toMatchObject({
      id: retry.id, status: 'FAILED', responseStatus: null,
      error: 'refused target: 169.254.169.254 is a link-local, metadata or non-host address, which webhooks never target (the name not-yet.lab.test resolves to it)',
    })
  })

  test('redeliver sends the same event once more, now, and does not retry it', async () => {
    const { t, storeId, headers } = await setup()
    const receiver = startReceiver((_, n) => (n === 1 ? new Response('ok') : new Response('down', { status: 503 })))
    const hook = await register(t, headers, receiver.url)
    const eventId = emit(t.deps, storeId, 'order.paid', { orderId: 'ord_1', total: 10 })
    await deliverDue(t.deps)
    const [first] = await deliveries(t, headers)
    t.clock.advance(60_000)
    const queued = await expectOk(t.call('POST', `/v1/webhooks/deliveries/${first.id}/redeliver`, { headers }), 202)
    expect(queued).toEqual({ eventId, deliveryId: expect.stringMatching(/^dlv_/) })
    await deliverDue(t.deps)
    expect(receiver.received).toHaveLength(2)
    expect(receiver.received[1]!.body).toBe(receiver.received[0]!.body)
    expect(receiver.received[1]!.headers['x-timestamp']).toBe(String(t.clock.now()))
    const log = await deliveries(t, headers)
    expect(log).toHaveLength(2)
    expect(log[0]).toMatchObject({ id: queued.deliveryId, webhookId: hook.id, eventId, attempt: 2, redelivery: true, status: 'FAILED', responseStatus: 503, nextRetryAt: null })
  })

  test('a ping reaches only its endpoint, as a signed ping event', async () => {
    const { t, headers } = await setup()
    const [one, two] = [startReceiver(), startReceiver()]
    const hook = await register(t, headers, one.url)
    await register(t, headers, two.url)
    const ping = await expectOk(t.call('POST', `/v1/webhooks/${hook.id}/ping`, { headers }), 202)
    await deliverDue(t.deps)
    expect(two.received).toEqual([])
    expect(one.events()).toEqual([
      { id: ping.eventId, type: 'ping', createdAt: new Date(t.clock.now()).toISOString(), data: { webhookId: hook.id, message: 'Hello from Storefront: your endpoint is reachable.' } },
    ])
    expect(one.received[0]!.headers['x-webhook-event']).toBe('ping')
    expect(verifyWebhook(hook.signingSecret, one.received[0]!.body, new Headers(one.received[0]!.headers), t.clock.now())).not.toBeNull()
  })

  test('once started, the dispatcher sends attempts left pending and new events without being asked', async () => {
    const { t, storeId, headers } = await setup()
    const receiver = startReceiver()
    const hook = await register(t, headers, receiver.url)
    const before = await expectOk(t.call('POST', `/v1/webhooks/${hook.id}/ping`, { headers }), 202)
    t.deps.webhooks.start()
    const after = emit(t.deps, storeId, 'order.cancelled', { orderId: 'ord_9' })
    await waitFor(() => receiver.received.length === 2, 2000, 'both deliveries')
    expect(receiver.events().map((e) => e.id).sort()).toEqual([before.eventId, after].sort())
  })
})
