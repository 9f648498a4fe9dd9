import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { IMAGE_HEAD_BYTES, imageSize, jpegSize } from '../../src/features/media/image-size'
import { createTestApp } from '../helpers/app'
import { expectHeldInOneOf, limit } from '../helpers/limits'
import { apiKey, expectOk, FIXTURES, twoStores } from '../helpers/world'

const MiB = 1024 * 1024
const sample = readFileSync(join(FIXTURES, 'sample.jpg'))

/** A JPEG's start, then `rest`: what passes for a JPEG by its first bytes. */
const jpegStart = (rest: Uint8Array) => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), rest])

/** sample.jpg with `count` APP1 segments of 64 KiB put before its frame, as a camera's metadata can be. */
function withMetadata(count: number) {
  const segment = Buffer.alloc(4 + 65_533, 0x41)
  segment.set([0xff, 0xe1, 0xff, 0xff]) // APP1, length 65,535
  return Buffer.concat([sample.subarray(0, 2), ...Array(count).fill(segment), sample.subarray(2)])
}

describe("an image's size, from its first bytes", () => {
  test('every accepted format of the samples is 64 x 48, a JPEG also behind 192 KiB of metadata', async () => {
    for (const [file, mime] of [['sample.jpg', 'image/jpeg'], ['sample.png', 'image/png'], ['sample.webp', 'image/webp'], ['sample.gif', 'image/gif'], ['sample.avif', 'image/avif']]) {
      expect({ file, size: await imageSize(readFileSync(join(FIXTURES, file!)), mime!) }).toEqual({ file, size: { width: 64, height: 48 } })
    }
    expect(jpegSize(withMetadata(3))).toEqual({ width: 64, height: 48 })
    // Past the bytes read, the size is unknown rather than searched for.
    expect(await imageSize(withMetadata(5), 'image/jpeg')).toEqual({ width: null, height: null })
  })

  test('a JPEG whose segments lead nowhere is of unknown size: zeros, fill bytes, a short segment, a cut file, a scan before any frame', () => {
    const unknown = { width: null, height: null }
    expect(jpegSize(jpegStart(new Uint8Array(1000)))).toEqual(unknown)
    expect(jpegSize(Buffer.concat([Buffer.from([0xff, 0xd8]), Buffer.alloc(1000, 0xff)]))).toEqual(unknown)
    expect(jpegSize(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x01, 0, 0, 0, 0, 0]))).toEqual(unknown)
    expect(jpegSize(sample.subarray(0, 100))).toEqual(unknown)
    expect(jpegSize(Buffer.from([0xff, 0xd8, 0xff, 0xda, 0, 8, 0, 0, 0, 0, 0, 0]))).toEqual(unknown)
    expect(jpegSize(Buffer.from('not a jpeg at all'))).toEqual(unknown)
  })

  test("a 10 MiB upload that starts like a JPEG and then holds zeros costs no more than one of random bytes (it held every store's requests for 1.5 s)", async () => {
    const t = createTestApp({ settings: { rateLimitRps: '0' } })
    const { A } = await twoStores(t.call, t.deps)
    const key = apiKey(A.key.apiKey)
    const files = { zeros: jpegStart(new Uint8Array(10 * MiB - 6)), random: jpegStart(crypto.getRandomValues(new Uint8Array(10 * MiB - 6))) }
    const timedUpload = async (which: keyof typeof files) => {
      const form = new FormData()
      form.append('file', new Blob([files[which]]), `${which}.jpg`)
      const started = performance.now()
      const media = await expectOk(t.call('POST', '/v1/uploads', { headers: key, raw: form }), 201)
      const ms = performance.now() - started
      // Taken, of unknown size (the answer leaves width and height out).
      expect([media.mimeType, 'width' in media, 'height' in media]).toEqual(['image/jpeg', false, false])
      await expectOk(t.call('DELETE', `/v1/media/${media.id}`, { headers: key }), 204)
      return ms
    }
    await expectHeldInOneOf(
      3,
      'rounds of three uploads each',
      async () => {
        const times = { zeros: [] as number[], random: [] as number[] }
        for (let i = 0; i < 3; i++) for (const which of ['random', 'zeros'] as const) times[which].push(await timedUpload(which))
        const [zeros, random] = [Math.min(...times.zeros), Math.min(...times.random)]
        return zeros <= 2 * random + limit(50) ? undefined : `zeros ${zeros.toFixed(1)} ms against random ${random.toFixed(1)} ms`
      },
      'the zeros at most 2 x the random bytes + 50 ms',
    )
    expect(IMAGE_HEAD_BYTES).toBeLessThan(10 * MiB)
  })

  test('an image read whole without its width and height is no picture: 415 naming the format, nothing kept; a larger one whose size is past the bytes read is kept', async () => {
    const t = createTestApp({ settings: { rateLimitRps: '0' } })
    const { A } = await twoStores(t.call, t.deps)
    const key = apiKey(A.key.apiKey)
    const upload = (bytes: Uint8Array, name: string) => {
      const form = new FormData()
      form.append('file', new Blob([bytes]), name)
      return t.call('POST', '/v1/uploads', { headers: key, raw: form })
    }
    const png = readFileSync(join(FIXTURES, 'sample.png'))
    const webp = readFileSync(join(FIXTURES, 'sample.webp'))
    const cut = [
      ['JPEG', Buffer.from([0xff, 0xd8, 0xff, 0xdb]), 'a.jpg'],
      ['JPEG', sample.subarray(0, 100), 'b.jpg'],
      ['GIF', Buffer.from('GIF89a'), 'c.gif'],
      ['PNG', png.subarray(0, 20), 'd.png'],
      // A WebP whose frame says 0 x 0.
      ['WebP', Buffer.concat([webp.subarray(0, 26), Buffer.alloc(4), webp.subarray(30)]), 'e.webp'],
    ] as const
    const usage = () => expectOk(t.call('GET', '/v1/media/usage', { headers: key }))
    const before = await usage()
    for (const [format, bytes, name] of cut) {
      const refused = await upload(bytes, name)
      expect([name, refused.status, refused.body.error.code, refused.body.error.message]).toEqual([
        name,
        415,
        'UNSUPPORTED_MEDIA_TYPE',
        `The file starts like a ${format} image but holds no whole picture: its width and height are not in it, so it is cut short or damaged (nothing was kept). Open it in an image editor, save it again, and upload that.`,
      ])
    }
    expect(await usage()).toEqual(before)
    // The refused bytes went from the disk too: the store's folder holds its one earlier picture.
    expect(readdirSync(join(t.dir, 'media', A.group.storeId))).toEqual([A.media.url.split('/').pop()])
    // Longer than the bytes read (a camera's metadata before the size): kept, of unknown size.
    const long = withMetadata(5)
    expect(long.length).toBeGreaterThan(IMAGE_HEAD_BYTES)
    const kept = await expectOk(upload(long, 'camera.jpg'), 201)
    expect([kept.sizeBytes, 'width' in kept]).toEqual([long.length, false])
  })

})
