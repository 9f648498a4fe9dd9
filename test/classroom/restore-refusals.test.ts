import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { backup, BackupError, RefusedBackup, restore } from '../../src/features/backup/service'
import { loadMigrations } from '../../src/kernel/db/migrate'
import { createTestApp } from '../helpers/app'
import { contents, entriesOf, file, folder, hardlink, symlink, tarGz, withSql, type TarEntry } from '../helpers/archives'
import { track } from '../helpers/children'
import { tempDir } from '../helpers/temp'
import { twoStores } from '../helpers/world'

/** Every entry of a folder, links and folders included, with the bytes of each file. */
/** A data folder with two stores and their media, a real backup of it, and that backup's entries. */
async function backedUp() {
  const t = createTestApp({ settings: { rateLimitRps: '0' } })
  const world = await twoStores(t.call, t.deps)
  const archive = join(tempDir('backups'), 'class.tgz')
  await backup(t.database.sqlite, t.dir, archive)
  const [storeId, mediaId] = [world.A.group.storeId as string, world.A.media.id as string]
  return { archive, entries: await entriesOf(archive), storeId, mediaId, png: `media/${storeId}/${mediaId}.png` }
}

/** A data folder a restore is to replace: a database, its media, and the admin token beside them. */
function teacherFolder() {
  const data = join(tempDir('teacher'), 'data')
  mkdirSync(join(data, 'media', 'str_kept'), { recursive: true })
  const db = new Database(join(data, 'storefront.db'))
  db.exec("CREATE TABLE now (what TEXT); INSERT INTO now VALUES ('the database the teacher has now')")
  db.close()
  writeFileSync(join(data, 'media', 'str_kept', 'med_kept.png'), 'a picture')
  writeFileSync(join(data, 'admin-token'), 'adm_secret')
  return data
}

const writeArchive = (entries: TarEntry[]) => {
  const path = join(tempDir('crafted'), 'crafted.tgz')
  writeFileSync(path, tarGz(entries))
  return path
}

/** Restores `entries` over a teacher's folder: the refusal, and whether the folder (and its parent) stayed exactly as it was. */
async function refusal(entries: TarEntry[]) {
  const data = teacherFolder()
  const around = join(data, '..')
  const before = contents(around)
  const archive = writeArchive(entries)
  const error = await restore(archive, data).then(
    () => undefined,
    (e: unknown) => e,
  )
  return { error: error as Error, archive, unchanged: JSON.stringify(contents(around)) === JSON.stringify(before) }
}

const RULE = 'where a backup holds only the file storefront.db and the folders media/ and media/<store id>/, with files named <media id>.<extension> in them; nothing was changed. Restore a backup that storefront backup wrote'

describe('what a backup holds', () => {
  test('a media file deleted while the archive is packed is still in it, as its record is in the database copy', async () => {
    const t = createTestApp({ settings: { rateLimitRps: '0' } })
    const world = await twoStores(t.call, t.deps)
    const png = `media/${world.A.group.storeId}/${world.A.media.id}.png`
    const bytes = readFileSync(join(t.dir, png))
    const archive = join(tempDir('backups'), 'class.tgz')
    // The student deletes the file after the database was copied, before its turn to be packed.
    const steps: string[] = []
    await backup(t.database.sqlite, t.dir, archive, (step) => {
      steps.push(step)
      if (step === 'packing the files') rmSync(join(t.dir, png))
    })
    expect(steps).toEqual(['copying the database', 'packing the files'])
    const packed = (await entriesOf(archive)).find((e) => e.path === png)
    expect(Buffer.from(packed!.body!).equals(bytes)).toBe(true)
    // Nothing of the copy is left in the data folder.
    expect(readdirSync(t.dir).filter((n) => n.startsWith('.'))).toEqual([])
  })
})

