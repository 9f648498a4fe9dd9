import { describe, expect, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { UPLOADS_AT_ONCE } from '../../src/features/media/in-flight'
import { MiB } from '../../src/features/media/formats'
import { createTestApp } from '../helpers/app'
import { admin, apiKey, expectOk, FIXTURES, formWith, twoStores } from '../helpers/world'

/**
 * Uploads whose bytes arrive only when the test sends them (a ReadableStream it feeds), so that several
 * of them are in flight at once at a pace the test decides, never by timing.
 */

const KiB = 1024
const CHUNK = 64 * KiB
const BOUNDARY = 'in-flight-boundary'
const PNG = readFileSync(join(FIXTURES, 'sample.png'))
/** The multipart framing fedUpload sends around the file: its opening and closing boundaries and headers. */
const FRAMED = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="fed.png"\r\nContent-Type: image/png\r\n\r\n`.length + `\r\n--${BOUNDARY}--\r\n`.length
/** Bytes the multipart parser may hold back at the end of what it was sent, in case they start the boundary. */
const HELD_BACK = 256

const setup = async (settings = {}) => {
  const t = createTestApp({ settings: { rateLimitRps: '0', ...settings } })
  const world = await twoStores(t.call, t.deps)
  const storeA = world.A.group.storeId as string
  return { ...t, world, storeA, keyA: apiKey(world.A.key.apiKey), keyB: apiKey(world.B.key.apiKey), folderA: join(t.dir, 'media', storeA) }
}
type T = Awaited<ReturnType<typeof setup>>

/** Every file in a store's media folder and its size, a partial upload's temp file included. */
const filesIn = (folder: string): Record<string, number> => {
  if (!existsSync(folder)) return {}
  const sizes: Record<string, number> = {}
  for (const name of readdirSync(folder)) {
    try {
      sizes[name] = statSync(join(folder, name)).size
    } catch {
      // removed between the listing and the stat
    }
  }
  return sizes
}
const bytesIn = (folder: string) => Object.values(filesIn(folder)).reduce((a, b) => a + b, 0)

/** Waits for `ready` (the server works on its own: reading, writing, answering), failing after a few seconds. */
async function until(ready: () => boolean, what: string) {
  for (let i = 0; i < 10_000; i++) {
    if (ready()) return
    await Bun.sleep(1)
  }
  throw new Error(`gave up waiting: ${what}`)
}

/**
 * A PNG upload of `size` bytes (the sample's bytes, then zeros) whose body the test sends piece by piece.
 * `temp` is the upload's partial file in the store's folder, known once its first bytes were written.
 */
/** The temp files already known to be an upload's, so that each upload finds its own. */
const claimed = new Set<string>()

function fedUpload(t: T, headers: Record<string, string>, size: number, path = '/v1/uploads', declared = false) {
  let controller!: ReadableStreamDefaultController<Uint8Array>
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) })
  const state = { settled: false, fed: 0, temp: undefined as string | undefined, endSent: false }
  const response = t.app
    .handle(
      new Request(`http://localhost:3000${path}`, {
        method: 'POST',
        headers: { ...headers, 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, ...(declared ? { 'content-length': String(size + FRAMED) } : {}) },
        body,
        duplex: 'half',
      } as RequestInit),
    )
    .then(async (r) => ({ status: r.status, body: (await r.json()) as any }))
    .finally(() => (state.settled = true))
  controller.enqueue(new TextEncoder().encode(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="fed.png"\r\nContent-Type: image/png\r\n\r\n`))
  const written = () => (state.temp ? (filesIn(t.folderA)[state.temp] ?? 0) : 0)
  return {
    state,
    response,
    /** Sends the next `bytes` of the file and waits until the server wrote them, or answered. */
    async send(bytes: number) {
      const start = state.fed
      const piece = new Uint8Array(bytes)
      if (start < PNG.length) piece.set(PNG.subarray(start, start + bytes))
      state.fed += bytes
      if (!state.settled) controller.enqueue(piece)
      await until(() => {
        if (state.settled) return true
        if (!state.temp) {
          state.temp = Object.keys(filesIn(t.folderA)).find((n) => n.startsWith('.tmp-') && !claimed.has(n))
          if (state.temp) claimed.add(state.temp)
        }
        return written() >= state.fed - HELD_BACK
      }, `the server writing ${state.fed} bytes`)
    },
    /** Sends the rest of the file in chunks while the server takes it, then the closing boundary; `sample` runs after each chunk. */
    async finish(sample: () => void = () => {}) {
      while (state.fed < size && !state.settled) {
        await this.send(Math.min(CHUNK, size - state.fed))
        sample()
      }
      if (!state.settled) {
        state.endSent = true
        controller.enqueue(new TextEncoder().encode(`\r\n--${BOUNDARY}--\r\n`))
        controller.close()
      }
      return response
    },
    /** Sends the rest of the file and the closing boundary at once, without watching the server write them. */
    sendRest() {
      controller.enqueue(new Uint8Array(size - state.fed))
      state.fed = size
      state.endSent = true
      controller.enqueue(new TextEncoder().encode(`\r\n--${BOUNDARY}--\r\n`))
      controller.close()
      return response
    },
    /** The client goes away: the body ends with an error. */
    abort() {
      controller.error(new Error('the client went away'))
      return response
    },
  }
}

describe('uploads in flight count against the quota', () => {
  test('uploads sent together that do not all fit: the ones that fit are kept, the other is 413 while it arrives, and the disk never holds more than the quota', async () => {
    const t = await setup({ mediaQuotaMb: '1' })
    const quota = 1 * MiB
    const used = bytesIn(t.folderA) // the world's own picture
    const size = 400 * KiB
    let most = 0
    const sample = () => (most = Math.max(most, bytesIn(t.folderA)))

    const one = fedUpload(t, t.keyA, size)
    await one.send(8 * KiB)
    const two = fedUpload(t, t.keyA, size)
    await two.send(8 * KiB)
    expect(t.deps.uploads.of(t.storeA)).toEqual({ uploads: 2, reservedBytes: 16 * KiB })
    // Turn by turn, the first a chunk and the second half a chunk, until the first ends.
    while (one.state.fed < size) {
      await one.send(Math.min(CHUNK, size - one.state.fed))
      sample()
      await two.send(CHUNK / 2)
      sample()
    }
    const first = await one.finish()
    expect(first.status).toBe(201)
    expect(first.body.sizeBytes).toBe(size)

    // A third starts in the slot the first freed, turn by turn with the second; they do not both fit.
    const three = fedUpload(t, t.keyA, size)
    await three.send(8 * KiB)
    while (!three.state.settled && three.state.fed < size) {
      await three.send(Math.min(CHUNK, size - three.state.fed))
      sample()
      if (two.state.fed < size) await two.send(Math.min(CHUNK, size - two.state.fed))
      sample()
    }
    const third = await three.finish(sample)
    const second = await two.finish(sample)
    expect(second.status).toBe(201)
    expect(second.body.sizeBytes).toBe(size)
    expect([third.status, third.body.error.code]).toEqual([413, 'QUOTA_EXCEEDED'])
    expect(third.body.error.message).toContain('the files of uploads still running count too')
    expect(third.body.error.message).toContain('GET /v1/media/usage')
    // Refused while it arrived, not after the whole file was on disk.
    expect(three.state.endSent).toBe(false)
    expect(three.state.fed).toBeLessThan(size)

    // The disk never held more than the quota (a chunk of slack, to be generous with the measure).
    expect(most).toBeGreaterThan(used + 2 * size - 2 * CHUNK)
    expect(most).toBeLessThanOrEqual(quota + CHUNK)
    expect(bytesIn(t.folderA)).toBe(used + 2 * size)
    expect(Object.keys(filesIn(t.folderA)).filter((n) => n.startsWith('.tmp'))).toEqual([])
    const usage = await expectOk(t.call('GET', '/v1/media/usage', { headers: t.keyA }))
    expect([usage.files, usage.usedBytes]).toEqual([3, used + 2 * size])
    expect(t.deps.uploads.of(t.storeA)).toEqual({ uploads: 0, reservedBytes: 0 })
  })

  test('uploads that declare their size are judged whole in the order they came: of two that do not both fit, the first is kept and the second refused before it is read', async () => {
    const t = await setup({ mediaQuotaMb: '1' })
    const size = 586 * KiB
    const one = fedUpload(t, t.keyA, size, '/v1/uploads', true)
    await one.send(8 * KiB)
    const two = fedUpload(t, t.keyA, size, '/v1/uploads', true)
    // Fed side by side, as two uploads sent together arrive: without their sizes declared, both were cut partway.
    while (!two.state.settled) {
      await two.send(CHUNK)
      await one.send(CHUNK)
    }
    const second = await two.response
    expect([second.status, second.body.error.code]).toEqual([413, 'QUOTA_EXCEEDED'])
    expect(two.state.fed).toBe(CHUNK)
    const first = await one.finish()
    expect([first.status, first.body.sizeBytes]).toEqual([201, size])
    expect(t.deps.uploads.of(t.storeA)).toEqual({ uploads: 0, reservedBytes: 0 })
    const usage = await expectOk(t.call('GET', '/v1/media/usage', { headers: t.keyA }))
    expect(usage.usedBytes).toBe(bytesIn(t.folderA))
  })

  test(`a store runs at most ${UPLOADS_AT_ONCE} uploads at once: one more is 409 LIMIT_REACHED at once, while another store uploads as usual`, async () => {
    const t = await setup()
    const productId = await productOf(t)
    const one = fedUpload(t, t.keyA, 100 * KiB)
    await one.send(8 * KiB)
    const two = fedUpload(t, t.keyA, 100 * KiB, `/v1/products/${productId}/media`)
    await two.send(8 * KiB)

    const third = await t.call('POST', '/v1/uploads', { headers: t.keyA, raw: formWith('sample.png') })
    expect([third.status, third.body.error.code]).toEqual([409, 'LIMIT_REACHED'])
    expect(third.body.error.message).toBe(
      'This store already has 2 uploads running, the most it may have at once. Wait for one of them to finish, then send this file again (send files one after the other, not all at once).',
    )
    const linked = await t.call('POST', `/v1/products/${productId}/media`, { headers: t.keyA, raw: formWith('sample.png') })
    expect([linked.status, linked.body.error.code]).toEqual([409, 'LIMIT_REACHED'])
    // Store B's slots are its own.
    const other = await t.call('POST', '/v1/uploads', { headers: t.keyB, raw: formWith('sample.png') })
    expect([other.status, other.body.kind]).toEqual([201, 'IMAGE'])
    // Neither of A's running uploads noticed.
    expect([one.state.settled, two.state.settled]).toEqual([false, false])

    expect((await one.finish()).status).toBe(201)
    const again = await t.call('POST', '/v1/uploads', { headers: t.keyA, raw: formWith('sample.png') })
    expect(again.status).toBe(201)
    const withImage = await two.finish()
    expect([withImage.status, withImage.body.image.isPrimary, withImage.body.media.sizeBytes]).toEqual([201, true, 100 * KiB])
    expect(t.deps.uploads.of(t.storeA)).toEqual({ uploads: 0, reservedBytes: 0 })
  })

  test("uploads running while the teacher resets the store are 409 and record nothing; the store's next upload starts afresh", async () => {
    const t = await setup({ mediaQuotaMb: '1' })
    const uploads = [fedUpload(t, t.keyA, 300 * KiB), fedUpload(t, t.keyA, 300 * KiB)]
    for (const u of uploads) await u.send(2 * CHUNK)
    await expectOk(t.call('POST', `/v1/admin/groups/${t.world.A.group.id}/reset-store`, { headers: admin }))
    // Each stops at its next piece, not at its end: nothing it still sends is kept, nor counted anywhere.
    for (const u of uploads) {
      await u.send(CHUNK)
      expect([u.state.settled, u.state.fed < 300 * KiB]).toEqual([true, true])
      const answer = await u.response
      expect([answer.status, answer.body.error.code, answer.body.error.message]).toEqual([409, 'CONFLICT', 'The store was reset while this file was uploading, so it was not kept. Send it again.'])
    }
    expect((await expectOk(t.call('GET', '/v1/media', { headers: t.keyA }))).total).toBe(0)
    expect(filesIn(t.folderA)).toEqual({})
    // Nothing of the store's folder is left beside it either.
    expect(readdirSync(join(t.dir, 'media')).filter((n) => n.startsWith('.'))).toEqual([])
    expect(t.deps.uploads.of(t.storeA)).toEqual({ uploads: 0, reservedBytes: 0 })

    // The emptied library has its whole quota: a file of 1 MiB is kept.
    const full = await fedUpload(t, t.keyA, 1 * MiB).finish()
    expect([full.status, full.body.sizeBytes]).toEqual([201, 1 * MiB])
    expect(bytesIn(t.folderA)).toBe(1 * MiB)
  })

  test('an upload the client abandons frees its reservation, its slot and its partial file', async () => {
    const t = await setup({ mediaQuotaMb: '1' })
    const used = bytesIn(t.folderA)
    const uploads = [fedUpload(t, t.keyA, 600 * KiB), fedUpload(t, t.keyA, 600 * KiB)]
    for (const u of uploads) for (let i = 0; i < 6; i++) await u.send(CHUNK)
    expect(t.deps.uploads.of(t.storeA)).toEqual({ uploads: 2, reservedBytes: 12 * CHUNK })
    for (const u of uploads) {
      const gone = await u.abort()
      expect([gone.status, gone.body.error.message]).toEqual([400, 'The upload was interrupted before it ended. Try again.'])
    }
    expect(t.deps.uploads.of(t.storeA)).toEqual({ uploads: 0, reservedBytes: 0 })
    expect(bytesIn(t.folderA)).toBe(used)

    // The whole room left is there again, and both slots: a file of exactly that size is kept.
    const full = fedUpload(t, t.keyA, 1 * MiB - used)
    const kept = await full.finish()
    expect([kept.status, kept.body.sizeBytes]).toEqual([201, 1 * MiB - used])
    expect(bytesIn(t.folderA)).toBe(1 * MiB)
    expect(t.deps.uploads.of(t.storeA)).toEqual({ uploads: 0, reservedBytes: 0 })
  })

  test('a request aborted by its signal ends the upload the same way', async () => {
    const t = await setup()
    let controller!: ReadableStreamDefaultController<Uint8Array>
    const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) })
    const abort = new AbortController()
    const answer = t.app.handle(
      new Request('http://localhost:3000/v1/uploads', {
        method: 'POST',
        headers: { ...t.keyA, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
        body,
        duplex: 'half',
        signal: abort.signal,
      } as RequestInit),
    )
    controller.enqueue(new TextEncoder().encode(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\n`))
    controller.enqueue(new Uint8Array([...PNG, ...new Uint8Array(CHUNK)]))
    await until(() => t.deps.uploads.of(t.storeA).reservedBytes > 0, 'the first bytes reserved')
    abort.abort()
    const res = await answer
    expect(res.status).toBe(400)
    expect(t.deps.uploads.of(t.storeA)).toEqual({ uploads: 0, reservedBytes: 0 })
    expect(Object.keys(filesIn(t.folderA)).filter((n) => n.startsWith('.tmp'))).toEqual([])
  })
})

async function productOf(t: T) {
  const product = await expectOk(t.call('POST', '/v1/products', { headers: t.keyA, body: { name: 'Camiseta', sku: 'TEE-1', price: 10, stock: 1 } }), 201)
  return product.id as string
}
