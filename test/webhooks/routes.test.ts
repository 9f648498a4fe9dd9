import { describe, expect, test } from 'bun:test'
import { createHmac } from 'node:crypto'
import { fanOut } from '../../src/features/webhooks/deliveries'
import { MAX_ENDPOINTS_PER_STORE } from '../../src/features/webhooks/service'
import { EVENT_TYPES } from '../../src/kernel/events'
import { createTestApp } from '../helpers/app'
import { emit } from '../helpers/receivers'
import { apiKey, bearer, expectOk, oneStore, twoStores } from '../helpers/world'

type TestApp = ReturnType<typeof createTestApp>

const LOOPBACK_REFUSED = 'is a loopback address (this machine), allowed only when the server runs with --allow-loopback-webhooks (on by default for a personal copy listening on 127.0.0.1)'

const EVENT_LIST = 'order.created, order.paid, order.cancelled, order.refunded, product.low_stock, shipment.updated, review.created, ping, or "*" for all of them (GET /v1/webhooks/events describes each)'

async function storeWithKey(t: TestApp) {
  const store = await oneStore(t.call, t.deps, 'a')
  return { ...store, headers: apiKey(store.key.apiKey) }
}

const register = (t: TestApp, headers: Record<string, string>, body: unknown) => t.call('POST', '/v1/webhooks', { headers, body })

async function expectUrlRefused(t: TestApp, headers: Record<string, string>, url: string, message: string) {
  const res = await register(t, headers, { url, events: ['*'] })
  expect(res.status).toBe(400)
  expect(res.body.error).toEqual({ code: 'VALIDATION_ERROR', message: `Invalid request body: url: ${message}.`, details: [{ path: 'url', message }] })
}