describe('restore takes only what a backup writes', () => {
  test('a backup restores into a new folder and over an old one, its database and every media file byte for byte', async () => {
    const { archive, entries } = await backedUp()
    expect(entries.map((e) => e.path).sort()).toEqual(
      expect.arrayContaining(['storefront.db', 'media/', expect.stringMatching(/^media\/str_[0-9a-z]+\/med_[0-9a-z]+\.png$/)]),
    )
    const fresh = join(tempDir('restored'), 'data')
    expect(await restore(archive, fresh)).toEqual({ aside: null })
    for (const e of entries.filter((e) => e.type === '0')) expect([e.path, readFileSync(join(fresh, e.path)).equals(e.body!)]).toEqual([e.path, true])
    const data = teacherFolder()
    const { aside } = await restore(archive, data, Date.UTC(2026, 0, 2))
    expect(aside).toBe(join(data, 'before-restore-2026-01-02T00-00-00-000Z'))
    const kept = new Database(join(aside!, 'storefront.db'), { readonly: true })
    expect(kept.query('SELECT what FROM now').get()).toEqual({ what: 'the database the teacher has now' })
    kept.close()
    expect(readFileSync(join(data, entries.find((e) => e.path.endsWith('.png'))!.path)).equals(entries.find((e) => e.path.endsWith('.png'))!.body!)).toBe(true)
  })

  test('the red team\'s archive (links to the data folder, beside it and to the admin token, added to a real backup) is refused whole, naming the first link', async () => {
    const { entries, storeId, mediaId, png } = await backedUp()
    const crafted = [
      ...entries.filter((e) => e.path !== png),
      // In this order each link's target reads, as text, as a path inside the archive.
      symlink('media/str_evil', `${storeId}/${mediaId}/../victim`),
      symlink(png, `${mediaId}/admin-token`),
      symlink(`media/${storeId}/${mediaId}`, '../..'),
    ]
    const { error, archive, unchanged } = await refusal(crafted)
    expect(error).toBeInstanceOf(RefusedBackup)
    expect(error.message).toBe(`${archive} is not restored: it holds 'media/str_evil', a symbolic link to '${storeId}/${mediaId}/../victim' (and 2 other entries), ${RULE}`)
    expect(unchanged).toBe(true)
  })

  const refused: [string, TarEntry[], string][] = [
    ['a hard link', [hardlink('media/str_a/med_b.png', 'storefront.db')], "'media/str_a/med_b.png', a hard link to 'storefront.db'"],
    ['a character device', [{ path: 'media/str_a/med_b.png', type: '3' }], "'media/str_a/med_b.png', a device"],
    ['a block device', [{ path: 'storefront.db', type: '4' }], "'storefront.db', a device"],
    ['a fifo', [{ path: 'media/str_a/med_b.png', type: '6' }], "'media/str_a/med_b.png', a fifo"],
    ['a contiguous file', [{ path: 'media/str_a/med_b.png', type: '7' }], "'media/str_a/med_b.png', a contiguous file"],
    ['an entry of a type tar skips', [{ path: 'media/str_a/med_b.png', type: 'S' }], "'media/str_a/med_b.png', an entry of type 'SparseFile'"],
    ['the media folder as a link', [symlink('media', '/')], "'media', a symbolic link to '/'"],
    ['a folder going up', [file('media/../../outside.db', 'x')], "'media/../../outside.db', a file no backup writes"],
    ['an absolute path', [file('/tmp/storefront.db', 'x')], "'/tmp/storefront.db', a file no backup writes"],
    ['a dot folder in front', [file('./storefront.db', 'x')], "'./storefront.db', a file no backup writes"],
    ['a backslash', [file('media\\str_a\\med_b.png', 'x')], "'media\\str_a\\med_b.png', a file no backup writes"],
    ['an empty part', [file('media//str_a/med_b.png', 'x')], "'media//str_a/med_b.png', a file no backup writes"],
    ['a file of another name', [file('admin-token', 'adm_planted')], "'admin-token', a file no backup writes"],
    ['a media file of an unknown format', [file('media/str_a/med_b.svg', '<svg/>')], "'media/str_a/med_b.svg', a file no backup writes"],
    ['a media file without its extension', [file('media/str_a/med_b', 'x')], "'media/str_a/med_b', a file no backup writes"],
    ['a half-received upload', [file('media/str_a/.tmp-med_b', 'x')], "'media/str_a/.tmp-med_b', a file no backup writes"],
    ['a folder that is not a store', [folder('media/uploads/')], "'media/uploads/', a folder no backup writes"],
    ['a folder inside a store', [folder('media/str_a/med_b.png/')], "'media/str_a/med_b.png/', a folder no backup writes"],
    ['a store folder as a file', [file('media/str_a', 'x')], "'media/str_a', a file no backup writes"],
    ['the database as a folder', [folder('storefront.db/')], "'storefront.db/', a folder no backup writes"],
    ['the database twice', [file('storefront.db', 'x')], "'storefront.db' twice"],
    ['a folder given again as a folder', [folder('media/str_a/'), folder('media/str_a')], "'media/str_a' twice"],
    ['a name with control characters', [file('media/\u001b[2Jstr_a\u009b', 'x')], "'media/\\x1b[2Jstr_a\\x9b', a file no backup writes"],
    ['a name kilobytes long', [file(`media/${'a'.repeat(5000)}`, 'x')], `'media/${'a'.repeat(74)}…', a file no backup writes`],
  ]
  for (const [what, extra, named] of refused) {
    test(`an archive holding ${what} is refused whole, naming it, and the data folder is left as it was`, async () => {
      const { entries } = await backedUp()
      const { error, archive, unchanged } = await refusal([...entries, ...extra])
      expect(error).toBeInstanceOf(RefusedBackup)
      expect(error.message).toBe(`${archive} is not restored: it holds ${named}, ${RULE}`)
      expect(unchanged).toBe(true)
    })
  }

  test('a refused archive leaves no folder behind where there was none', async () => {
    const { entries, storeId } = await backedUp()
    const data = join(tempDir('none'), 'data')
    const archive = writeArchive([...entries, symlink(`media/${storeId}/med_x.png`, '/etc/passwd')])
    expect(await restore(archive, data).catch((e: unknown) => e)).toBeInstanceOf(RefusedBackup)
    expect(existsSync(data)).toBe(false)
  })

  test('a data folder another command holds (no server) is said to be in use by a command, not by a server', async () => {
    const { archive } = await backedUp()
    const data = teacherFolder()
    const holder = track(Bun.spawn([process.execPath, join(import.meta.dir, '..', 'fixtures', 'children', 'holds-database.ts'), join(data, 'storefront.db')], { stdout: 'pipe', stderr: 'inherit' }))
    try {
      const reader = holder.stdout.getReader()
      expect(new TextDecoder().decode((await reader.read()).value)).toBe('held\n')
      const error = await restore(archive, data).catch((e: Error) => e)
      expect((error as Error).message).toBe('another storefront command (a backup, an import, a report) is using this data dir; wait until it ends, then restore')
    } finally {
      holder.kill()
      await holder.exited
    }
    expect(readFileSync(join(data, 'admin-token'), 'utf8')).toBe('adm_secret')
  })

  test('a file that is not an archive is not a Storefront backup, and is refused before the folder is made', async () => {
    const junk = join(tempDir('junk'), 'junk.tgz')
    writeFileSync(junk, 'junk')
    const data = join(tempDir('none'), 'data')
    const error = await restore(junk, data).catch((e: Error) => e)
    expect(error).toBeInstanceOf(BackupError)
    expect(error).not.toBeInstanceOf(RefusedBackup)
    expect((error as Error).message).toBe(`${junk} is not a Storefront backup: a backup is the .tgz file storefront backup writes, and this is another kind of file; nothing was changed`)
    expect(existsSync(data)).toBe(false)
    // A gzip file that holds no archive (a .csv.gz) is said to be one.
    const gzipped = join(tempDir('junk'), 'turma.csv.gz')
    writeFileSync(gzipped, Bun.gzipSync(Buffer.from('Azul,100,Ana\n'.repeat(100))))
    expect(((await restore(gzipped, data).catch((e: Error) => e)) as Error).message).toBe(
      `${gzipped} is not a Storefront backup: it is compressed as a backup is, but what it holds is not the archive of a backup (another file compressed, such as a .csv.gz, or a damaged backup); nothing was changed`,
    )
  })

  test('a backup cut short (a copy stopped half-way) is called incomplete, not another kind of file, and nothing is made', async () => {
    const { archive } = await backedUp()
    const cut = join(tempDir('cut'), 'class.tgz')
    writeFileSync(cut, readFileSync(archive).subarray(0, 3000))
    const data = join(tempDir('none'), 'data')
    const error = await restore(cut, data).catch((e: Error) => e)
    expect(error).toBeInstanceOf(BackupError)
    expect((error as Error).message).toBe(`${cut} is incomplete: it ends too soon (zlib: unexpected end of file). Copy the backup again, whole, or restore another one`)
    expect(existsSync(data)).toBe(false)
  })
})

