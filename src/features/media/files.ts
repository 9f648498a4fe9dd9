import { and, eq, sql } from 'drizzle-orm'
import type { Sql } from '../../kernel/db/database'
import { perHandle } from '../../kernel/db/per-handle'
import { withParams } from '../../kernel/db/prepared'
import type { Deps } from '../../kernel/deps'
import { AppError, clip } from '../../kernel/errors'
import { pluralize } from '../../kernel/plural'
import { FORMATS, MIME_BY_EXTENSION } from './formats'
import { libraryFileName } from './service'
import { CHUNK, closeFile, fileBytes, openLibraryFile, type OpenedFile } from './stored'
import type { Downloads } from './downloads'
import { clientAddress, type AddressSource } from '../../kernel/http/client-address'
import { media } from './tables'

/** Files never change under their id, so they may be cached for a year and their id is their ETag. */
const CACHE = 'public, max-age=31536000, immutable'

/**
 * Sent with every file: a browser takes its type from Content-Type, never guessing another from the bytes,
 * and a file opened on its own loads nothing and runs no script, whatever its bytes hold.
 */
export const FILE_GUARDS = { 'X-Content-Type-Options': 'nosniff', 'Content-Security-Policy': "default-src 'none'; sandbox" } as const

const noSuchFile = () => new AppError('NOT_FOUND', 'No such file. Media URLs come from GET /v1/media or an upload response.')

/** A store's library file by id, prepared once: every file a shop page shows is one look-up. */
const fileRow = perHandle((db: Sql) =>
  withParams<{ id: string; storeId: string }>()(
    db
      .select()
      .from(media)
      .where(and(eq(media.id, sql.placeholder('id')), eq(media.storeId, sql.placeholder('storeId'))))
      .prepare(),
  ),
)

/**
 * `GET /v1/files/:storeId/:name`: the public file behind a media URL, with its real type, `nosniff`,
 * caching headers, ETag and single byte ranges (so a browser can scrub a video). What is on disk is
 * served only when it is a plain file (stored.ts): a link there is a 404, never what it points to.
 */
export function serveFile(deps: DownloadDeps, request: Request, server: AddressSource | null, storeId: string, name: string): Response {
  const named = libraryFileName(name)
  const row = named ? fileRow(deps.db).get({ id: named.id, storeId }) : undefined
  if (!row || row.extension !== named!.extension || MIME_BY_EXTENSION[row.extension] !== row.mimeType) throw noSuchFile()
  const file = openLibraryFile(deps, row)
  if (!file) throw noSuchFile()
  const etag = `"${row.id}"`
  const headers: Record<string, string> = {
    'content-type': row.mimeType,
    ...FILE_GUARDS,
    'cache-control': CACHE,
    etag,
    'accept-ranges': 'bytes',
  }
  if (matchesAny(request.headers.get('if-none-match'), etag)) {
    closeFile(file)
    return new Response(null, { status: 304, headers })
  }
  // If-Range: the range is for the copy the client holds. Only its ETag, compared strongly, matches; a
  // date never does (no Last-Modified is sent). Otherwise the whole file, as HTTP asks.
  const ifRange = request.headers.get('if-range')
  const range = ifRange === null || ifRange.trim() === etag ? request.headers.get('range') : null
  const wanted = range === null ? undefined : byteRange(range, file.size)
  if (wanted === 'unsatisfiable') {
    closeFile(file)
    throw new AppError('RANGE_NOT_SATISFIABLE', `The Range '${clip(range!)}' does not fit the file (${pluralize(file.size, 'byte')}). Ask for bytes=0-${file.size - 1} or less.`, undefined, {
      'content-range': `bytes */${file.size}`,
    })
  }
  const [start, end] = wanted ?? [0, file.size - 1]
  const slot = end + 1 - start > CHUNK ? downloadSlot(deps, file, clientAddress(server, request)) : undefined
  // A download stopped for another (downloads.ts) ends its answer; Bun would hold the connection, and
  // what it had queued for it, until its idle timeout: it is closed as soon as it is idle.
  const bytes = fileBytes(file, start, end, slot, () => server?.timeout?.(request, 1))
  if (!wanted) return new Response(bytes, { headers: { ...headers, 'content-length': String(file.size) } })
  return new Response(bytes, {
    status: 206,
    headers: { ...headers, 'content-range': `bytes ${start}-${end}/${file.size}`, 'content-length': String(end - start + 1) },
  })
}

