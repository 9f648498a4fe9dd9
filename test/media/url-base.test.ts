import { describe, expect, test } from 'bun:test'
import { requestOrigin } from '../../src/kernel/http/url-base'
import { caller, createTestApp } from '../helpers/app'
import { matrixWorld, pathFor, type World } from '../helpers/rich-world'
import { rawGet } from '../helpers/raw-get'
import { apiKey, bearer, expectOk, formWith, upload } from '../helpers/world'
import { operationsOf } from '../drills/openapi-ops'

/**
 * Without --public-url, the file URLs of an answer start with the origin the request was sent to:
 * a panel opened at http://127.0.0.1:3000 shows pictures it can load. The test app's public URL is
 * http://localhost:3000; these requests go elsewhere.
 */
const LOOPBACK = 'http://127.0.0.1:4000'
const LAN = 'http://192.168.0.5:3000'

/** Every string in a JSON value that holds a file URL. */
function fileUrls(value: unknown, into: string[] = []): string[] {
  if (typeof value === 'string' && value.includes('/v1/files/')) into.push(value)
  else if (Array.isArray(value)) value.forEach((v) => fileUrls(v, into))
  else if (value && typeof value === 'object') Object.values(value).forEach((v) => fileUrls(v, into))
  return into
}

function credentialFor(auth: string | undefined, w: World): Record<string, string> {
  if (auth === 'student' || auth === 'studentSelf') return bearer(w.A.student)
  if (auth === 'customer') return { ...apiKey(w.A.key.apiKey), ...bearer(w.A.customer.token) }
  return apiKey(w.A.key.apiKey)
}

describe('file URLs without --public-url', () => {
  test('every GET answer carries file URLs on the origin it was asked at, cached answers included', async () => {
    const t = createTestApp({ settings: { rateLimitRps: '0' } })
    const w = await matrixWorld(t)
    const doc = (await t.call('GET', '/openapi.json')).body
    const reads = operationsOf(doc)
      .filter((op) => op.method === 'GET' && op.auth !== undefined && op.auth !== 'admin')
      .map((op) => ({ ...op, path: pathFor(op, w) }))
    // The reviewed product's page too: the one the paths above name has no review.
    const [reviewed] = (await expectOk(t.call('GET', '/v1/store/reviews', { headers: apiKey(w.A.key.apiKey) }))).data
    reads.push({ ...reads.find((op) => op.path === `/v1/products/${w.catalog.product.id}/reviews`)!, path: `/v1/products/${reviewed.productId}/reviews` })
    const answered = new Set<string>()
    // Each origin twice, in turn: a body kept for one origin must not answer the other.
    for (const origin of [LOOPBACK, LAN, LOOPBACK, LAN]) {
      const call = caller(t.app, origin)
      for (const op of reads) {
        const res = await call('GET', op.path, { headers: credentialFor(op.auth, w) })
        const urls = fileUrls(res.body)
        if (urls.length > 0) answered.add(op.path.replaceAll(/\/[a-z]{2,5}_[0-9a-z]{12,}/g, '/:id'))
        for (const url of urls) expect(`${op.path} at ${origin}: ${url}`).toStartWith(`${op.path} at ${origin}: ${origin}/v1/files/${w.A.group.storeId}/`)
      }
    }
    // The library, the catalog's lists and details, and the review photos, as the store and a customer see them.
    expect([...answered].sort()).toEqual(['/v1/me/reviews', '/v1/media', '/v1/products', '/v1/products/:id', '/v1/products/:id/reviews', '/v1/store/reviews'])
  })

  test('uploads, links, image and product changes and reviews answer on the origin they were sent to', async () => {
    const t = createTestApp({ settings: { rateLimitRps: '0' } })
    const w = await matrixWorld(t)
    const key = apiKey(w.A.key.apiKey)
    const customer = { ...key, ...bearer(w.A.customer.token) }
    const productId = w.catalog.product.id
    for (const origin of [LOOPBACK, LAN]) {
      const call = caller(t.app, origin)
      const files = `${origin}/v1/files/${w.A.group.storeId}/`
      const uploaded = await upload(call, key)
      expect(uploaded.url).toStartWith(files)
      const linked = await expectOk(call('POST', `/v1/products/${productId}/images`, { headers: key, body: { mediaId: uploaded.id } }), 201)
      expect(linked.url).toBe(uploaded.url)
      const both = await expectOk(call('POST', `/v1/products/${productId}/media`, { headers: key, raw: formWith('sample.png') }), 201)
      expect(both.media.url).toStartWith(files)
      expect(both.image.url).toBe(both.media.url)
      expect((await expectOk(call('PATCH', `/v1/images/${linked.id}`, { headers: key, body: { position: 0 } }))).url).toBe(linked.url)
      const renamed = await expectOk(call('PUT', `/v1/products/${productId}`, { headers: key, body: { name: `Seen at ${origin}` } }))
      expect(renamed.image).toStartWith(files)
      expect(fileUrls(renamed).filter((url) => !url.startsWith(files))).toEqual([])
      const review = await expectOk(call('PATCH', `/v1/reviews/${w.reviewId}`, { headers: customer, body: { mediaIds: [uploaded.id] } }))
      expect(review.media).toEqual([{ id: uploaded.id, url: uploaded.url }])
      const moderated = await expectOk(call('PATCH', `/v1/store/reviews/${w.reviewId}`, { headers: key, body: { hidden: false } }))
      expect(moderated.media).toEqual([{ id: uploaded.id, url: uploaded.url }])
    }
    // A new review: the customer's paid order holds the seeded product too.
    const call = caller(t.app, LAN)
    const photo = await upload(call, key)
    const created = await expectOk(call('POST', `/v1/products/${productId}/reviews`, { headers: customer, body: { rating: 5, title: 'Bom', comment: 'ok', mediaIds: [photo.id] } }), 201)
    expect(created.media).toEqual([{ id: photo.id, url: `${LAN}/v1/files/${w.A.group.storeId}/${photo.id}.png` }])
  })

  test('with --public-url, every answer uses it, whatever the request was sent to', async () => {
    const t = createTestApp({ settings: { rateLimitRps: '0', publicUrl: 'https://loja.escola.edu/storefront/' } })
    const w = await matrixWorld(t)
    const key = apiKey(w.A.key.apiKey)
    const files = `https://loja.escola.edu/storefront/v1/files/${w.A.group.storeId}/`
    for (const origin of [LOOPBACK, LAN]) {
      const call = caller(t.app, origin)
      expect((await upload(call, key)).url).toStartWith(files)
      const answers = [await expectOk(call('GET', `/v1/products/${w.catalog.product.id}`, { headers: key })), await expectOk(call('GET', '/v1/products', { headers: key }))]
      const urls = fileUrls(answers)
      expect(urls.length).toBeGreaterThanOrEqual(3)
      expect(urls.filter((url) => !url.startsWith(files))).toEqual([])
    }
  })
})