/** The first object of a kind in a backup's database, as sqlite_master holds it. */
function firstOf(entries: TarEntry[], type: 'trigger' | 'index') {
  const path = join(tempDir('schema'), 'storefront.db')
  writeFileSync(path, entries.find((e) => e.path === 'storefront.db')!.body!)
  const db = new Database(path, { readonly: true })
  try {
    return db.query('SELECT name, sql FROM sqlite_master WHERE type = ? AND sql IS NOT NULL ORDER BY name LIMIT 1').get(type) as { name: string; sql: string }
  } finally {
    db.close()
  }
}

const FIXTURES = join(import.meta.dir, '..', 'fixtures', 'data-folders')

describe("restore takes only a database whose schema is the migrations'", () => {
  const changes: [string, (entries: TarEntry[]) => string, string][] = [
    [
      "an extra trigger (one that copies each new webhook's signing secret into another store's product)",
      () => "CREATE TRIGGER steal AFTER INSERT ON webhook_endpoints BEGIN UPDATE products SET description = NEW.secret WHERE store_id = 'str_thief'; END",
      "it has a trigger 'steal' that they do not make",
    ],
    ['an extra view', () => 'CREATE VIEW secrets AS SELECT secret FROM webhook_endpoints', "it has a view 'secrets' that they do not make"],
    ['an extra table', () => 'CREATE TABLE notes (text TEXT)', "it has a table 'notes' that they do not make"],
    ['an extra index', () => 'CREATE INDEX by_description ON products (description)', "it has an index 'by_description' that they do not make"],
    [
      'a trigger of its own under the name of one of ours',
      (entries) => {
        const ours = firstOf(entries, 'trigger')
        return `DROP TRIGGER "${ours.name}"; ${ours.sql.replace(/\bBEGIN\b/i, 'BEGIN DELETE FROM api_keys;')}`
      },
      '',
    ],
    ['a missing index', (entries) => `DROP INDEX "${firstOf(entries, 'index').name}"`, ''],
    ['a migration it does not record', () => 'DELETE FROM __drizzle_migrations WHERE rowid = (SELECT min(rowid) FROM __drizzle_migrations)', ''],
  ]
  for (const [what, sql, named] of changes) {
    test(`a database with ${what} is refused whole, naming it, and the data folder is left as it was`, async () => {
      const { entries } = await backedUp()
      const trigger = firstOf(entries, 'trigger').name
      const index = firstOf(entries, 'index').name
      const recorded = loadMigrations().length - 1
      const expected =
        named ||
        {
          'a trigger of its own under the name of one of ours': `its trigger '${trigger}' differs from the one they make`,
          'a missing index': `it lacks the index '${index}' that they make`,
          'a migration it does not record': `it records ${recorded} migrations that are not this build's first ${recorded}`,
        }[what]
      const { error, archive, unchanged } = await refusal(withSql(entries, sql(entries)))
      expect(error).toBeInstanceOf(RefusedBackup)
      expect(error.message).toBe(`the database in ${archive} is not as Storefront's migrations make it: ${expected}; nothing was changed. Restore a backup that storefront backup wrote`)
      expect(unchanged).toBe(true)
    })
  }

  test('several differences are counted after the first', async () => {
    const { entries } = await backedUp()
    const { error, archive } = await refusal(withSql(entries, 'CREATE TABLE a (x); CREATE TABLE b (x); CREATE VIEW c AS SELECT 1'))
    expect(error.message).toBe(
      `the database in ${archive} is not as Storefront's migrations make it: it has a table 'a' that they do not make (and 2 other differences); nothing was changed. Restore a backup that storefront backup wrote`,
    )
  })

  for (const name of readdirSync(FIXTURES).filter((n) => !n.endsWith('.md'))) {
    test(`a backup of a data folder an earlier build wrote (${name}) restores, its database and media as they were`, async () => {
      const tar = await import('tar')
      const folderCopy = join(tempDir('older'), 'data')
      cpSync(join(FIXTURES, name), folderCopy, { recursive: true })
      const archive = join(tempDir('older-backup'), 'older.tgz')
      await tar.create({ gzip: true, file: archive, cwd: folderCopy, portable: true }, ['storefront.db', 'media'])
      const data = teacherFolder()
      await restore(archive, data)
      const restored = contents(data)
      const original = contents(folderCopy)
      for (const path of ['storefront.db', ...Object.keys(original).filter((p) => p.startsWith('media'))]) expect([path, restored[path]]).toEqual([path, original[path]])
    })
  }
})

