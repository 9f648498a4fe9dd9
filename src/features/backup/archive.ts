import { closeSync, createReadStream, openSync, readSync } from 'node:fs'
import type { Parser, ReadEntry } from 'tar'
import { DATA_NAMES } from '../../kernel/data-dir'
import { pluralize } from '../../kernel/plural'
import { isStoreFolder, libraryFileName, SIZE_LIMIT } from '../media'
import { BackupError, printable, quoted, RefusedBackup } from './errors'

const { database: DB, media: MEDIA } = DATA_NAMES

/** What a backup holds, for the messages: the only names and kinds a restore accepts. */
const BACKUP_HOLDS = `a backup holds only the file ${DB} and the folders ${MEDIA}/ and ${MEDIA}/<store id>/, with files named <media id>.<extension> in them`

type Kind = 'file' | 'folder'

/** The kinds of tar entry a backup writes; every other kind (links, devices, fifos...) is refused. */
const KINDS: Record<string, Kind> = { File: 'file', OldFile: 'file', Directory: 'folder' }

const OTHER_KINDS: Record<string, string> = {
  SymbolicLink: 'a symbolic link',
  Link: 'a hard link',
  CharacterDevice: 'a device',
  BlockDevice: 'a device',
  FIFO: 'a fifo',
  ContiguousFile: 'a contiguous file',
  GNUDumpDir: 'a dump folder',
}

/**
 * Whether a backup writes `path` as a `kind`: the database, the media folder, a store's folder (its
 * id) and a library file in it (its id and extension, as the media feature names them). A name with
 * `..`, a leading `/` or `./`, a backslash or an empty part matches none of them.
 */
export function isBackupEntry(path: string, kind: Kind): boolean {
  const parts = (kind === 'folder' ? path.replace(/\/$/, '') : path).split('/')
  if (kind === 'file') {
    return (parts.length === 1 && parts[0] === DB) || (parts.length === 3 && parts[0] === MEDIA && isStoreFolder(parts[1]!) && libraryFileName(parts[2]!) !== undefined)
  }
  return parts[0] === MEDIA && (parts.length === 1 || (parts.length === 2 && isStoreFolder(parts[1]!)))
}

/** The largest file the library keeps: a larger media entry was not written by a backup. */
const LARGEST_MEDIA_FILE = Math.max(...Object.values(SIZE_LIMIT))

/**
 * Judges each entry of an archive, keeping the reasons of the ones refused, and adds up the bytes its
 * files unpack to. One judge per reading: a name seen twice is refused too (a file that a second entry
 * would replace, or turn into a folder), and so is a file past `maxBytes` in all (an archive that
 * changed since it was first read).
 */
function entryJudge(maxBytes = Number.POSITIVE_INFINITY) {
  const seen = new Set<string>()
  let bytes = 0
  const judged = new WeakSet<ReadEntry>()
  const refusals: string[] = []
  const refuse = (entry: ReadEntry, what: string) => {
    refusals.push(`${quoted(entry.path)}${what}`)
    return false
  }
  return {
    refusals,
    get bytes() {
      return bytes
    },
    accept(entry: ReadEntry): boolean {
      judged.add(entry)
      const kind = KINDS[entry.type]
      if (!kind) return refuse(entry, `, ${OTHER_KINDS[entry.type] ?? `an entry of type ${quoted(String(entry.type))}`}${entry.linkpath ? ` to ${quoted(entry.linkpath)}` : ''}`)
      if (!isBackupEntry(entry.path, kind)) return refuse(entry, `, a ${kind} no backup writes`)
      const name = entry.path.replace(/\/$/, '')
      if (seen.has(name)) return refuse(entry, ' twice')
      seen.add(name)
      const size = entry.size ?? 0
      if (kind === 'file' && name !== DB && size > LARGEST_MEDIA_FILE) return refuse(entry, `, a file of ${pluralize(size, 'byte')}, larger than any the library keeps`)
      bytes += size
      if (bytes > maxBytes) return refuse(entry, ', past the size the archive had when it was first read')
      return true
    },
    /** tar skips an entry of a type it does not know without asking the filter: refused as well. */
    skipped(entry: ReadEntry) {
      if (!judged.has(entry)) refuse(entry, `, an entry of type ${quoted(String(entry.type))}`)
    },
  }
}