describe('webhook endpoints', () => {
  test('GET /webhooks/events lists the one table of event names with their descriptions', async () => {
    const t = createTestApp()
    const { headers } = await storeWithKey(t)
    const res = await expectOk(t.call('GET', '/v1/webhooks/events', { headers }))
    const all = Object.entries(EVENT_TYPES).map(([name, description]) => ({ name, description }))
    expect(res).toEqual({ data: all, page: 1, pageSize: 100, total: all.length })
    expect(res.data.map((e: any) => e.name)).toEqual(['order.created', 'order.paid', 'order.cancelled', 'order.refunded', 'product.low_stock', 'shipment.updated', 'review.created', 'ping'])
  })

  test('registration answers 201 with the signing secret once; the list never shows it', async () => {
    const t = createTestApp()
    const { headers, student } = await storeWithKey(t)
    const created = await expectOk(
      register(t, headers, { url: 'https://10.0.0.7:8443/hooks', events: ['order.paid', 'order.cancelled', 'order.paid'], description: 'orders' }),
      201,
    )
    expect(created).toEqual({
      id: expect.stringMatching(/^whk_[0-9a-z]{20}$/),
      url: 'https://10.0.0.7:8443/hooks',
      events: ['order.paid', 'order.cancelled'],
      description: 'orders',
      signingSecret: expect.stringMatching(/^whsec_[0-9a-z]{32}$/),
      createdAt: new Date(t.clock.now()).toISOString(),
    })
    const all = await expectOk(register(t, bearer(student), { url: 'https://10.0.0.8/x', events: ['*', 'order.paid'] }), 201)
    expect(all.events).toEqual(['*'])
    expect(all.description).toBeNull()

    const list = await t.call('GET', '/v1/webhooks/', { headers })
    expect(list.status).toBe(200)
    const { signingSecret: _, ...shown } = created
    expect(list.body).toEqual({ data: [shown, { ...all, signingSecret: undefined }].map((e) => JSON.parse(JSON.stringify(e))), page: 1, pageSize: 20, total: 2 })
    expect(list.text).not.toContain('whsec_')
  })

  test('an unknown event name is a 400 that lists the valid names', async () => {
    const t = createTestApp()
    const { headers } = await storeWithKey(t)
    const res = await register(t, headers, { url: 'https://10.0.0.7/x', events: ['order.paid', 'order.payed'] })
    expect(res.status).toBe(400)
    const message = `'order.payed' is not an event name. Valid names: ${EVENT_LIST}`
    expect(res.body.error).toEqual({
      code: 'VALIDATION_ERROR',
      message: `Invalid request body: events.1: ${message}. The expected shape of this route is in /docs.`,
      details: [{ path: 'events.1', message }],
    })
    const empty = await register(t, headers, { url: 'https://10.0.0.7/x', events: [] })
    expect(empty.body.error.details).toEqual([{ path: 'events', message: 'list at least one event name, or ["*"] for all events' }])
    // One name, or "*", without the list around it: the message shows the list to write.
    const bare = await register(t, headers, { url: 'https://10.0.0.7/x', events: 'order.paid' })
    expect(bare.body.error.details).toEqual([{ path: 'events', message: 'events is a list of event names, e.g. ["order.paid"], or ["*"] for all events: put "order.paid" in [ ]' }])
    const star = await register(t, headers, { url: 'https://10.0.0.7/x', events: '*' })
    expect(star.body.error.details).toEqual([{ path: 'events', message: 'events is a list of event names, e.g. ["order.paid"], or ["*"] for all events: put "*" in [ ]' }])
    const extra = await register(t, headers, { url: 'https://10.0.0.7/x', events: ['*'], secret: 'mine' })
    expect(extra.body.error.details).toEqual([{ path: 'secret', message: 'unknown or read-only field; remove it' }])
  })

  test('with neither switch only https:// to a non-loopback address is accepted', async () => {
    const t = createTestApp()
    const { headers } = await storeWithKey(t)
    const httpsOnly = 'the URL must start with https:// (this server was not started with --allow-insecure-webhooks, which would also admit http:// on the LAN)'
    await expectUrlRefused(t, headers, 'http://10.0.0.7/x', httpsOnly)
    await expectUrlRefused(t, headers, 'ftp://10.0.0.7/x', httpsOnly)
    await expectUrlRefused(t, headers, 'my-app/webhooks', "'my-app/webhooks' is not a URL; write it in full, e.g. https://my-app.example/webhooks")
    const loopback = (a: string) => `${a} ${LOOPBACK_REFUSED}`
    await expectUrlRefused(t, headers, 'https://127.0.0.1:4000/x', loopback('127.0.0.1'))
    await expectUrlRefused(t, headers, 'https://[::1]:4000/x', loopback('::1'))
    // LAN addresses are where the group apps live.
    await expectOk(register(t, headers, { url: 'https://192.168.1.20/x', events: ['*'] }), 201)
  })

  test('ALLOW_INSECURE_WEBHOOKS admits http:// to the LAN but not to loopback: the teacher\'s own machine stays out of reach', async () => {
    const t = createTestApp({ settings: { allowInsecureWebhooks: true } })
    const { headers } = await storeWithKey(t)
    await expectOk(register(t, headers, { url: 'http://10.0.0.7/x', events: ['*'] }), 201)
    await expectUrlRefused(t, headers, 'http://127.0.0.1:4000/x', `127.0.0.1 ${LOOPBACK_REFUSED}`)
    await expectUrlRefused(t, headers, 'http://[::ffff:127.0.0.1]:4000/x', `::ffff:7f00:1 is 127.0.0.1 written as IPv6 (IPv4-mapped), which ${LOOPBACK_REFUSED}`)
    await expectUrlRefused(t, headers, 'https://127.0.0.1:4000/x', `127.0.0.1 ${LOOPBACK_REFUSED}`)
  })

  test('ALLOW_INSECURE_WEBHOOKS admits http:// to the LAN only: an internet address, or a name that resolves to one, still needs https://', async () => {
    const t = createTestApp({ settings: { allowInsecureWebhooks: true } })
    const { headers } = await storeWithKey(t)
    t.deps.webhooks.resolve = async (host) => ({ 'app.example.com': ['93.184.216.34'], 'mixed.lab.test': ['192.168.0.9', '8.8.8.8'] })[host] ?? []
    const notLan = (a: string) => `${a} is not a LAN address (10.x, 172.16-31.x, 192.168.x, 100.64-127.x or IPv6 fc00::/7), and http:// goes only to the LAN, even with --allow-insecure-webhooks; use https://`
    await expectUrlRefused(t, headers, 'http://93.184.216.34/x', notLan('93.184.216.34'))
    await expectUrlRefused(t, headers, 'http://[2606:2800:220:1::1]/x', notLan('2606:2800:220:1::1'))
    await expectUrlRefused(t, headers, 'http://[::ffff:8.8.8.8]/x', `::ffff:808:808 is 8.8.8.8 written as IPv6 (IPv4-mapped), which ${notLan('').trimStart()}`)
    await expectUrlRefused(t, headers, 'http://app.example.com/x', `${notLan('93.184.216.34')} (the name app.example.com resolves to it)`)
    await expectUrlRefused(t, headers, 'http://mixed.lab.test/x', `${notLan('8.8.8.8')} (the name mixed.lab.test resolves to it)`)
    await expectUrlRefused(t, headers, 'http://172.32.0.1/x', notLan('172.32.0.1'))
    for (const url of ['http://10.1.2.3/x', 'http://172.16.0.1/x', 'http://172.31.255.254/x', 'http://192.168.0.9:8080/x', 'http://100.64.0.7/x', 'http://[fd12:3456::7]/x', 'https://93.184.216.34/x', 'https://app.example.com/x']) {
      expect([url, (await register(t, headers, { url, events: ['*'] })).status]).toEqual([url, 201])
    }
  })

  test('ALLOW_LOOPBACK_WEBHOOKS admits loopback (http:// too) but no other http://, and never link-local, metadata or the server itself', async () => {
    const t = createTestApp({ settings: { allowLoopbackWebhooks: true } })
    const { headers } = await storeWithKey(t)
    await expectOk(register(t, headers, { url: 'http://127.0.0.1:4000/x', events: ['*'] }), 201)
    await expectOk(register(t, headers, { url: 'https://[::1]:4000/x', events: ['*'] }), 201)
    await expectUrlRefused(t, headers, 'http://10.0.0.7/x', '10.0.0.7 is not loopback, and this server allows http:// only to loopback (it was not started with --allow-insecure-webhooks); use https://')
    const never = (a: string) => `${a} is a link-local, metadata or non-host address, which webhooks never target`
    await expectUrlRefused(t, headers, 'http://169.254.169.254/latest/meta-data', never('169.254.169.254'))
    await expectUrlRefused(t, headers, 'http://[fe80::1]/x', never('fe80::1'))
    await expectUrlRefused(t, headers, 'http://0.0.0.0:4000/x', never('0.0.0.0'))
    // The test deps listen on port 3000 with the public URL http://localhost:3000.
    await expectUrlRefused(t, headers, 'http://127.0.0.1:3000/v1/webhooks', '127.0.0.1 is this Storefront server itself (port 3000); a webhook must point to your own app')
    await expectUrlRefused(t, headers, 'http://localhost:3000/x', 'localhost:3000 is this Storefront server itself; a webhook must point to your own app')
  })

  test('IPv6 forms that carry a refused IPv4 address, and cloud metadata addresses, are refused with both switches on', async () => {
    const t = createTestApp({ settings: { allowInsecureWebhooks: true, allowLoopbackWebhooks: true } })
    const { headers } = await storeWithKey(t)
    const never = 'a link-local, metadata or non-host address, which webhooks never target'
    const cases: [string, string][] = [
      ['http://[::127.0.0.1]:3000/x', '::7f00:1 is 127.0.0.1 written as IPv6 (IPv4-compatible), which is this Storefront server itself (port 3000); a webhook must point to your own app'],
      ['http://[::a9fe:a9fe]/x', `::a9fe:a9fe is 169.254.169.254 written as IPv6 (IPv4-compatible), which is ${never}`],
      ['http://[::ffff:169.254.169.254]/x', `::ffff:a9fe:a9fe is 169.254.169.254 written as IPv6 (IPv4-mapped), which is ${never}`],
      ['http://[64:ff9b::a9fe:a9fe]/x', `64:ff9b::a9fe:a9fe is 169.254.169.254 written as IPv6 (NAT64), which is ${never}`],
      ['http://[64:ff9b:1:a9fe:a9:fe00::]/x', '64:ff9b:1:a9fe:a9:fe00:: is a local-use NAT64 address (64:ff9b:1::/48), whose IPv4 address cannot be checked, which webhooks never target'],
      ['http://[2002:a9fe:a9fe::]/x', `2002:a9fe:a9fe:: is 169.254.169.254 written as IPv6 (6to4), which is ${never}`],
      ['http://[2001:0:4136:e378:8000:63bf:5601:5601]/x', `2001:0:4136:e378:8000:63bf:5601:5601 is 169.254.169.254 written as IPv6 (Teredo), which is ${never}`],
      ['http://100.100.100.200/latest/meta-data', `100.100.100.200 is ${never}`],
      ['http://[fd00:ec2::254]/latest/meta-data', `fd00:ec2::254 is ${never}`],
      ['http://168.63.129.16/machine', `168.63.129.16 is ${never}`],
    ]
    for (const [url, message] of cases) await expectUrlRefused(t, headers, url, message)
    // The same forms carrying a LAN address are that LAN address.
    await expectOk(register(t, headers, { url: 'http://[::ffff:10.0.0.7]/x', events: ['*'] }), 201)
    await expectOk(register(t, headers, { url: 'http://[64:ff9b::10.0.0.7]/x', events: ['*'] }), 201)
  })

  test('a host name is checked on the addresses it resolves to; one that does not resolve yet is accepted', async () => {
    const t = createTestApp({ settings: { allowInsecureWebhooks: true } })
    const { headers } = await storeWithKey(t)
    const names: Record<string, string[]> = { 'metadata.lab.test': ['10.0.0.9', '169.254.169.254'], 'app.lab.test': ['10.0.0.9'], 'mapped.lab.test': ['::ffff:127.0.0.1'] }
    t.deps.webhooks.resolve = async (host) => {
      if (!names[host]) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' })
      return names[host]
    }
    await expectUrlRefused(t, headers, 'https://metadata.lab.test/x', '169.254.169.254 is a link-local, metadata or non-host address, which webhooks never target (the name metadata.lab.test resolves to it)')
    await expectUrlRefused(t, headers, 'https://mapped.lab.test/x', `::ffff:127.0.0.1 is 127.0.0.1 written as IPv6 (IPv4-mapped), which ${LOOPBACK_REFUSED} (the name mapped.lab.test resolves to it)`)
    await expectOk(register(t, headers, { url: 'https://app.lab.test/x', events: ['*'] }), 201)
    // The app's name may be set up after the endpoint: each attempt will log the resolution error meanwhile.
    const later = await expectOk(register(t, headers, { url: 'https://nowhere.lab.test/x', events: ['*'] }), 201)
    expect(later.url).toBe('https://nowhere.lab.test/x')
  })

  test(`the ${MAX_ENDPOINTS_PER_STORE + 1}th endpoint of a store is 409 LIMIT_REACHED naming the limit; another store is not affected`, async () => {
    const t = createTestApp()
    const w = await twoStores(t.call, t.deps)
    const a = apiKey(w.A.key.apiKey)
    for (let i = 0; i < MAX_ENDPOINTS_PER_STORE; i++) await expectOk(register(t, a, { url: `https://10.0.0.7/hook-${i}`, events: ['*'] }), 201)
    const over = await register(t, a, { url: 'https://10.0.0.7/one-more', events: ['*'] })
    expect(over.status).toBe(409)
    expect(over.body.error).toEqual({
      code: 'LIMIT_REACHED',
      message:
        'This store already has 10 webhook endpoints, and 10 is the most a store may have. Delete one you no longer use (DELETE /v1/webhooks/:id) before adding another; one endpoint can take several events, or all of them with ["*"].',
      details: [{ limit: 10, current: 10 }],
    })
    expect((await expectOk(t.call('GET', '/v1/webhooks', { headers: a }))).total).toBe(10)
    await expectOk(register(t, apiKey(w.B.key.apiKey), { url: 'https://10.0.0.8/x', events: ['*'] }), 201)
    // Deleting one makes room again.
    const first = (await expectOk(t.call('GET', '/v1/webhooks', { headers: a }))).data[0]
    expect((await t.call('DELETE', `/v1/webhooks/${first.id}`, { headers: a })).status).toBe(204)
    await expectOk(register(t, a, { url: 'https://10.0.0.7/one-more', events: ['*'] }), 201)
  })

  test('delete answers 204, then 404; the endpoint and its deliveries are gone', async () => {
    const t = createTestApp()
    const { headers } = await storeWithKey(t)
    const hook = await expectOk(register(t, headers, { url: 'https://10.0.0.7/x', events: ['*'] }), 201)
    const ping = await expectOk(t.call('POST', `/v1/webhooks/${hook.id}/ping`, { headers }), 202)
    expect(ping).toEqual({ eventId: expect.stringMatching(/^evt_/), deliveryId: expect.stringMatching(/^dlv_/) })
    const deleted = await t.call('DELETE', `/v1/webhooks/${hook.id}`, { headers })
    expect(deleted.status).toBe(204)
    expect(deleted.text).toBe('')
    const again = await t.call('DELETE', `/v1/webhooks/${hook.id}`, { headers })
    expect(again.status).toBe(404)
    expect(again.body.error.message).toBe(`No webhook endpoint with id '${hook.id}' in this store. Check the id; GET /v1/webhooks lists them.`)
    expect((await expectOk(t.call('GET', '/v1/webhooks', { headers }))).total).toBe(0)
    expect((await expectOk(t.call('GET', '/v1/webhooks/deliveries', { headers }))).total).toBe(0)
  })

  test('an id of another kind where a webhook endpoint id belongs is a 404 that names its kind, and a long id is quoted cut short', async () => {
    const t = createTestApp()
    const { headers } = await storeWithKey(t)
    const product = await expectOk(t.call('POST', '/v1/products', { headers, body: { name: 'Mug', sku: 'MUG-1', price: 10, stock: 1 } }), 201)
    const says = (id: string, kind: string) =>
      `No webhook endpoint with id '${id}' in this store. '${id}' is ${kind} id, not a webhook endpoint id. Check the id; GET /v1/webhooks lists them.`
    for (const [method, path, body] of [
      ['DELETE', `/v1/webhooks/${product.id}`],
      ['POST', `/v1/webhooks/${product.id}/ping`],
      ['POST', `/v1/webhooks/${product.id}/sign`, { timestamp: 1, body: '{}' }],
    ] as const) {
      const res = await t.call(method, path, { headers, body })
      expect(res.status).toBe(404)
      expect(res.body.error).toEqual({ code: 'NOT_FOUND', message: says(product.id, 'a product') })
    }
    const variant = product.variants[0].id
    expect((await t.call('DELETE', `/v1/webhooks/${variant}`, { headers })).body.error.message).toBe(says(variant, 'a variant'))
    // A delivery id says so too: its own route is /v1/webhooks/deliveries/:id/redeliver.
    const hook = await expectOk(register(t, headers, { url: 'https://10.0.0.7/x', events: ['*'] }), 201)
    const { deliveryId } = await expectOk(t.call('POST', `/v1/webhooks/${hook.id}/ping`, { headers }), 202)
    expect((await t.call('POST', `/v1/webhooks/${deliveryId}/ping`, { headers })).body.error.message).toBe(says(deliveryId, 'a webhook delivery'))
    // Like every 404, it quotes at most 80 characters of what was sent.
    const long = `whk_${'x'.repeat(300)}`
    expect((await t.call('DELETE', `/v1/webhooks/${long}`, { headers })).body.error.message).toBe(
      `No webhook endpoint with id '${long.slice(0, 80)}…' in this store. Check the id; GET /v1/webhooks lists them.`,
    )
  })

  test('POST /webhooks/:id/sign gives the signature of that endpoint for any timestamp and raw body', async () => {
    const t = createTestApp()
    const { headers } = await storeWithKey(t)
    const hook = await expectOk(register(t, headers, { url: 'https://10.0.0.7/x', events: ['*'] }), 201)
    const body = '{"id":"evt_1","type":"order.paid","data":{"total":10}}'
    const expected = `sha256=${createHmac('sha256', hook.signingSecret).update(`1767225600000.${body}`).digest('hex')}`
    for (const timestamp of [1767225600000, '1767225600000']) {
      const signed = await expectOk(t.call('POST', `/v1/webhooks/${hook.id}/sign`, { headers, body: { timestamp, body } }))
      expect(signed).toEqual({ signedPayload: `1767225600000.${body}`, signature: expected })
    }
    const parsed = await t.call('POST', `/v1/webhooks/${hook.id}/sign`, { headers, body: { timestamp: 1, body: { id: 'evt_1' } } })
    expect(parsed.status).toBe(400)
    expect(parsed.body.error.details[0].path).toBe('body')
  })
})

