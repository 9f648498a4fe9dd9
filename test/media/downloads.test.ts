import { describe, expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Downloads, DOWNLOADS_AT_ONCE, DOWNLOADS_PER_ADDRESS } from '../../src/features/media/downloads'
import { CHUNK } from '../../src/features/media/stored'
import { CLIENT_ADDRESS_HEADER, clientAddressesFromHeader, createTestApp } from '../helpers/app'
import { twoStores } from '../helpers/world'

describe('downloads of large files are bounded per client address and in all', () => {
  test('the slots: per address, then in all; each given back once, whoever ends it', () => {
    const downloads = new Downloads()
    const ends = Array.from({ length: DOWNLOADS_PER_ADDRESS }, () => downloads.begin('10.0.0.1'))
    expect(() => downloads.begin('10.0.0.1')).toThrow(`This address already has ${DOWNLOADS_PER_ADDRESS} files downloading, the most it may have at once.`)
    expect(downloads.begin('10.0.0.2')).toBeFunction()
    ends[0]!()
    ends[0]!()
    expect([downloads.running('10.0.0.1'), downloads.running()]).toEqual([DOWNLOADS_PER_ADDRESS - 1, DOWNLOADS_PER_ADDRESS])
    expect(downloads.begin('10.0.0.1')).toBeFunction()
    // Addresses with room of their own still meet the bound of the whole server.
    for (let i = downloads.running(); i < DOWNLOADS_AT_ONCE; i++) downloads.begin(`10.1.${i >> 8}.${i & 255}`)
    expect(() => downloads.begin('10.9.9.9')).toThrow(`The server already has ${DOWNLOADS_AT_ONCE} files downloading`)
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
})
