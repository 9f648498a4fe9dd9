import { describe, expect, test } from 'bun:test'
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { contents, entriesOf, symlink, tarGz, withSql } from '../helpers/archives'
import { buildExecutable, emptyDir, overHttp, runExecutable, startExecutable } from '../helpers/executable'
import { apiKey, bearer, expectOk, FIXTURES, formWith } from '../helpers/world'

/**
 * A backup is passed around (a shared drive, a USB stick), so a classmate can hand the teacher one they
 * changed. The red team's archive: a real backup of the class, plus links that the old restore wrote
 * and the next start followed: a link named as a media id up to the data folder, a store folder that
 * leads beside the data folder (the sweep emptied it), and a media file that leads to the admin token
 * (the file route served it to anyone). And a database with one trigger more, which copied every new
 * webhook's signing secret into another store's product. The real executable refuses both with exit
 * code 2 and changes nothing; a server started on the folder afterwards touches nothing outside it
 * and serves nothing outside it, even when the links are put into the folder by hand.
 */
const bin = await buildExecutable()

/** Every entry under `root`, links and folders included, with a checksum of each file's bytes. */
/** Everything but the data folder: what neither a restore nor a server may touch. */
const outsideOf = (all: Record<string, string>, data = 'data') => Object.fromEntries(Object.entries(all).filter(([path]) => path !== data && !path.startsWith(`${data}/`)))

/** A class with one store and one picture, served by the executable, then stopped and backed up. */
async function backedUpClass(dir: string) {
  const server = await startExecutable(bin, dir, ['--rate-limit-rps', '0'])
  const adminToken = readFileSync(join(dir, 'data', 'admin-token'), 'utf8').trim()
  const call = overHttp(server.base)
  try {
    const group = await expectOk(call('POST', '/v1/admin/groups', { headers: { 'x-admin-token': adminToken }, body: { name: 'Azul', members: [{ rm: '100', name: 'Ana' }] } }), 201)
    const first = await expectOk(call('POST', '/v1/store/auth/login', { body: { rm: '100', password: '100' } }))
    const student = await expectOk(call('POST', '/v1/store/auth/change-password', { headers: bearer(first.token), body: { currentPassword: '100', newPassword: 'pw-100-secret' } }))
    const key = await expectOk(call('POST', '/v1/store/api-keys', { headers: bearer(student.token), body: { name: 'main' } }), 201)
    const media = await expectOk(call('POST', '/v1/uploads', { headers: apiKey(key.apiKey), raw: formWith('sample.png') }), 201)
    return { storeId: group.storeId as string, mediaId: media.id as string, adminToken }
  } finally {
    expect(await server.stop()).toBe(0)
  }
}

describe('a crafted backup given to storefront restore', () => {
  test('the red team\'s archive and an extra trigger are refused with exit code 2; the server afterwards touches and serves nothing outside the data folder, even through links put there by hand', async () => {
    const dir = emptyDir()
    const { storeId, mediaId, adminToken } = await backedUpClass(dir)
    const png = readFileSync(join(FIXTURES, 'sample.png'))
    const backup = await runExecutable(bin, ['backup', 'class.tgz', '--data', 'data'], dir)
    expect([backup.code, backup.stderr]).toEqual([0, ''])
    const entries = await entriesOf(join(dir, 'class.tgz'))
    const pngEntry = `media/${storeId}/${mediaId}.png`
    expect(entries.map((e) => e.path)).toContain(pngEntry)

    // Beside the data folder: a folder of the teacher's that the old sweep emptied through a link.
    mkdirSync(join(dir, 'victim'))
    writeFileSync(join(dir, 'victim', 'grades.csv'), 'ana,10\n')
    writeFileSync(
      join(dir, 'red-team.tgz'),
      tarGz([
        ...entries.filter((e) => e.path !== pngEntry),
        // In this order each link's target reads, as text, as a path inside the archive.
        symlink('media/str_evil', `${storeId}/${mediaId}/../victim`),
        symlink(pngEntry, `${mediaId}/admin-token`),
        symlink(`media/${storeId}/${mediaId}`, '../..'),
      ]),
    )
    const trigger = "CREATE TRIGGER steal AFTER INSERT ON webhook_endpoints BEGIN UPDATE products SET description = NEW.secret WHERE store_id = 'str_thief'; END"
    writeFileSync(join(dir, 'trigger.tgz'), tarGz(withSql(entries, trigger)))
    const before = contents(dir)

    const redTeam = await runExecutable(bin, ['restore', 'red-team.tgz', '--data', 'data'], dir)
    expect([redTeam.code, redTeam.stdout]).toEqual([2, ''])
    expect(redTeam.stderr).toBe(
      `storefront: red-team.tgz is not restored: it holds 'media/str_evil', a symbolic link to '${storeId}/${mediaId}/../victim' (and 2 other entries), where a backup holds only the file storefront.db and the folders media/ and media/<store id>/, with files named <media id>.<extension> in them; nothing was changed. Restore a backup that storefront backup wrote\n`,
    )
    const extraTrigger = await runExecutable(bin, ['restore', 'trigger.tgz', '--data', 'data'], dir)
    expect([extraTrigger.code, extraTrigger.stdout]).toEqual([2, ''])
    expect(extraTrigger.stderr).toBe(
      "storefront: the database in trigger.tgz is not as Storefront's migrations make it: it has a trigger 'steal' that they do not make; nothing was changed. Restore a backup that storefront backup wrote\n",
    )
    expect(contents(dir)).toEqual(before)

    // The links put into the folder by hand, as a restore of an older build left them.
    const media = join(dir, 'data', 'media')
    symlinkSync('../..', join(media, storeId, mediaId))
    symlinkSync(join('..', '..', 'victim'), join(media, 'str_evil'))
    rmSync(join(media, storeId, `${mediaId}.png`))
    symlinkSync(join('..', '..', 'admin-token'), join(media, storeId, `${mediaId}.png`))
    const server = await startExecutable(bin, dir)
    try {
      expect(server.stdout()).toContain('removed 3 links from the media folder, without following them: media files are served from plain folders only')
      const served = await fetch(`${server.base}/v1/files/${storeId}/${mediaId}.png`)
      const text = await served.text()
      expect([served.status, JSON.parse(text).error.code]).toEqual([404, 'NOT_FOUND'])
      expect(text).not.toContain(adminToken)
    } finally {
      expect(await server.stop()).toBe(0)
    }
    expect(outsideOf(contents(dir))).toEqual(outsideOf(before))
    expect(readdirSync(join(dir, 'victim'))).toEqual(['grades.csv'])

    // The class's own backup still restores, and its picture is served again.
    const restored = await runExecutable(bin, ['restore', 'class.tgz', '--data', 'data'], dir)
    expect([restored.code, restored.stderr]).toEqual([0, ''])
    expect(restored.stdout).toStartWith(`restored class.tgz into ${join(dir, 'data')}; the previous data is in ${join(dir, 'data', 'before-restore-')}`)
    const again = await startExecutable(bin, dir)
    try {
      const res = await fetch(`${again.base}/v1/files/${storeId}/${mediaId}.png`)
      expect([res.status, Buffer.from(await res.arrayBuffer()).equals(png)]).toEqual([200, true])
    } finally {
      expect(await again.stop()).toBe(0)
    }
  })
})