describe('the deliveries log', () => {
  test('a ping is a PENDING first attempt of a ping event, to that endpoint only', async () => {
    const t = createTestApp()
    const { headers } = await storeWithKey(t)
    const one = await expectOk(register(t, headers, { url: 'https://10.0.0.7/one', events: ['*'] }), 201)
    await expectOk(register(t, headers, { url: 'https://10.0.0.7/two', events: ['*'] }), 201)
    const ping = await expectOk(t.call('POST', `/v1/webhooks/${one.id}/ping`, { headers }), 202)
    fanOut(t.deps.db, t.deps.ids, t.clock.now(), 100) // the ping is not fanned out to the other endpoint
    const log = await expectOk(t.call('GET', '/v1/webhooks/deliveries', { headers }))
    const now = new Date(t.clock.now()).toISOString()
    expect(log).toEqual({
      data: [
        {
          id: ping.deliveryId, webhookId: one.id, eventId: ping.eventId, eventType: 'ping', attempt: 1, status: 'PENDING', redelivery: false,
          scheduledAt: now, sentAt: null, responseStatus: null, responseBody: null, error: null, durationMs: null,
          requestHeaders: null, signedPayload: null, createdAt: now, nextRetryAt: null,
        },
      ],
      page: 1, pageSize: 20, total: 1,
    })
  })

  test('filters by webhookId, eventType and status, newest first', async () => {
    const t = createTestApp()
    const { headers, group } = await storeWithKey(t)
    const paid = await expectOk(register(t, headers, { url: 'https://10.0.0.7/paid', events: ['order.paid'] }), 201)
    const all = await expectOk(register(t, headers, { url: 'https://10.0.0.7/all', events: ['*'] }), 201)
    const e1 = emit(t.deps, group.storeId, 'order.paid', { orderId: 'ord_1', total: 10 })
    t.clock.advance(1000)
    const e2 = emit(t.deps, group.storeId, 'order.cancelled', { orderId: 'ord_2' })
    fanOut(t.deps.db, t.deps.ids, t.clock.now(), 100)
    const ids = async (query: string) =>
      (await expectOk(t.call('GET', `/v1/webhooks/deliveries${query}`, { headers }))).data.map((d: any) => `${d.webhookId === paid.id ? 'paid' : 'all'} ${d.eventId === e1 ? 'e1' : 'e2'}`)
    expect(await ids('')).toEqual(['all e2', 'all e1', 'paid e1'])
    expect(await ids(`?webhookId=${all.id}`)).toEqual(['all e2', 'all e1'])
    expect(await ids('?eventType=order.paid')).toEqual(['all e1', 'paid e1'])
    expect(await ids(`?eventType=order.cancelled&webhookId=${paid.id}`)).toEqual([])
    expect(await ids('?status=PENDING&pageSize=1')).toEqual(['all e2'])
    expect(await ids('?status=SUCCEEDED')).toEqual([])
    expect(e2).toMatch(/^evt_/)
    const bad = await t.call('GET', '/v1/webhooks/deliveries?eventType=order.payed&status=DONE', { headers })
    expect(bad.status).toBe(400)
    expect(bad.body.error.details.map((d: any) => d.path)).toEqual(['eventType', 'status'])
    // A filter has no "*": leaving it out is what lists every event, and the message says so.
    const star = await t.call('GET', '/v1/webhooks/deliveries?eventType=*', { headers })
    expect([star.status, star.body.error.details]).toEqual([400, [{ path: 'eventType', message: `'*' is not an event name. Valid names: ${EVENT_LIST.replace('"*" for all of them', 'leave eventType out for all of them')}` }]])
  })
})

