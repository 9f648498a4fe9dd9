import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { caller } from '../helpers/app'
import { catalogSetup, expectSameNotFound } from '../helpers/catalog'
import { expectOk, formWith, upload } from '../helpers/world'
import { MAX_IMAGES_PER_PRODUCT } from '../../src/features/product-images/service'

const setup = async () => {
  const t = await catalogSetup()
  const product = await t.A.createProduct()
  const link = (body: object, productId = product.id) => t.A.send('POST', `/v1/products/${productId}/images`, body)
  return { ...t, product, link }
}

const shape = (images: { id: string; isPrimary: boolean; position: number }[]) =>
  images.map((i) => [i.id, i.position, i.isPrimary] as const)

describe('product images', () => {
  test('the first image is the cover; a later one can take its place; list and detail show it', async () => {
    const t = await setup()
    const first = await expectOk(t.link({ mediaId: t.w.A.media.id }), 201)
    expect(first).toEqual({
      id: expect.stringMatching(/^img_/),
      productId: t.product.id,
      mediaId: t.w.A.media.id,
      url: t.w.A.media.url,
      isPrimary: true,
      position: 0,
    })
    const second = await expectOk(t.link({ url: 'https://cdn.example.com/shirt.jpg' }), 201)
    expect([second.isPrimary, second.position, second.mediaId, second.url]).toEqual([false, 1, null, 'https://cdn.example.com/shirt.jpg'])
    const third = await expectOk(t.link({ url: 'https://cdn.example.com/back.jpg', isPrimary: true }), 201)
    expect(third.isPrimary).toBe(true)
    const detail = await t.A.product(t.product.id)
    expect(shape(detail.images)).toEqual([[first.id, 0, false], [second.id, 1, false], [third.id, 2, true]])
    const list = await t.A.list()
    expect(list.data.find((p: any) => p.id === t.product.id).image).toBe('https://cdn.example.com/back.jpg')
  })

  test('the same picture linked again (a button clicked twice) is 409 CONFLICT naming the image it already is; nothing is added', async () => {
    const t = await setup()
    const first = await expectOk(t.link({ mediaId: t.w.A.media.id }), 201)
    const byUrl = await expectOk(t.link({ url: 'https://cdn.example.com/shirt.jpg' }), 201)
    for (const [body, image, detail] of [
      [{ mediaId: t.w.A.media.id }, first, { imageId: first.id, mediaId: t.w.A.media.id }],
      [{ url: 'https://cdn.example.com/shirt.jpg', isPrimary: true }, byUrl, { imageId: byUrl.id, url: 'https://cdn.example.com/shirt.jpg' }],
    ] as const) {
      const again = await t.link(body)
      expect([again.status, again.body.error.code, again.body.error.details]).toEqual([409, 'CONFLICT', [detail]])
      expect(again.body.error.message).toBe(
        `That picture is already image ${image.id} of product ${t.product.id}. To make it the cover or move it, PATCH /v1/images/${image.id} {"isPrimary": true} or {"position": n}.`,
      )
    }
    expect(shape((await t.A.product(t.product.id)).images)).toEqual([[first.id, 0, true], [byUrl.id, 1, false]])
    // Another product may show the same picture.
    const other = await t.A.createProduct({ name: 'Outra', sku: 'OUT-1' })
    expect((await expectOk(t.link({ mediaId: t.w.A.media.id }, other.id), 201)).isPrimary).toBe(true)
  })

  test('an empty mediaId is a 400 naming the field, not a 500 (found by the fuzz drill)', async () => {
    const t = await setup()
    const res = await t.link({ mediaId: '' })
    expect(res.status).toBe(400)
    expect(res.body.error.details).toContainEqual(expect.objectContaining({ path: 'mediaId' }))
    expect((await t.A.product(t.product.id)).images).toEqual([])
  })

  test('library images are stored as paths, not as the address of the day: each answer shows them on its own', async () => {
    const t = await setup()
    await expectOk(t.link({ mediaId: t.w.A.media.id }), 201)
    const path = new URL(t.w.A.media.url).pathname
    const elsewhere = caller(t.app, 'http://10.1.2.3:8080')
    expect((await expectOk(elsewhere('GET', `/v1/products/${t.product.id}`, { headers: t.A.headers }))).images[0].url).toBe(`http://10.1.2.3:8080${path}`)
    expect((await t.A.product(t.product.id)).images[0].url).toBe(`http://localhost:3000${path}`)
  })

  test('bad links are refused with what to send instead', async () => {
    const t = await setup()
    const both = await t.link({ mediaId: t.w.A.media.id, url: 'https://x.example/a.png' })
    expect([both.status, both.body.error.details[0].message]).toEqual([400, 'send exactly one of mediaId (a library image) or url (an external image)'])
    expect((await t.link({})).status).toBe(400)
    const ftp = await t.link({ url: 'ftp://x.example/a.png' })
    expect(ftp.body.error.details).toEqual([{ path: 'url', message: 'url must be an http:// or https:// address' }])
    // A long signed CDN address is told its length, not its scheme; 2048 characters is the line.
    const long = await t.link({ url: `https://cdn.example/${'a'.repeat(2048 - 'https://cdn.example/'.length + 1)}` })
    expect([long.status, long.body.error.details]).toEqual([
      400,
      [{ path: 'url', message: 'url can be at most 2048 characters: link a shorter address, or upload the image (POST /v1/uploads) and link its mediaId' }],
    ])
    const video = await upload(t.call, t.A.headers, 'sample.mp4')
    const refused = await t.link({ mediaId: video.id })
    expect([refused.status, refused.body.error.details]).toEqual([400, [{ path: 'mediaId', message: 'must be an image' }]])
    const theirs = await t.link({ mediaId: t.w.B.media.id })
    const unknown = await t.link({ mediaId: 'med_doesnotexist' })
    expectSameNotFound(theirs, unknown, t.w.B.media.id, 'med_doesnotexist')
    const product = await t.A.product(t.product.id)
    expect(product.images).toEqual([])
    expect((await t.link({ url: `https://cdn.example/${'a'.repeat(2048 - 'https://cdn.example/'.length)}` })).status).toBe(201)
  })

  test('PATCH moves an image and changes the cover; positions stay 0..n-1', async () => {
    const t = await setup()
    const ids = []
    for (let i = 0; i < 4; i++) ids.push((await expectOk(t.link({ url: `https://cdn.example.com/${i}.jpg` }), 201)).id)
    const moved = await expectOk(t.A.send('PATCH', `/v1/images/${ids[3]}`, { position: 0 }))
    expect([moved.position, moved.isPrimary]).toEqual([0, false])
    const cover = await expectOk(t.A.send('PATCH', `/v1/images/${ids[2]}`, { isPrimary: true, position: 99 }))
    expect([cover.position, cover.isPrimary]).toEqual([3, true])
    const detail = await t.A.product(t.product.id)
    expect(shape(detail.images)).toEqual([[ids[3], 0, false], [ids[0], 1, false], [ids[1], 2, false], [ids[2], 3, true]])
    const off = await t.A.send('PATCH', `/v1/images/${ids[0]}`, { isPrimary: false })
    expect([off.status, off.body.error.details[0].path]).toEqual([400, 'isPrimary'])
    expect((await t.B.send('PATCH', `/v1/images/${ids[0]}`, { position: 0 })).status).toBe(404)
  })

  test('unlinking the cover promotes the next image and leaves the library file', async () => {
    const t = await setup()
    const first = await expectOk(t.link({ mediaId: t.w.A.media.id }), 201)
    const second = await expectOk(t.link({ url: 'https://cdn.example.com/2.jpg' }), 201)
    expect((await t.B.send('DELETE', `/v1/images/${first.id}`)).status).toBe(404)
    expect((await t.A.send('DELETE', `/v1/images/${first.id}`)).status).toBe(204)
    const detail = await t.A.product(t.product.id)
    expect(shape(detail.images)).toEqual([[second.id, 0, true]])
    const library = await expectOk(t.A.send('GET', '/v1/media'))
    expect(library.data.map((m: any) => m.id)).toContain(t.w.A.media.id)
    expect(existsSync(join(t.dir, 'media', t.w.A.group.storeId, `${t.w.A.media.id}.png`))).toBe(true)
  })

  test('deleting a product never deletes its library file', async () => {
    const t = await setup()
    await expectOk(t.link({ mediaId: t.w.A.media.id }), 201)
    expect((await t.A.send('DELETE', `/v1/products/${t.product.id}`)).status).toBe(204)
    expect(existsSync(join(t.dir, 'media', t.w.A.group.storeId, `${t.w.A.media.id}.png`))).toBe(true)
    // The deleted product no longer counts as a use of the file.
    expect((await t.A.send('DELETE', `/v1/media/${t.w.A.media.id}`)).status).toBe(204)
  })

  test('a library file in use is 409 MEDIA_IN_USE listing the uses; force unlinks it everywhere', async () => {
    const t = await setup()
    const other = await t.A.createProduct()
    const a = await expectOk(t.link({ mediaId: t.w.A.media.id }), 201)
    await expectOk(t.link({ url: 'https://cdn.example.com/next.jpg' }), 201)
    const b = await expectOk(t.link({ mediaId: t.w.A.media.id }, other.id), 201)
    const refused = await t.A.send('DELETE', `/v1/media/${t.w.A.media.id}`)
    expect([refused.status, refused.body.error.code]).toEqual([409, 'MEDIA_IN_USE'])
    expect(refused.body.error.details).toEqual(
      expect.arrayContaining([
        { usedBy: 'productImage', productId: t.product.id, imageId: a.id },
        { usedBy: 'productImage', productId: other.id, imageId: b.id },
      ]),
    )
    expect(refused.body.error.message).toContain('?force=true')
    expect((await t.A.send('DELETE', `/v1/media/${t.w.A.media.id}?force=true`)).status).toBe(204)
    const detail = await t.A.product(t.product.id)
    expect(detail.images.map((i: any) => [i.url, i.position, i.isPrimary])).toEqual([['https://cdn.example.com/next.jpg', 0, true]])
    expect((await t.A.product(other.id)).images).toEqual([])
  })

  test('upload and link in one call; a video is refused and leaves nothing behind', async () => {
    const t = await setup()
    await expectOk(t.link({ url: 'https://cdn.example.com/1.jpg' }), 201)
    const res = await t.call('POST', `/v1/products/${t.product.id}/media`, { headers: t.A.headers, raw: formWith('sample.webp', 'file', { isPrimary: 'true' }) })
    expect(res.status).toBe(201)
    expect(res.body.media).toMatchObject({ kind: 'IMAGE', mimeType: 'image/webp', filename: 'sample.webp' })
    expect(res.body.image).toMatchObject({ productId: t.product.id, mediaId: res.body.media.id, url: res.body.media.url, isPrimary: true, position: 1 })

    const before = (await expectOk(t.A.send('GET', '/v1/media'))).total
    const video = await t.call('POST', `/v1/products/${t.product.id}/media`, { headers: t.A.headers, raw: formWith('sample.mp4') })
    // The message says the file was not kept (the library's count below shows it), not that it stays there.
    expect([video.status, video.body.error.message, video.body.error.details]).toEqual([
      400,
      'The file is a video; product images take pictures only, so it was not kept. A video goes to the library with POST /v1/uploads, where GET /v1/media lists its URL.',
      [{ path: 'file', message: 'must be an image' }],
    ])
    expect((await expectOk(t.A.send('GET', '/v1/media'))).total).toBe(before)
    const flag = await t.call('POST', `/v1/products/${t.product.id}/media`, { headers: t.A.headers, raw: formWith('sample.png', 'file', { isPrimary: 'yes' }) })
    expect([flag.status, flag.body.error.details]).toEqual([400, [{ path: 'isPrimary', message: 'must be true or false' }]])
    expect((await expectOk(t.A.send('GET', '/v1/media'))).total).toBe(before)
    const wrong = await t.call('POST', `/v1/products/${t.w.B.media.id}/media`, { headers: t.A.headers, raw: formWith('sample.png') })
    expect(wrong.status).toBe(404)
    expect(wrong.body.error.message).toContain('is a media file id, not a product id')
  })

  test(`a product has at most ${MAX_IMAGES_PER_PRODUCT} images: one more is 409 LIMIT_REACHED, an upload to link is refused before it is kept, and an unlink frees a place`, async () => {
    const t = await setup()
    const images = []
    for (let i = 0; i < MAX_IMAGES_PER_PRODUCT; i++) images.push(await expectOk(t.link({ url: `https://cdn.example.com/${i}.jpg` }), 201))
    const more = await t.link({ url: 'https://cdn.example.com/more.jpg' })
    expect([more.status, more.body.error.code, more.body.error.details]).toEqual([409, 'LIMIT_REACHED', [{ limit: MAX_IMAGES_PER_PRODUCT, current: MAX_IMAGES_PER_PRODUCT }]])
    expect(more.body.error.message).toContain('Unlink one first (DELETE /v1/images/:id')
    const before = (await expectOk(t.A.send('GET', '/v1/media'))).total
    const uploaded = await t.call('POST', `/v1/products/${t.product.id}/media`, { headers: t.A.headers, raw: formWith('sample.png') })
    expect([uploaded.status, uploaded.body.error.code]).toEqual([409, 'LIMIT_REACHED'])
    expect((await expectOk(t.A.send('GET', '/v1/media'))).total).toBe(before)
    expect((await t.A.product(t.product.id)).images).toHaveLength(MAX_IMAGES_PER_PRODUCT)
    await expectOk(t.A.send('DELETE', `/v1/images/${images[3]!.id}`), 204)
    await expectOk(t.link({ url: 'https://cdn.example.com/in-its-place.jpg' }), 201)
  })

  test('any sequence of links, changes and unlinks keeps one cover and positions without gaps', async () => {
    const t = await setup()
    const op = fc.oneof(
      fc.record({ kind: fc.constant('link' as const), primary: fc.boolean() }),
      fc.record({ kind: fc.constant('move' as const), pick: fc.nat(20), position: fc.nat(8) }),
      fc.record({ kind: fc.constant('cover' as const), pick: fc.nat(20) }),
      fc.record({ kind: fc.constant('unlink' as const), pick: fc.nat(20) }),
    )
    let n = 0
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 12 }), async (ops) => {
        const product = await t.A.createProduct()
        for (const o of ops) {
          const images = (await t.A.product(product.id)).images as { id: string }[]
          const target = images.length ? images[('pick' in o ? o.pick : 0) % images.length]!.id : undefined
          if (o.kind === 'link') await expectOk(t.link({ url: `https://cdn.example.com/${n++}.jpg`, isPrimary: o.primary || undefined }, product.id), 201)
          else if (target && o.kind === 'move') await expectOk(t.A.send('PATCH', `/v1/images/${target}`, { position: o.position }))
          else if (target && o.kind === 'cover') await expectOk(t.A.send('PATCH', `/v1/images/${target}`, { isPrimary: true }))
          else if (target && o.kind === 'unlink') await expectOk(t.A.send('DELETE', `/v1/images/${target}`), 204)
          const after = (await t.A.product(product.id)).images as { isPrimary: boolean; position: number }[]
          expect(after.map((i) => i.position)).toEqual(after.map((_, i) => i))
          expect(after.filter((i) => i.isPrimary).length).toBe(after.length ? 1 : 0)
        }
      }),
      { numRuns: 25 },
    )
  })
})
