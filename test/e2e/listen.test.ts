import { beforeAll, describe, expect, test } from 'bun:test'
import { createHmac } from 'node:crypto'
import { verifyWebhook } from '../../examples/webhook-receiver'
import { ADMIN_TOKEN } from '../helpers/app'
import { track } from '../helpers/children'
import { storeCatalog } from '../helpers/catalog'
import { buildExecutable, emptyDir, overHttp, runExecutable, startExecutable, type Running } from '../helpers/executable'
import { buyer as buyerOf, registerBuyer } from '../helpers/orders'
import { startReceiver, waitFor } from '../helpers/receivers'
import { activeStudent, createGroup, createKey, expectOk } from '../helpers/world'
import { limit } from '../helpers/limits'

let bin: string

beforeAll(async () => {
  bin = await buildExecutable()
})

const serverArgs = ['--admin-token', ADMIN_TOKEN]

/** A group with a secret key, a publishable key, a published product and a buyer, through the API. */
async function shop(base: string) {
  const call = overHttp(base)
  await createGroup(call, 'Listen', [{ rm: 'l1001', name: 'Lia' }])
  const student = await activeStudent(call, 'l1001')
  const sk = (await createKey(call, student, 'app')).apiKey
  const pk = (await createKey(call, student, 'shop', 'publishable')).apiKey
  const product = await storeCatalog(call, sk).createProduct({ state: 'PUBLISHED', stock: 10 })
  const buyer = await registerBuyer(call, sk, 'lia@example.com')
  return { student, sk, pk, variantId: product.variants[0].id as string, buyerToken: buyer.headers.authorization!.slice('Bearer '.length) }
}

/** Buys and pays one unit through the server at `base`: an order.paid event. */
async function paidOrder(base: string, s: Awaited<ReturnType<typeof shop>>) {
  const buyer = buyerOf(overHttp(base), s.sk, s.buyerToken)
  const order = await buyer.buy(s.variantId)
  await expectOk(buyer.pay(order.id))
  return order.id as string
}

/**
 * A pass-through proxy the listener connects to: it follows the server across a restart (a new port
 * each time), and while paused answers 503, so the test decides when the listener may reconnect.
 */
function startProxy() {
  const state = { upstream: '', paused: false }
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    idleTimeout: 0,
    fetch(request) {
      if (state.paused) return new Response('paused by the test', { status: 503 })
      const url = new URL(request.url)
      return fetch(`${state.upstream}${url.pathname}${url.search}`, { method: request.method, headers: request.headers, redirect: 'manual' })
    },
  })
  return { state, url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) }
}

/** `storefront listen` running, with what it printed so far. */
function startListen(args: string[]) {
  const proc = track(Bun.spawn([bin, 'listen', ...args], { stdout: 'pipe', stderr: 'pipe', env: { PATH: process.env.PATH ?? '' } }))
  let out = ''
  const pump = (async () => {
    const decoder = new TextDecoder()
    for await (const chunk of proc.stdout) out += decoder.decode(chunk)
  })()
  return {
    proc,
    out: () => out,
    async stop() {
      proc.kill()
      await proc.exited
      await pump
    },
  }
}