/** Reads the whole archive through `parser`, whose filter is `judge.accept`; refuses it if any entry was refused. */
async function readThrough(file: string, parser: Parser, judge: ReturnType<typeof entryJudge>): Promise<void> {
  parser.on('ignoredEntry', (entry: ReadEntry) => judge.skipped(entry))
  const failure = await new Promise<Error | undefined>((resolve) => {
    parser.on('error', resolve)
    parser.on('close', () => resolve(undefined))
    const input = createReadStream(file)
    input.on('error', resolve)
    input.pipe(parser as unknown as NodeJS.WritableStream)
  })
  if (judge.refusals.length) {
    const [first, ...more] = judge.refusals
    const others = more.length ? ` (and ${pluralize(more.length, 'other entry', 'other entries')})` : ''
    throw new RefusedBackup(`${file} is not restored: it holds ${first}${others}, where ${BACKUP_HOLDS}; nothing was changed. Restore a backup that storefront backup wrote`)
  }
  if (failure) {
    // A file that starts as gzip but ends too soon is a backup cut short (a copy stopped half-way), not another kind of file.
    if (/unexpected end of file/i.test(failure.message)) {
      throw new BackupError(`${file} is incomplete: it ends too soon (${printable(failure.message)}). Copy the backup again, whole, or restore another one`)
    }
    // Another kind of file (a class list, a zip): said so, without the tar reader's words for it.
    if (!startsLikeGzip(file)) throw new BackupError(`${file} is not a Storefront backup: a backup is the .tgz file storefront backup writes, and this is another kind of file; nothing was changed`)
    if (/TAR_BAD_ARCHIVE|TAR_ENTRY_INVALID/.test(`${(failure as { code?: string }).code} ${failure.message}`)) {
      throw new BackupError(`${file} is not a Storefront backup: it is compressed as a backup is, but what it holds is not the archive of a backup (another file compressed, such as a .csv.gz, or a damaged backup); nothing was changed`)
    }
    throw new BackupError(`${file} is not a Storefront backup (${printable(failure.message)})`)
  }
}

/** Whether the file starts with gzip's two bytes, as every backup does (a file it cannot read throws). */
export function startsLikeGzip(file: string): boolean {
  const fd = openSync(file, 'r')
  try {
    const head = Buffer.alloc(2)
    return readSync(fd, head, 0, 2, 0) === 2 && head[0] === 0x1f && head[1] === 0x8b
  } finally {
    closeSync(fd)
  }
}

/**
 * Reads every entry of the archive without writing anything, and refuses it whole if one is not a
 * backup's. Returns the bytes its files unpack to (a small archive of zeros can unpack to many gigabytes).
 */
export async function inspectArchive(file: string): Promise<number> {
  const tar = await import('tar')
  const judge = entryJudge()
  await readThrough(file, tar.list({ strict: true, filter: (_, entry) => judge.accept(entry as ReadEntry) }), judge)
  return judge.bytes
}

/**
 * Extracts the archive into `cwd`, judging every entry again (the file may have changed since it was
 * inspected, so it may not unpack to more than `maxBytes`): an entry refused is not written, and the
 * archive is then refused. Files get the owner
 * running the restore, whatever the archive says.
 */
export async function extractArchive(file: string, cwd: string, maxBytes: number): Promise<void> {
  const tar = await import('tar')
  const judge = entryJudge(maxBytes)
  await readThrough(file, tar.extract({ cwd, strict: true, preserveOwner: false, filter: (_, entry) => judge.accept(entry as ReadEntry) }), judge)
}
