import { and, eq } from 'drizzle-orm'
import type { Deps } from '../../kernel/deps'
import { AppError } from '../../kernel/errors'
import { FORMATS, MIME_BY_EXTENSION } from './formats'
import { libraryFileName } from './service'
import { closeFile, fileBytes, openLibraryFile } from './stored'
import { media } from './tables'
import { pluralize } from '../../kernel/plural'

/** Files never change under their id, so they may be cached for a year and their id is their ETag. */
const CACHE = 'public, max-age=31536000, immutable'

const noSuchFile = () => new AppError('NOT_FOUND', 'No such file. Media URLs come from GET /v1/media or an upload response.')

/**
 * `GET /v1/files/:storeId/:name`: the public file behind a media URL, with its real type, `nosniff`,
 * caching headers, ETag and single byte ranges (so a browser can scrub a video). What is on disk is
 * served only when it is a plain file (stored.ts): a link there is a 404, never what it points to.
 */
export async function serveFile(deps: Deps, request: Request, storeId: string, name: string): Promise<Response> {
  const named = libraryFileName(name)
  const row = named ? deps.db.select().from(media).where(and(eq(media.id, named.id), eq(media.storeId, storeId))).get() : undefined
  if (!row || row.extension !== named!.extension || MIME_BY_EXTENSION[row.extension] !== row.mimeType) throw noSuchFile()
  const file = await openLibraryFile(deps, row)
  if (!file) throw noSuchFile()
  const etag = `"${row.id}"`
  const headers: Record<string, string> = {
    'content-type': row.mimeType,
    'x-content-type-options': 'nosniff',
    'content-security-policy': "default-src 'none'; sandbox",
    'cache-control': CACHE,
    etag,
    'accept-ranges': 'bytes',
  }
  if (request.headers.get('if-none-match')?.split(',').some((t) => t.trim() === etag)) {
    closeFile(file)
    return new Response(null, { status: 304, headers })
  }
  const range = request.headers.get('range')
  if (!range) return new Response(fileBytes(file, 0, file.size - 1), { headers: { ...headers, 'content-length': String(file.size) } })
  let start: number
  let end: number
  try {
    ;[start, end] = parseRange(range, file.size)
  } catch (e) {
    closeFile(file)
    throw e
  }
  return new Response(fileBytes(file, start, end), {
    status: 206,
    headers: { ...headers, 'content-range': `bytes ${start}-${end}/${file.size}`, 'content-length': String(end - start + 1) },
  })
}

const header = (name: string) => ({ $ref: `#/components/headers/${name}` })
const SERVED_WITH = { ETag: header('ETag'), 'Cache-Control': header('Cache-Control'), 'Accept-Ranges': header('Accept-Ranges') }
const BYTES = Object.fromEntries(Object.keys(FORMATS).map((type) => [type, { schema: { type: 'string' as const, format: 'binary' } }]))

/** What serveFile answers, for the OpenAPI document; the 404 and 416 are the shared error answers. */
export const FILE_RESPONSES = {
  200: { description: 'The whole file, with its real type.', headers: SERVED_WITH, content: BYTES },
  206: {
    description: 'The bytes the Range asked for, with its real type.',
    headers: { ...SERVED_WITH, 'Content-Range': header('Content-Range') },
    content: BYTES,
  },
  304: { description: 'The ETag sent in If-None-Match is the file\'s: the copy you have is current; no body.', headers: SERVED_WITH },
  416: { description: 'The Range does not fit the file.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
}

/** One range of bytes (`bytes=a-b`, `bytes=a-`, `bytes=-n`); several ranges are not offered. */
function parseRange(header: string, size: number): [number, number] {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim())
  const unsatisfiable = () =>
    new AppError('RANGE_NOT_SATISFIABLE', `The Range '${header}' does not fit the file (${pluralize(size, 'byte')}). Ask for bytes=0-${size - 1} or less.`, undefined, {
      'content-range': `bytes */${size}`,
    })
  if (!m || (m[1] === '' && m[2] === '')) throw unsatisfiable()
  let start: number
  let end: number
  if (m[1] === '') {
    start = Math.max(0, size - Number(m[2]))
    end = size - 1
  } else {
    start = Number(m[1])
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1)
  }
  if (start > end || start >= size) throw unsatisfiable()
  return [start, end]
}
