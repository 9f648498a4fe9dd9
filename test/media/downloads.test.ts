import { describe, expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Downloads, DOWNLOADS_AT_ONCE, DOWNLOADS_PER_ADDRESS, STALLED_MS, type DownloadSlot } from '../../src/features/media/downloads'
import { ManualClock } from '../../src/kernel/clock'
import { CHUNK } from '../../src/features/media/stored'
import { CLIENT_ADDRESS_HEADER, clientAddressesFromHeader, createTestApp } from '../helpers/app'
import { twoStores } from '../helpers/world'

describe('downloads of large files are bounded per client address and in all', () => {
  test('the slots: per address, then in all; each given back once, whoever ends it', () => {
    const downloads = new Downloads(new ManualClock())
    const slots = Array.from({ length: DOWNLOADS_PER_ADDRESS }, () => downloads.begin('10.0.0.1'))
    expect(() => downloads.begin('10.0.0.1')).toThrow(
      `This address already has ${DOWNLOADS_PER_ADDRESS} files downloading, the most it may have at once, and every one of them was read from in the last ${STALLED_MS / 1000} s.`,
    )
    downloads.begin('10.0.0.2')
    slots[0]!.end()
    slots[0]!.end()
    expect([downloads.running('10.0.0.1'), downloads.running()]).toEqual([DOWNLOADS_PER_ADDRESS - 1, DOWNLOADS_PER_ADDRESS])
    downloads.begin('10.0.0.1')
    // Addresses with room of their own still meet the bound of the whole server.
    for (let i = downloads.running(); i < DOWNLOADS_AT_ONCE; i++) downloads.begin(`10.1.${i >> 8}.${i & 255}`)
    expect(() => downloads.begin('10.9.9.9')).toThrow(`The server already has ${DOWNLOADS_AT_ONCE} files downloading`)
  })

  test(`when the slots are full, the download read from longest ago is stopped for a new one, once it has taken nothing for ${STALLED_MS / 1000} s`, () => {
    const clock = new ManualClock()
    const downloads = new Downloads(clock)
    const stopped: string[] = []
    const begun: DownloadSlot[] = []
    const begin = (address: string, name: string) => {
      const slot = downloads.begin(address)
      slot.stop = () => stopped.push(name)
      begun.push(slot)
      return slot
    }
    begin('10.0.0.5', 'elsewhere')
    const own = Array.from({ length: DOWNLOADS_PER_ADDRESS }, (_, i) => begin('10.0.0.1', `own ${i}`))
    clock.advance(STALLED_MS - 1)
    // Every client still reading but two: the one read longest ago goes first, then the next.
    for (const slot of own.slice(2)) slot.read()
    own[0]!.read()
    expect(() => begin('10.0.0.1', 'too soon')).toThrow('This address already has 64 files downloading')
    clock.advance(1)
    const new1 = begin('10.0.0.1', 'new 1')
    expect(stopped).toEqual(['own 1'])
    expect(downloads.running('10.0.0.1')).toBe(DOWNLOADS_PER_ADDRESS)
    clock.advance(STALLED_MS - 1)
    const new2 = begin('10.0.0.1', 'new 2')
    expect(stopped).toEqual(['own 1', 'own 0'])
    // Another address's stalled download is not this address's to stop.
    for (const slot of [...own.slice(2), new1, new2]) slot.read()
    expect(() => begin('10.0.0.1', 'new 3')).toThrow('This address already has 64 files downloading')

    // The server's bound: the stalled download of any address makes room.
    for (let i = downloads.running(); i < DOWNLOADS_AT_ONCE; i++) begin(`10.1.${i >> 8}.${i & 255}`, `other ${i}`)
    begin('10.9.9.9', 'newest')
    expect(stopped).toEqual(['own 1', 'own 0', 'elsewhere'])
    expect([downloads.running(), downloads.running('10.0.0.5'), downloads.running('10.9.9.9')]).toEqual([DOWNLOADS_AT_ONCE, 0, 1])
    // The stalled one stopped may be the new download's own address's only one: the new one is counted there still.
    clock.advance(STALLED_MS)
    const again = begin('10.0.0.5', 'elsewhere again')
    expect(stopped.at(-1)).toBe('own 2')
    clock.advance(STALLED_MS)
    for (const slot of begun) if (slot !== again) slot.read()
    begin('10.0.0.5', 'elsewhere third')
    expect(stopped.at(-1)).toBe('elsewhere again')
    expect([downloads.running(), downloads.running('10.0.0.5')]).toEqual([DOWNLOADS_AT_ONCE, 1])
  })

  test('over HTTP: answers never read hold their address’s slots, one more is a 409, another address still downloads; a picture takes none', async () => {
    const t = createTestApp({ settings: { rateLimitRps: '0' } })
    clientAddressesFromHeader(t.app)
    const w = await twoStores(t.call, t.deps)
    const name = `${w.A.media.id}.png`
    const path = join(t.dir, 'media', w.A.group.storeId, name)
    const get = (address: string) => t.app.handle(new Request(`http://localhost/v1/files/${w.A.group.storeId}/${name}`, { headers: { [CLIENT_ADDRESS_HEADER]: address } }))
    // A picture of one read or less is sent at once: no slot, however many.
    for (let i = 0; i < DOWNLOADS_PER_ADDRESS + 5; i++) expect((await get('10.0.0.1')).status).toBe(200)
    writeFileSync(path, new Uint8Array(CHUNK * 4))
    const held = []
    for (let i = 0; i < DOWNLOADS_PER_ADDRESS; i++) held.push(await get('10.0.0.1'))
    expect(held.map((r) => r.status)).toEqual(Array(DOWNLOADS_PER_ADDRESS).fill(200))
    const refused = await get('10.0.0.1')
    expect([refused.status, ((await refused.json()) as { error: { code: string } }).error.code]).toEqual([409, 'LIMIT_REACHED'])
    const other = await get('10.0.0.2')
    expect([other.status, (await other.arrayBuffer()).byteLength]).toEqual([200, CHUNK * 4])
    // One read to its end and one given up free two slots.
    expect((await held[0]!.arrayBuffer()).byteLength).toBe(CHUNK * 4)
    await held[1]!.body!.cancel()
    expect([(await get('10.0.0.1')).status, (await get('10.0.0.1')).status]).toEqual([200, 200])
    expect((await get('10.0.0.1')).status).toBe(409)
  })

  test('over HTTP: a download never read is stopped for a new one once it has stalled; its answer ends in an error, its connection is closed once idle, and its slot is the new one’s', async () => {
    const t = createTestApp({ settings: { rateLimitRps: '0' } })
    clientAddressesFromHeader(t.app)
    // Bun's server.timeout(request, seconds): what closes the stopped download's connection.
    const closed: [string, number][] = []
    Object.assign(t.app.server!, { timeout: (request: Request, seconds: number) => closed.push([new URL(request.url).pathname, seconds]) })
    const w = await twoStores(t.call, t.deps)
    const name = `${w.A.media.id}.png`
    writeFileSync(join(t.dir, 'media', w.A.group.storeId, name), new Uint8Array(CHUNK * 4))
    const get = () => t.app.handle(new Request(`http://localhost/v1/files/${w.A.group.storeId}/${name}`, { headers: { [CLIENT_ADDRESS_HEADER]: '10.0.0.1' } }))
    const held = []
    for (let i = 0; i < DOWNLOADS_PER_ADDRESS; i++) held.push(await get())
    expect((await get()).status).toBe(409)
    t.clock.advance(STALLED_MS)
    const fresh = await get()
    expect(fresh.status).toBe(200)
    expect(t.deps.downloads.running('10.0.0.1')).toBe(DOWNLOADS_PER_ADDRESS)
    const failure = await held[0]!.arrayBuffer().then(
      () => 'read to the end',
      (e: Error) => e.message,
    )
    expect(failure).toBe('stopped: its client read nothing while others waited for a download slot')
    expect(closed).toEqual([[`/v1/files/${w.A.group.storeId}/${name}`, 1]])
    expect((await fresh.arrayBuffer()).byteLength).toBe(CHUNK * 4)
    expect((await held[1]!.arrayBuffer()).byteLength).toBe(CHUNK * 4)
    expect(t.deps.downloads.running('10.0.0.1')).toBe(DOWNLOADS_PER_ADDRESS - 2)
  })
})