describe('restore checks what an archive unpacks to before writing it', () => {
  test('a media file larger than any the library keeps is refused whole, the folder unchanged', async () => {
    const { error, unchanged } = await refusal([
      file('storefront.db', 'x'),
      folder('media/'),
      folder('media/str_a/'),
      { ...file('media/str_a/med_b.mp4', 'x'), claimedSize: 100 * 1024 * 1024 + 1 },
    ])
    expect(error).toBeInstanceOf(RefusedBackup)
    expect(error.message).toContain(`holds 'media/str_a/med_b.mp4', a file of 104857601 bytes, larger than any the library keeps, ${RULE}`)
    expect(unchanged).toBe(true)
  })

  test('an archive that unpacks to more than the disk has free is refused before a byte is written, naming both sizes', async () => {
    const { archive } = await backedUp()
    const data = teacherFolder()
    const around = join(data, '..')
    const before = contents(around)
    const error = (await restore(archive, data, Date.now(), () => 4096).catch((e: Error) => e)) as Error
    expect(error).toBeInstanceOf(BackupError)
    expect(error.message).toMatch(new RegExp(`unpacks to \\d+\\.\\d MiB but the disk of ${data.replaceAll('/', '\\/')} has 0\\.0 MiB free; nothing was changed\\. Make room, or restore into a data folder on a larger disk$`))
    expect(contents(around)).toEqual(before)
  })
})
