import { and, eq } from 'drizzle-orm'
import type { Deps } from '../../kernel/deps'
import { AppError } from '../../kernel/errors'
import { FORMATS, MIME_BY_EXTENSION } from './formats'
import { filePath } from './service'
import { media } from './tables'
import { pluralize } from '../../kernel/plural'

const NAME = /^(med_[0-9a-z]+)\.([a-z0-9]+)$/

/** Files never change under their id, so they may be cached for a year and their id is their ETag. */
const CACHE = 'public, max-age=31536000, immutable'

/**
 * `GET /v1/files/:storeId/:name`: the public file behind a media URL, with its real type, `nosniff`,
 * caching headers, ETag and single byte ranges (so a browser can scrub a video).
 */
export function serveFile(deps: Deps, request: Request, storeId: string, name: string): Response {
  const match = NAME.exec(name)
  const row = match
    ? deps.db.select().from(media).where(and(eq(media.id, match[1]!), eq(media.storeId, storeId))).get()
    : undefined
  if (!row || row.extension !== match![2] || MIME_BY_EXTENSION[row.extension] !== row.mimeType) {
    throw new AppError('NOT_FOUND', 'No such file. Media URLs come from GET /v1/media or an upload response.')
  }
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
    return new Response(null, { status: 304, headers })
  }
  const file = Bun.file(filePath(deps, row))
  const range = request.headers.get('range')
  if (!range) return new Response(file, { headers: { ...headers, 'content-length': String(row.sizeBytes) } })
  const [start, end] = parseRange(range, row.sizeBytes)
  return new Response(file.slice(start, end + 1), {
    status: 206,
    headers: { ...headers, 'content-range': `bytes ${start}-${end}/${row.sizeBytes}`, 'content-length': String(end - start + 1) },
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
