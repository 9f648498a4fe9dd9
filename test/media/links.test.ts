import { describe, expect, test } from 'bun:test'
import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ASIDE_PREFIX } from '../../src/features/media/service'
import { sweepMediaFolder } from '../../src/features/media/sweep'
import { createTestApp } from '../helpers/app'
import { tempDir } from '../helpers/temp'
import { apiKey, FIXTURES, twoStores, upload } from '../helpers/world'

/**
 * A data folder with two stores and a file each, and beside it what a link could reach: a folder of
 * the teacher's and a secret file. The links themselves are planted by each test, as a restored
 * archive of an older build, or a hand, could have left them.
 */
async function setup() {
  const t = createTestApp({ settings: { rateLimitRps: '0' } })
  const world = await twoStores(t.call, t.deps)
  const outside = tempDir('outside')
  mkdirSync(join(outside, 'victim'))
  writeFileSync(join(outside, 'victim', 'thesis.txt'), 'four years of work')
  writeFileSync(join(outside, 'victim', `${world.A.media.id}.png`), 'not a library file')
  writeFileSync(join(outside, 'secret'), 'adm_the_admin_token')
  const media = join(t.dir, 'media')
  const fileOf = (store: typeof world.A) => ({ dir: join(media, store.group.storeId), name: `${store.media.id}.png`, path: join(media, store.group.storeId, `${store.media.id}.png`) })
  return { ...t, world, outside, media, a: fileOf(world.A), b: fileOf(world.B) }
}

const get = (t: Awaited<ReturnType<typeof setup>>, storeId: string, name: string, headers: Record<string, string> = {}) =>
  t.app.handle(new Request(`http://localhost/v1/files/${storeId}/${name}`, { headers }))

const exists = (path: string) => {
  try {
    lstatSync(path)
    return true
  } catch {
    return false
  }
}

describe('the media sweep at start follows no link', () => {
  test('links to the data folder, beside it and into a store are removed as links; what they point to is all still there', async () => {
    const t = await setup()
    // The red team's shapes: a link named as a media id up to the data folder, a store folder that is a
    // link out of it, and a media file that is a link to a secret.
    symlinkSync('../..', join(t.a.dir, t.world.A.media.id))
    symlinkSync(join(t.outside, 'victim'), join(t.media, 'str_evil'))
    rmSync(t.b.path)
    symlinkSync(join(t.outside, 'secret'), t.b.path)
    // A plain folder where no file belongs, holding a link out: removed, and the link inside not followed.
    mkdirSync(join(t.a.dir, 'stray'))
    symlinkSync(join(t.outside, 'victim'), join(t.a.dir, 'stray', 'inside'))
    const pngBefore = readFileSync(t.a.path)

    expect(await sweepMediaFolder(t.deps)).toEqual({ files: 1, links: 3 })

    expect(readdirSync(join(t.outside, 'victim')).sort()).toEqual([`${t.world.A.media.id}.png`, 'thesis.txt'])
    expect(readFileSync(join(t.outside, 'victim', 'thesis.txt'), 'utf8')).toBe('four years of work')
    expect(readFileSync(join(t.outside, 'secret'), 'utf8')).toBe('adm_the_admin_token')
    expect(existsSync(join(t.dir, 'storefront.db'))).toBe(true)
    expect([exists(join(t.a.dir, t.world.A.media.id)), exists(join(t.media, 'str_evil')), exists(t.b.path), exists(join(t.a.dir, 'stray'))]).toEqual([false, false, false, false])
    expect(readFileSync(t.a.path).equals(pngBefore)).toBe(true)
    expect(readdirSync(t.media).sort()).toEqual([t.world.A.group.storeId, t.world.B.group.storeId].sort())
  })

  test("a reset store's folder moved aside and left by a crash is removed at start; the stores' own files stay", async () => {
    const t = await setup()
    const aside = join(t.media, `${ASIDE_PREFIX}${t.world.A.group.storeId}-abcd1234`)
    mkdirSync(join(aside, 'nested'), { recursive: true })
    writeFileSync(join(aside, 'med_old.png'), 'a file of the store before its reset')
    symlinkSync(join(t.outside, 'victim'), join(aside, 'nested', 'out'))

    expect(await sweepMediaFolder(t.deps)).toEqual({ files: 1, links: 0 })

    expect(readdirSync(t.media).sort()).toEqual([t.world.A.group.storeId, t.world.B.group.storeId].sort())
    expect([existsSync(t.a.path), existsSync(t.b.path)]).toEqual([true, true])
    expect(readdirSync(join(t.outside, 'victim')).sort()).toEqual([`${t.world.A.media.id}.png`, 'thesis.txt'])
  })

  test('a media folder that is itself a link is removed as a link and made again, empty; the folder it pointed to keeps every file', async () => {
    const t = await setup()
    const elsewhere = join(t.outside, 'media-elsewhere')
    renameSync(t.media, elsewhere)
    symlinkSync(elsewhere, t.media)
    writeFileSync(join(elsewhere, t.world.A.group.storeId, 'unknown.bin'), 'would be swept in a real folder')

    expect(await sweepMediaFolder(t.deps)).toEqual({ files: 0, links: 1 })

    expect(lstatSync(t.media).isDirectory()).toBe(true)
    expect(readdirSync(t.media)).toEqual([])
    expect(readdirSync(join(elsewhere, t.world.A.group.storeId)).sort()).toEqual([t.a.name, 'unknown.bin'].sort())
  })

  test('a file under another store\'s folder, or under another extension, is not kept by a record of another store', async () => {
    const t = await setup()
    cpSync(t.a.path, join(t.b.dir, t.a.name))
    cpSync(t.a.path, join(t.a.dir, `${t.world.A.media.id}.gif`))
    expect(await sweepMediaFolder(t.deps)).toEqual({ files: 2, links: 0 })
    expect(readdirSync(t.a.dir)).toEqual([t.a.name])
    expect(readdirSync(t.b.dir)).toEqual([t.b.name])
  })
})

