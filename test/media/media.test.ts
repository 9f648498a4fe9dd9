import { describe, expect, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { createTestApp } from '../helpers/app'
import { apiKey, expectOk, FIXTURES, formWith, twoStores, upload } from '../helpers/world'

const setup = async (settings = {}) => {
  const t = createTestApp({ settings: { rateLimitRps: '0', ...settings } })
  const world = await twoStores(t.call, t.deps)
  return { ...t, world, keyA: apiKey(world.A.key.apiKey), keyB: apiKey(world.B.key.apiKey) }
}

/** GET on a media URL through the app (the URL is absolute, on PUBLIC_URL). */
const fetchUrl = (t: Awaited<ReturnType<typeof setup>>, url: string, headers: Record<string, string> = {}) =>
  t.call('GET', new URL(url).pathname, { headers })

const SAMPLES = [
  ['sample.jpg', 'IMAGE', 'image/jpeg', 'jpg'],
  ['sample.png', 'IMAGE', 'image/png', 'png'],
  ['sample.webp', 'IMAGE', 'image/webp', 'webp'],
  ['sample.gif', 'IMAGE', 'image/gif', 'gif'],
  ['sample.avif', 'IMAGE', 'image/avif', 'avif'],
  ['sample.mp4', 'VIDEO', 'video/mp4', 'mp4'],
  ['sample.webm', 'VIDEO', 'video/webm', 'webm'],
] as const

describe('uploads', () => {
  test('every accepted format is recognised, sized and served back byte for byte', async () => {
    const t = await setup()
    for (const [fixture, kind, mimeType, ext] of SAMPLES) {
      const bytes = readFileSync(join(FIXTURES, fixture))
      const media = await upload(t.call, t.keyA, fixture)
      expect(media).toEqual({
        id: expect.stringMatching(/^med_/),
        kind,
        url: `http://localhost:3000/v1/files/${t.world.A.group.storeId}/${media.id}.${ext}`,
        mimeType,
        sizeBytes: bytes.length,
        filename: fixture,
        ...(kind === 'IMAGE' ? { width: 64, height: 48 } : {}),
        createdAt: new Date(t.clock.now()).toISOString(),
      })
      const served = await t.app.handle(new Request(`http://localhost${new URL(media.url).pathname}`))
      expect(served.status).toBe(200)
      expect(served.headers.get('content-type')).toBe(mimeType)
      expect(served.headers.get('x-content-type-options')).toBe('nosniff')
      expect(served.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
      expect(served.headers.get('etag')).toBe(`"${media.id}"`)
      expect(Buffer.from(await served.arrayBuffer()).equals(bytes)).toBe(true)
    }
  })

  test("a file's name keeps its accents as the browser wrote them (UTF-8), and loses C1 control characters as it loses C0 ones", async () => {
    const t = await setup()
    const named = async (name: string) => {
      const form = new FormData()
      form.append('file', new Blob([readFileSync(join(FIXTURES, 'sample.png'))]), name)
      return (await expectOk(t.call('POST', '/v1/uploads', { headers: t.keyA, raw: form }), 201)).filename
    }
    // Read as Latin-1, the UTF-8 bytes of João made JoÃ£o, and U+009B (a terminal's CSI) came through behind an Â.
    expect(await named('Camiseta Algodão João.png')).toBe('Camiseta Algodão João.png')
    expect(await named('c\u009b31md.png')).toBe('c31md.png')
  })

  test('the declared type and file name are ignored: the bytes decide', async () => {
    const t = await setup()
    const form = new FormData()
    form.append('file', new Blob([readFileSync(join(FIXTURES, 'sample.png'))], { type: 'video/mp4' }), 'clip.mp4')
    const res = await t.call('POST', '/v1/uploads', { headers: t.keyA, raw: form })
    expect(res.status).toBe(201)
    expect([res.body.kind, res.body.mimeType, res.body.filename]).toEqual(['IMAGE', 'image/png', 'clip.mp4'])
    expect(res.body.url).toEndWith('.png')
  })

  test('the common mistakes are answered with the fix', async () => {
    const t = await setup()
    const json = await t.call('POST', '/v1/uploads', { headers: t.keyA, body: { file: 'photo.jpg' } })
    expect([json.status, json.body.error.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE'])
    expect(json.body.error.message).toContain("Uploads must be multipart/form-data, but the request has Content-Type 'application/json'")
    expect(json.body.error.message).toContain('-F file=@photo.jpg')

    const noBoundary = await t.call('POST', '/v1/uploads', { headers: { ...t.keyA, 'content-type': 'multipart/form-data' }, raw: 'x' })
    expect([noBoundary.status, noBoundary.body.error.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE'])
    expect(noBoundary.body.error.message).toContain('has no boundary')

    const field = await t.call('POST', '/v1/uploads', { headers: t.keyA, raw: formWith('sample.png', 'photo') })
    expect([field.status, field.body.error.code]).toEqual([400, 'VALIDATION_ERROR'])
    expect(field.body.error.message).toContain("The file came in the form field 'photo'")

    const html = await t.call('POST', '/v1/uploads', { headers: t.keyA, raw: formWith('page-renamed.png') })
    expect(html.status).toBe(415)
    expect(html.body.error.message).toContain('HTML document')

    const svg = await t.call('POST', '/v1/uploads', { headers: t.keyA, raw: formWith('drawing.svg') })
    expect(svg.status).toBe(415)
    expect(svg.body.error.message).toStartWith('SVG files are not accepted')

    const noFile = new FormData()
    noFile.append('name', 'x')
    const missing = await t.call('POST', '/v1/uploads', { headers: t.keyA, raw: noFile })
    expect([missing.status, missing.body.error.details]).toEqual([400, [{ path: 'file', message: 'required' }]])

    const emptyForm = new FormData()
    emptyForm.append('file', new Blob([]), 'empty.png')
    const empty = await t.call('POST', '/v1/uploads', { headers: t.keyA, raw: emptyForm })
    expect([empty.status, empty.body.error.message]).toEqual([400, 'The file is empty. Check the path of the file you attach.'])

    // Nothing was kept of any of them.
    const list = await t.call('GET', '/v1/media', { headers: t.keyA })
    expect(list.body.total).toBe(1) // the world's own upload
    expect(readdirSync(join(t.dir, 'media', t.world.A.group.storeId))).toEqual([`${t.world.A.media.id}.png`])
  })

  test('an animated PNG is taken as a PNG and an M4V as an MP4; another format is named by its type', async () => {
    const t = await setup()
    // An acTL chunk before the image data makes a PNG an animated one (APNG).
    const png = readFileSync(join(FIXTURES, 'sample.png'))
    const data = Buffer.from([0, 0, 0, 1, 0, 0, 0, 0])
    const type = Buffer.from('acTL')
    const crc = Buffer.alloc(4)
    crc.writeUInt32BE(Bun.hash.crc32(Buffer.concat([type, data])) >>> 0)
    const acTL = Buffer.concat([Buffer.from([0, 0, 0, 8]), type, data, crc])
    const apng = Buffer.concat([png.subarray(0, 33), acTL, png.subarray(33)]) // after the signature and IHDR
    // An MP4 whose brand says M4V: the same container.
    const m4v = Buffer.from(readFileSync(join(FIXTURES, 'sample.mp4')))
    m4v.write('M4V ', 8, 'latin1')
    for (const [name, bytes, kind, mimeType] of [['moving.png', apng, 'IMAGE', 'image/png'], ['clip.m4v', m4v, 'VIDEO', 'video/mp4']] as const) {
      const form = new FormData()
      form.append('file', new Blob([bytes]), name)
      const res = await t.call('POST', '/v1/uploads', { headers: t.keyA, raw: form })
      expect([name, res.status, res.body.kind, res.body.mimeType]).toEqual([name, 201, kind, mimeType])
    }
    const zip = new FormData()
    zip.append('file', new Blob([Buffer.from('504b0304140000000000', 'hex'), Buffer.alloc(100)]), 'photos.png')
    const refused = await t.call('POST', '/v1/uploads', { headers: t.keyA, raw: zip })
    expect([refused.status, refused.body.error.message]).toEqual([415, expect.stringMatching(/^The file is of type application\/zip\. Files are recognised by their content/)])
  })

  test('a form with two files is a 400 and keeps neither', async () => {
    const t = await setup()
    const before = (await expectOk(t.call('GET', '/v1/media', { headers: t.keyA }))).total
    const files = () => readdirSync(join(t.deps.config.dataDir, 'media'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length
    const filesBefore = files()
    const form = new FormData()
    form.append('file', new Blob([readFileSync(join(FIXTURES, 'sample.png'))]), 'a.png')
    form.append('file', new Blob([readFileSync(join(FIXTURES, 'sample.jpg'))]), 'b.jpg')
    const res = await t.call('POST', '/v1/uploads', { headers: t.keyA, raw: form })
    expect([res.status, res.body.error]).toEqual([
      400,
      { code: 'VALIDATION_ERROR', message: 'The form holds more than one file; send one file per upload request (nothing was kept).', details: [{ path: 'file', message: 'one file per request' }] },
    ])
    expect((await expectOk(t.call('GET', '/v1/media', { headers: t.keyA }))).total).toBe(before)
    expect(files()).toBe(filesBefore)
  })

  test('a body declared past every limit, before its type is known, is told both limits', async () => {
    const t = await setup()
    const res = await t.call('POST', '/v1/uploads', { headers: { ...t.keyA, 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(200 * 1024 * 1024) }, raw: '--x--' })
    expect([res.status, res.body.error.code, res.body.error.message]).toEqual([
      413,
      'FILE_TOO_LARGE',
      'The file is larger than 100 MiB, more than any upload may be (10 MiB for an image, 100 MiB for a video). Make it smaller (resize or compress it) and upload again.',
    ])
  })

  test('an image over 10 MiB is 413 FILE_TOO_LARGE, a store over its quota 413 QUOTA_EXCEEDED', async () => {
    const t = await setup({ mediaQuotaMb: '12' })
    const png = readFileSync(join(FIXTURES, 'sample.png'))
    const big = Buffer.concat([png, Buffer.alloc(10 * 1024 * 1024)])
    const form = new FormData()
    form.append('file', new Blob([big]), 'big.png')
    const tooBig = await t.call('POST', '/v1/uploads', { headers: t.keyA, raw: form })
    expect([tooBig.status, tooBig.body.error.code]).toEqual([413, 'FILE_TOO_LARGE'])
    expect(tooBig.body.error.message).toContain('10 MiB, the limit for an image')

    const nine = new FormData()
    nine.append('file', new Blob([Buffer.concat([png, Buffer.alloc(9 * 1024 * 1024)])]), 'nine.png')
    expect((await t.call('POST', '/v1/uploads', { headers: t.keyA, raw: nine })).status).toBe(201)
    const again = new FormData()
    again.append('file', new Blob([Buffer.concat([png, Buffer.alloc(4 * 1024 * 1024)])]), 'four.png')
    const over = await t.call('POST', '/v1/uploads', { headers: t.keyA, raw: again })
    expect([over.status, over.body.error.code]).toEqual([413, 'QUOTA_EXCEEDED'])
    expect(over.body.error.message).toContain('GET /v1/media/usage')
    // Store B has its own quota.
    expect((await t.call('POST', '/v1/uploads', { headers: t.keyB, raw: again })).status).toBe(201)
    expect(readdirSync(join(t.dir, 'media', t.world.A.group.storeId)).filter((n) => n.startsWith('.tmp'))).toEqual([])
  })

  test('a declared size above the largest file is refused before the body is read', async () => {
    const t = await setup()
    let pulled = 0
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        pulled++
        c.enqueue(new Uint8Array(65536))
      },
    })
    const res = await t.app.handle(
      new Request('http://localhost/v1/uploads', {
        method: 'POST',
        headers: { ...t.keyA, 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(1024 ** 3) },
        body,
        duplex: 'half',
      } as RequestInit),
    )
    expect(res.status).toBe(413)
    expect(((await res.json()) as any).error.code).toBe('FILE_TOO_LARGE')
    expect(pulled).toBeLessThanOrEqual(1)
  })
})

describe('the library', () => {
  test('lists newest first with a kind filter, never another store, and reports usage', async () => {
    const t = await setup()
    await upload(t.call, t.keyA, 'sample.mp4')
    t.clock.advance(1000)
    const jpg = await upload(t.call, t.keyA, 'sample.jpg')
    const all = await expectOk(t.call('GET', '/v1/media', { headers: t.keyA }))
    expect(all.total).toBe(3)
    expect(all.data[0].id).toBe(jpg.id)
    const videos = await expectOk(t.call('GET', '/v1/media?kind=VIDEO', { headers: t.keyA }))
    expect(videos.data.map((m: any) => m.kind)).toEqual(['VIDEO'])
    const b = await expectOk(t.call('GET', '/v1/media', { headers: t.keyB }))
    expect(b.data.map((m: any) => m.id)).toEqual([t.world.B.media.id])

    const size = (f: string) => statSync(join(FIXTURES, f)).size
    expect(await expectOk(t.call('GET', '/v1/media/usage', { headers: t.keyA }))).toEqual({
      usedBytes: size('sample.png') + size('sample.mp4') + size('sample.jpg'),
      quotaBytes: 500 * 1024 * 1024,
      files: 3,
      byKind: {
        IMAGE: { files: 2, bytes: size('sample.png') + size('sample.jpg') },
        VIDEO: { files: 1, bytes: size('sample.mp4') },
      },
    })
  })

  test('deleting removes the record and the file; another store gets 404', async () => {
    const t = await setup()
    const m = t.world.A.media
    const path = join(t.dir, 'media', t.world.A.group.storeId, `${m.id}.png`)
    expect(existsSync(path)).toBe(true)
    expect((await t.call('DELETE', `/v1/media/${m.id}`, { headers: t.keyB })).status).toBe(404)
    expect(existsSync(path)).toBe(true)
    expect((await t.call('DELETE', `/v1/media/${m.id}`, { headers: t.keyA })).status).toBe(204)
    expect(existsSync(path)).toBe(false)
    expect((await fetchUrl(t, m.url)).status).toBe(404)
    expect((await t.call('DELETE', `/v1/media/${m.id}`, { headers: t.keyA })).status).toBe(404)
  })
})

describe('public files', () => {
  test('ETag revalidation and byte ranges', async () => {
    const t = await setup()
    const video = await upload(t.call, t.keyA, 'sample.mp4')
    const bytes = readFileSync(join(FIXTURES, 'sample.mp4'))
    expect((await fetchUrl(t, video.url, { 'if-none-match': `"${video.id}"` })).status).toBe(304)
    const part = await t.app.handle(new Request(`http://localhost${new URL(video.url).pathname}`, { headers: { range: 'bytes=100-199' } }))
    expect(part.status).toBe(206)
    expect(part.headers.get('content-range')).toBe(`bytes 100-199/${bytes.length}`)
    // A page on another host reads them too: CORS exposes what a player or a cache needs.
    expect(part.headers.get('access-control-expose-headers')!.split(', ')).toEqual(expect.arrayContaining(['Content-Range', 'Accept-Ranges', 'ETag']))
    expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(100, 200))).toBe(true)
    const tail = await t.app.handle(new Request(`http://localhost${new URL(video.url).pathname}`, { headers: { range: 'bytes=-10' } }))
    expect(Buffer.from(await tail.arrayBuffer()).equals(bytes.subarray(bytes.length - 10))).toBe(true)
    const beyond = await fetchUrl(t, video.url, { range: `bytes=${bytes.length}-` })
    expect([beyond.status, beyond.body.error.code]).toEqual([416, 'RANGE_NOT_SATISFIABLE'])
    expect(beyond.headers.get('content-range')).toBe(`bytes */${bytes.length}`)
  })

  test('a Range in another unit, with several ranges or not well formed is ignored: 200 with the whole file; the unit is case-insensitive', async () => {
    const t = await setup()
    const video = await upload(t.call, t.keyA, 'sample.mp4')
    const bytes = readFileSync(join(FIXTURES, 'sample.mp4'))
    const path = new URL(video.url).pathname
    for (const range of ['items=0-5', 'bytes=abc', 'bytes=5-2', 'bytes=0-1,5-6', 'bytes 0-5', 'bytes=', 'bytes=--5', 'bytes=0x10-', '=0-5']) {
      const res = await t.app.handle(new Request(`http://localhost${path}`, { headers: { range } }))
      expect([range, res.status, res.headers.get('content-range'), res.headers.get('content-length')]).toEqual([range, 200, null, String(bytes.length)])
      expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true)
    }
    const upper = await t.app.handle(new Request(`http://localhost${path}`, { headers: { range: 'Bytes=0-9' } }))
    expect([upper.status, upper.headers.get('content-range')]).toEqual([206, `bytes 0-9/${bytes.length}`])
  })

  test("If-Range: the range is served for the file's own ETag only; a weak tag, another tag or a date gets the whole file", async () => {
    const t = await setup()
    const video = await upload(t.call, t.keyA, 'sample.mp4')
    const bytes = readFileSync(join(FIXTURES, 'sample.mp4'))
    const path = new URL(video.url).pathname
    const ask = (ifRange: string) => t.app.handle(new Request(`http://localhost${path}`, { headers: { range: 'bytes=0-9', 'if-range': ifRange } }))
    const same = await ask(`"${video.id}"`)
    expect([same.status, same.headers.get('content-range')]).toEqual([206, `bytes 0-9/${bytes.length}`])
    for (const ifRange of [`W/"${video.id}"`, '"other"', 'Sat, 28 Nov 2026 02:00:00 GMT']) {
      const res = await ask(ifRange)
      expect([ifRange, res.status, res.headers.get('content-range'), res.headers.get('content-length')]).toEqual([ifRange, 200, null, String(bytes.length)])
      expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true)
    }
  })

  test('a well-formed range that asks for nothing in the file is 416, quoting the header cut short', async () => {
    const t = await setup()
    const video = await upload(t.call, t.keyA, 'sample.mp4')
    const size = readFileSync(join(FIXTURES, 'sample.mp4')).length
    const empty = await fetchUrl(t, video.url, { range: 'bytes=-0' })
    expect([empty.status, empty.body.error.message]).toEqual([416, `The Range 'bytes=-0' does not fit the file (${size} bytes). Ask for bytes=0-${size - 1} or less.`])
    const huge = `bytes=${'9'.repeat(500)}-`
    const far = await fetchUrl(t, video.url, { range: huge })
    expect([far.status, far.headers.get('content-range')]).toEqual([416, `bytes */${size}`])
    expect(far.body.error.message).toBe(`The Range '${huge.slice(0, 80)}…' does not fit the file (${size} bytes). Ask for bytes=0-${size - 1} or less.`)
  })

  test('If-None-Match with * or the ETag, weak or strong, anywhere in its list is 304; another tag is 200', async () => {
    const t = await setup()
    const png = t.world.A.media
    for (const tag of ['*', ` * `, `W/"${png.id}"`, `"other", W/"${png.id}"`, `"a,b", "${png.id}"`]) {
      const res = await fetchUrl(t, png.url, { 'if-none-match': tag })
      expect([tag, res.status, res.text, res.headers.get('etag')]).toEqual([tag, 304, '', `"${png.id}"`])
    }
    for (const tag of ['"other"', `W/"other"`, png.id, `"${png.id}x"`]) expect([tag, (await fetchUrl(t, png.url, { 'if-none-match': tag })).status]).toEqual([tag, 200])
  })

  test('a file is found only under its own store, id and extension', async () => {
    const t = await setup()
    const { A, B } = t.world
    const name = A.media.url.split('/').pop()!
    expect((await t.call('GET', `/v1/files/${B.group.storeId}/${name}`)).status).toBe(404)
    expect((await t.call('GET', `/v1/files/${A.group.storeId}/${name.replace('.png', '.gif')}`)).status).toBe(404)
    expect((await t.call('GET', `/v1/files/${A.group.storeId}/..%2F..%2Fstorefront.db`)).status).toBe(404)
    expect((await t.call('GET', `/v1/files/${A.group.storeId}/${name}`)).status).toBe(200)
  })
})