describe('the origin a request names', () => {
  test('only a plain host[:port] is taken, lowercased; anything else is left for the configured address', () => {
    const taken: [string, string][] = [
      ['http://127.0.0.1:3000/v1/products', 'http://127.0.0.1:3000'],
      ['http://Shop.Lab.Local:8080/v1/media?page=2', 'http://shop.lab.local:8080'],
      ['http://localhost/v1/products', 'http://localhost'],
      ['https://loja.escola.edu/v1/products', 'https://loja.escola.edu'],
      ['http://[::1]:3000/v1/products', 'http://[::1]:3000'],
    ]
    for (const [url, origin] of taken) expect(requestOrigin(url)).toBe(origin)
    const refused = [
      'http://0.0.0.0:3000/v1/products',
      'http://[fe80::1%25eth0]:3000/',
      'http://[::]:3000/v1/products',
      'http://host:99999/v1/products',
      'http://user:pw@host/v1/products',
      'http://ho_st/v1/products',
      'http://-host/v1/products',
      'http://host./v1/products',
      'http://a"><script>alert(1)</script>/x',
      'http://evil.example%2F@x/',
      `http://${'a'.repeat(64)}.example/`,
      `http://${'abc.'.repeat(70)}example/`,
      'ftp://host/x',
      '/v1/products',
    ]
    for (const url of refused) expect(`${url} -> ${requestOrigin(url)}`).toBe(`${url} -> undefined`)
  })

  test('over real HTTP, the Host header picks the origin; a hostile one gets the configured address, never a 500', async () => {
    const t = createTestApp({ settings: { rateLimitRps: '0' } })
    const w = await matrixWorld(t)
    const server = t.app.listen({ hostname: '127.0.0.1', port: 0 })
    const port = server.server!.port!
    try {
      const library = (host: string | null) => rawGet(port, '/v1/media', host, { 'X-API-Key': w.A.key.apiKey })
      const urlsAt = async (host: string | null) => {
        const { status, body } = await library(host)
        return { status, urls: status === 200 ? fileUrls(JSON.parse(body)) : [] }
      }
      const own = await urlsAt(`127.0.0.1:${port}`)
      expect(own.status).toBe(200)
      expect(own.urls.length).toBeGreaterThan(0)
      expect(own.urls.every((u) => u.startsWith(`http://127.0.0.1:${port}/v1/files/`))).toBe(true)
      expect((await urlsAt('Shop.Lab.Local:8080')).urls.every((u) => u.startsWith('http://shop.lab.local:8080/v1/files/'))).toBe(true)
      for (const hostile of ['evil.example"><img src=x>', 'a b', 'x@y:1', '0.0.0.0:3000', 'host:99999', `${'a'.repeat(300)}.example`]) {
        const { status, urls } = await urlsAt(hostile)
        expect(`${hostile}: ${status}`).toBe(`${hostile}: 200`)
        expect(urls.length).toBeGreaterThan(0)
        expect(`${hostile}: ${urls.filter((u) => !u.startsWith(`${t.deps.publicUrl.for()}/v1/files/`))}`).toBe(`${hostile}: `)
      }
    } finally {
      await server.stop()
    }
  })
})