describe('storefront listen (the executable)', () => {
  test("forwards a paid order's order.paid signed with the secret it printed, and after the server restarts gets the event written while it was away", async () => {
    const dir = emptyDir()
    const receiver = startReceiver()
    const proxy = startProxy()
    const servers: Running[] = []
    let listener: ReturnType<typeof startListen> | undefined
    try {
      servers.push(await startExecutable(bin, dir, serverArgs))
      proxy.state.upstream = servers[0]!.base
      const s = await shop(servers[0]!.base)
      listener = startListen(['--server', proxy.url, '--key', s.sk, '--forward-to', receiver.url, '--events', 'order.paid'])
      await waitFor(() => /Your webhook signing secret is whsec_/.test(listener!.out()), 10_000, 'the ready line')
      const secret = /signing secret is (whsec_[0-9a-z]+)/.exec(listener.out())![1]!
      expect(listener.out()).toContain(`Ready! Forwarding to ${receiver.url}.`)

      const first = await paidOrder(servers[0]!.base, s)
      await waitFor(() => receiver.received.length === 1, 10_000, 'the first order.paid at the receiver')
      const [got] = receiver.received
      const event = JSON.parse(got!.body)
      expect(event).toMatchObject({ type: 'order.paid', data: { orderId: first } })
      expect(Object.keys(event)).toEqual(['id', 'type', 'createdAt', 'data'])
      expect(got!.headers).toMatchObject({
        'content-type': 'application/json',
        'x-webhook-event': 'order.paid',
        'x-webhook-id': event.id,
        'user-agent': expect.stringMatching(/^Storefront-Webhooks\/\d/),
      })
      const timestamp = got!.headers['x-timestamp']!
      expect(Math.abs(Number(timestamp) - Date.now())).toBeLessThan(60_000)
      expect(got!.headers['x-signature']).toBe(`sha256=${createHmac('sha256', secret).update(`${timestamp}.${got!.body}`).digest('hex')}`)
      // The example receiver a group starts from accepts it with that secret.
      expect(verifyWebhook(secret, got!.body, new Headers(got!.headers))).toMatchObject({ id: event.id, type: 'order.paid' })
      await waitFor(() => listener!.out().includes(event.id), 5_000, 'the event line')
      expect(listener.out()).toMatch(new RegExp(`\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d  order\\.paid  ${event.id}  200 in \\d+ ms`))

      // The server restarts on the same data folder while the listener cannot reach it.
      proxy.state.paused = true
      expect(await servers[0]!.stop()).toBe(0)
      servers.push(await startExecutable(bin, dir, serverArgs))
      proxy.state.upstream = servers[1]!.base
      const listeners = await expectOk(overHttp(servers[1]!.base)('GET', '/v1/webhooks/listeners', { headers: { 'x-api-key': s.sk } }))
      expect(listeners.data).toEqual([])
      const second = await paidOrder(servers[1]!.base, s)
      // The listener meets the proxy answering 503 for its server, as a proxy does while the server behind
      // it restarts: that is waited out, not taken for a wrong --server.
      await waitFor(() => listener!.out().includes('the server answered 503; connecting again'), 10_000, 'a retry after the 503')
      proxy.state.paused = false

      await waitFor(() => receiver.received.length === 2, 20_000, 'the order.paid written while the listener was away')
      const missed = JSON.parse(receiver.received[1]!.body)
      expect(missed).toMatchObject({ type: 'order.paid', data: { orderId: second } })
      expect(missed.id).not.toBe(event.id)
      const r = receiver.received[1]!
      expect(r.headers['x-signature']).toBe(`sha256=${createHmac('sha256', secret).update(`${r.headers['x-timestamp']}.${r.body}`).digest('hex')}`)
      expect(listener.out()).toContain('connected again\n')
      expect(listener.out()).not.toContain('the signing secret is now')
      // Nothing came twice.
      await Bun.sleep(200)
      expect(receiver.received).toHaveLength(2)
    } finally {
      await listener?.stop()
      for (const server of servers) if (server.proc.exitCode === null) await server.stop()
      proxy.stop()
    }
  }, limit(60_000))

  test('a key the server does not know, or a publishable key, ends it at once with a message naming the key to use', async () => {
    const dir = emptyDir()
    const server = await startExecutable(bin, dir, serverArgs)
    try {
      const s = await shop(server.base)
      const forward = ['--server', server.base, '--forward-to', 'http://127.0.0.1:9/webhooks']
      const wrong = `${s.sk.slice(0, -4)}${s.sk.endsWith('zzzz') ? 'yyyy' : 'zzzz'}`
      const unknown = await runExecutable(bin, ['listen', ...forward, '--key', wrong])
      expect(unknown.code).toBe(1)
      expect(unknown.stderr).toBe(
        "storefront: the server refused the key: 401 UNAUTHENTICATED: This API key is not known. Check that you copied all of it, or create a new one in the store panel.\nstorefront: listen takes your store's secret key (sk_...) or a student token (stu_..., from logging in); check that you copied all of it\n",
      )
      const publishable = await runExecutable(bin, ['listen', ...forward, '--key', s.pk])
      expect(publishable.code).toBe(1)
      expect(publishable.stderr).toStartWith("storefront: 403 SECRET_KEY_REQUIRED: This route needs the store's secret key (sk_...)")
      expect(publishable.stderr).toEndWith(
        "storefront: listen takes your store's secret key (sk_...) or a student token (stu_..., from logging in), never the publishable key (pk_...): whoever holds the listen secret could forge your store's events\n",
      )
      const badEvent = await runExecutable(bin, ['listen', ...forward, '--key', s.sk, '--events', 'order.paid,order.shipped'])
      expect(badEvent.code).toBe(1)
      expect(badEvent.stderr).toContain("'order.shipped' is not an event a listener receives. Valid names: order.created, order.paid")
      // --server aimed at another server (the app, --forward-to's): said at once, not retried for ever.
      for (const status of [200, 404]) {
        const other = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response(status === 200 ? 'ok' : 'Not Found', { status }) })
        try {
          const swapped = await runExecutable(bin, ['listen', '--server', `http://127.0.0.1:${other.port}`, '--forward-to', server.base, '--key', s.sk])
          expect([swapped.code, swapped.stderr]).toEqual([
            1,
            `storefront: http://127.0.0.1:${other.port} does not look like a Storefront server: GET /v1/webhooks/listen answered ${status} (text/plain). --server is the class's Storefront (for example http://192.168.0.10:3000), --forward-to your app\n`,
          ])
        } finally {
          other.stop(true)
        }
      }
    } finally {
      await server.stop()
    }
  }, limit(60_000))
})