describe('the file route serves no link', () => {
  test('a media file that is a link to a secret is a 404, never the secret', async () => {
    const t = await setup()
    rmSync(t.a.path)
    symlinkSync(join(t.outside, 'secret'), t.a.path)
    for (const headers of [{}, { range: 'bytes=0-5' }, { 'if-none-match': `"${t.world.A.media.id}"` }] as Record<string, string>[]) {
      const res = await get(t, t.world.A.group.storeId, t.a.name, headers)
      const text = await res.text()
      expect([res.status, JSON.parse(text).error.code]).toEqual([404, 'NOT_FOUND'])
      expect(text).not.toContain('adm_the_admin_token')
    }
  })

  test('a store folder or a media folder that is a link is a 404, though the file it leads to is a plain file', async () => {
    const t = await setup()
    const copy = join(t.outside, 'copy-of-b')
    cpSync(t.b.dir, copy, { recursive: true })
    rmSync(t.b.dir, { recursive: true })
    symlinkSync(copy, t.b.dir)
    expect((await get(t, t.world.B.group.storeId, t.b.name)).status).toBe(404)

    const elsewhere = join(t.outside, 'media-elsewhere')
    renameSync(t.media, elsewhere)
    symlinkSync(elsewhere, t.media)
    expect(readFileSync(t.a.path).length).toBeGreaterThan(0) // reachable through the link...
    expect((await get(t, t.world.A.group.storeId, t.a.name)).status).toBe(404) // ...and still not served
  })

  test('a folder or a fifo where the file belongs is a 404 at once', async () => {
    const t = await setup()
    rmSync(t.a.path)
    mkdirSync(t.a.path)
    expect((await get(t, t.world.A.group.storeId, t.a.name)).status).toBe(404)
    rmSync(t.b.path)
    expect(Bun.spawnSync(['mkfifo', t.b.path]).exitCode).toBe(0)
    expect((await get(t, t.world.B.group.storeId, t.b.name)).status).toBe(404)
  })

  test('the file served is closed when its answer is read to the end, cancelled, refused, or dropped unread', async () => {
    const t = await setup()
    // The descriptors of this process open on the file (the one listing /proc/self/fd goes while it is read).
    const target = (fd: string) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`, { encoding: 'utf8' })
      } catch {
        return undefined
      }
    }
    const opened = () => readdirSync('/proc/self/fd').filter((fd) => target(fd) === t.a.path).length
    const ask = (headers: Record<string, string> = {}) => get(t, t.world.A.group.storeId, t.a.name, headers)
    for (let i = 0; i < 5; i++) await (await ask()).arrayBuffer()
    for (let i = 0; i < 5; i++) await (await ask({ range: 'bytes=0-9' })).body!.cancel()
    for (let i = 0; i < 5; i++) expect((await ask({ range: 'bytes=99999-' })).status).toBe(416)
    for (let i = 0; i < 5; i++) expect((await ask({ 'if-none-match': `"${t.world.A.media.id}"` })).status).toBe(304)
    await Bun.sleep(10)
    expect(opened()).toBe(0)
    // A picture of one chunk or less is read at once: its answer holds the bytes, not the file.
    for (let i = 0; i < 5; i++) expect((await ask()).status).toBe(200) // the body is never read
    expect(opened()).toBe(0)
    // A larger file is read as the client takes it: an answer never read keeps it open until collected.
    writeFileSync(t.a.path, new Uint8Array(600 * 1024))
    const big = await ask()
    expect([big.status, big.headers.get('content-length'), (await big.arrayBuffer()).byteLength]).toEqual([200, String(600 * 1024), 600 * 1024])
    for (let i = 0; i < 5; i++) await (await ask({ range: 'bytes=0-399999' })).body!.cancel()
    await Bun.sleep(10)
    expect(opened()).toBe(0)
    for (let i = 0; i < 5; i++) expect((await ask()).status).toBe(200) // the body is never read
    expect(opened()).toBe(5)
    for (let i = 0; i < 20 && opened() > 0; i++) {
      Bun.gc(true)
      await Bun.sleep(10)
    }
    expect(opened()).toBe(0)
  })

  test('a plain file is still served whole and by ranges', async () => {
    const t = await setup()
    const bytes = readFileSync(join(FIXTURES, 'sample.png'))
    const whole = await get(t, t.world.A.group.storeId, t.a.name)
    expect([whole.status, whole.headers.get('content-length')]).toEqual([200, String(bytes.length)])
    expect(Buffer.from(await whole.arrayBuffer()).equals(bytes)).toBe(true)
    const part = await get(t, t.world.A.group.storeId, t.a.name, { range: 'bytes=10-19' })
    expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(10, 20))).toBe(true)
  })
})

describe('media writes and deletes go through no link', () => {
  test("an upload into a store whose folder was replaced by a link lands in a plain folder; the link's target is untouched", async () => {
    const t = await setup()
    // The store's folder moved aside and a link to the teacher's folder put in its place, by hand.
    renameSync(t.a.dir, join(t.outside, 'moved'))
    symlinkSync(join(t.outside, 'victim'), t.a.dir)
    const before = readdirSync(join(t.outside, 'victim')).sort()
    const media = await upload(t.call, apiKey(t.world.A.key.apiKey))
    expect(lstatSync(t.a.dir).isDirectory()).toBe(true)
    expect(readdirSync(t.a.dir)).toEqual([`${media.id}.png`])
    expect(readdirSync(join(t.outside, 'victim')).sort()).toEqual(before)
  })

  test('deleting a file whose store folder is a link removes nothing through it', async () => {
    const t = await setup()
    rmSync(t.a.dir, { recursive: true })
    symlinkSync(join(t.outside, 'victim'), t.a.dir)
    const answer = await t.call('DELETE', `/v1/media/${t.world.A.media.id}?force=true`, { headers: apiKey(t.world.A.key.apiKey) })
    expect(answer.status).toBe(204)
    // The victim folder holds a file named like the deleted one: it is still there.
    expect(readFileSync(join(t.outside, 'victim', `${t.world.A.media.id}.png`), 'utf8')).toBe('not a library file')
  })
})