describe('another store', () => {
  test("sees none of A's endpoints or deliveries, and every id of A is a 404 like an unknown id", async () => {
    const t = createTestApp()
    const w = await twoStores(t.call, t.deps)
    const a = apiKey(w.A.key.apiKey)
    const b = apiKey(w.B.key.apiKey)
    const hook = await expectOk(register(t, a, { url: 'https://10.0.0.7/x', events: ['*'] }), 201)
    const ping = await expectOk(t.call('POST', `/v1/webhooks/${hook.id}/ping`, { headers: a }), 202)
    const sign = { timestamp: 1, body: '{}' }
    const cases: [string, (id: string) => string, string, string, unknown?][] = [
      ['DELETE', (id) => `/v1/webhooks/${id}`, hook.id, 'whk_unknown0000000000'],
      ['POST', (id) => `/v1/webhooks/${id}/ping`, hook.id, 'whk_unknown0000000000'],
      ['POST', (id) => `/v1/webhooks/${id}/sign`, hook.id, 'whk_unknown0000000000', sign],
      ['POST', (id) => `/v1/webhooks/deliveries/${id}/redeliver`, ping.deliveryId, 'dlv_unknown0000000000'],
    ]
    for (const [method, path, theirs, unknown, body] of cases) {
      const cross = await t.call(method, path(theirs), { headers: b, body })
      const none = await t.call(method, path(unknown), { headers: b, body })
      expect(cross.status).toBe(404)
      expect(cross.body.error.code).toBe('NOT_FOUND')
      expect(cross.body.error.message.replace(theirs, 'X')).toBe(none.body.error.message.replace(unknown, 'X'))
    }
    expect((await expectOk(t.call('GET', '/v1/webhooks', { headers: b }))).total).toBe(0)
    expect((await expectOk(t.call('GET', `/v1/webhooks/deliveries?webhookId=${hook.id}`, { headers: b }))).total).toBe(0)
    // A's endpoint and its one delivery are untouched.
    expect((await expectOk(t.call('GET', '/v1/webhooks', { headers: a }))).total).toBe(1)
    expect((await expectOk(t.call('GET', '/v1/webhooks/deliveries', { headers: a }))).total).toBe(1)
  })
})

describe('the API reference', () => {
  test('documents the webhook routes, their shared schemas and the valid event names', async () => {
    const t = createTestApp()
    const doc = (await t.call('GET', '/openapi.json')).body
    for (const path of ['/v1/webhooks', '/v1/webhooks/events', '/v1/webhooks/{id}', '/v1/webhooks/{id}/ping', '/v1/webhooks/{id}/sign', '/v1/webhooks/deliveries', '/v1/webhooks/deliveries/{id}/redeliver']) {
      expect(doc.paths[path]).toBeDefined()
    }
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['WebhookEndpoint', 'WebhookDelivery', 'DeliveryQueued']))
    const body = doc.paths['/v1/webhooks'].post.requestBody.content['application/json'].schema
    expect(body.properties.events.items.enum).toEqual(['*', ...Object.keys(EVENT_TYPES)])
    expect(doc.paths['/v1/webhooks'].post.security).toEqual([{ secretKey: [] }, { studentToken: [] }])
  })
})