export type DownloadDeps = Deps & { downloads: Downloads }

/** A slot for a download sent as the client reads it (downloads.ts); a refusal closes the file first. */
function downloadSlot(deps: DownloadDeps, file: OpenedFile, address: string) {
  try {
    return deps.downloads.begin(address)
  } catch (e) {
    closeFile(file)
    throw e
  }
}

const header = (name: string) => ({ $ref: `#/components/headers/${name}` })
const SERVED_WITH = {
  ETag: header('ETag'),
  'Cache-Control': header('Cache-Control'),
  'Accept-Ranges': header('Accept-Ranges'),
  'X-Content-Type-Options': header('X-Content-Type-Options'),
  'Content-Security-Policy': header('Content-Security-Policy'),
}
const BYTES = Object.fromEntries(Object.keys(FORMATS).map((type) => [type, { schema: { type: 'string' as const, format: 'binary' } }]))

/** What serveFile answers, for the OpenAPI document; the 404 and 416 are the shared error answers. */
export const FILE_RESPONSES = {
  200: {
    description:
      "The whole file, with its real type; also the answer to a Range that is ignored (another unit, several ranges, or not well formed) and to a Range sent with an If-Range that is not the file's ETag (a weak tag or a date never is).", headers: SERVED_WITH, content: BYTES },
  206: {
    description: 'The bytes the Range asked for, with its real type.',
    headers: { ...SERVED_WITH, 'Content-Range': header('Content-Range') },
    content: BYTES,
  },
  304: { description: 'If-None-Match holds the file\'s ETag (weak `W/"…"` or strong) or `*`: the copy you have is current; no body.', headers: SERVED_WITH },
  409: { description: 'LIMIT_REACHED: this address (or the server) has as many large files downloading at once as it may, and each of them was read from in the last seconds.' },
  416: { description: 'The Range is well formed but starts past the end of the file (or asks for the last 0 bytes); Content-Range gives the size.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
}

/**
 * If-None-Match holds `*` or the file's ETag, compared weakly: `W/"med_…"` matches too. Listing the
 * tags with a pattern keeps a comma inside a quoted tag from splitting it.
 */
function matchesAny(header: string | null, etag: string): boolean {
  if (header === null) return false
  if (header.trim() === '*') return true
  return [...header.matchAll(/(?:W\/)?("[^"]*")/g)].some((m) => m[1] === etag)
}

/**
 * The one range of bytes a Range asks for (`bytes=a-b`, `bytes=a-`, `bytes=-n`), or undefined when the
 * header is to be ignored and the whole file served: another unit, several ranges (not offered), or a
 * header that is not well formed (a last byte before the first, letters, no `=`). A well-formed range
 * that asks for no byte of the file (it starts past the end, or is the last 0 bytes) is unsatisfiable.
 */
function byteRange(header: string, size: number): [number, number] | 'unsatisfiable' | undefined {
  const set = /^\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)=(.*)$/.exec(header)
  if (!set || set[1]!.toLowerCase() !== 'bytes') return undefined
  const specs = set[2]!.split(',').map((s) => s.trim()).filter(Boolean)
  if (specs.length !== 1) return undefined
  const m = /^(?:(\d+)-(\d*)|-(\d+))$/.exec(specs[0]!)
  if (!m) return undefined
  if (m[3] !== undefined) {
    const suffix = Number(m[3])
    return suffix === 0 || size === 0 ? 'unsatisfiable' : [Math.max(0, size - suffix), size - 1]
  }
  const start = Number(m[1])
  const last = m[2] === '' ? Infinity : Number(m[2])
  if (last < start) return undefined
  return start >= size ? 'unsatisfiable' : [start, Math.min(last, size - 1)]
}
