import { AppError, clip } from '../errors'
import { assertJsonShape } from './json-shape'

/** JSON bodies above this size are refused, so one request cannot fill the server's memory. */
export const JSON_BODY_LIMIT = 1024 * 1024

/** 413 PAYLOAD_TOO_LARGE for a body past the limit: `what` is too large, `advice` says what to do. */
export const bodyTooLarge = (what: string, advice: string) =>
  new AppError('PAYLOAD_TOO_LARGE', `${what} is larger than ${JSON_BODY_LIMIT / 1024} KiB. ${advice}`)

const jsonTooLarge = () => bodyTooLarge('The JSON body', 'Send less data per request; files go to POST /v1/uploads as multipart/form-data.')

/** Reads the body as text, refusing it as soon as it passes the limit (no full buffering of huge bodies). */
export async function readLimitedText(request: Request, tooLarge: () => AppError = jsonTooLarge, limit = JSON_BODY_LIMIT): Promise<string> {
  if (declaredWithin(request, tooLarge, limit)) {
    const text = await request.text()
    // Only a Request made in-process (app.handle) can carry more than it declares.
    if (text.length * 3 > limit && Buffer.byteLength(text) > limit) throw tooLarge()
    return text
  }
  return new TextDecoder().decode(await streamedBytes(request, tooLarge, limit))
}

/** The body's bytes, refused as readLimitedText refuses its text: for a text file whose encoding is read from them. */
export async function readLimitedBytes(request: Request, tooLarge: () => AppError, limit = JSON_BODY_LIMIT): Promise<Uint8Array> {
  if (declaredWithin(request, tooLarge, limit)) {
    const bytes = new Uint8Array(await request.arrayBuffer())
    if (bytes.byteLength > limit) throw tooLarge()
    return bytes
  }
  return streamedBytes(request, tooLarge, limit)
}

/**
 * Whether the body declares a length within the limit (one past it is refused here). A declared length
 * is the body's length (HTTP/1.1 reads no more than it), so such a body is read whole by Bun itself:
 * the stream reader below was a visible share of a cart add's CPU in a profile (bench/README.md). A
 * chunked body declares nothing and goes through the reader.
 */
function declaredWithin(request: Request, tooLarge: () => AppError, limit: number): boolean {
  const declared = Number(request.headers.get('content-length') ?? NaN)
  if (declared > limit) throw tooLarge()
  return declared <= limit && !request.headers.has('transfer-encoding')
}

/** A body of no declared length, read piece by piece and refused as soon as it passes the limit. */
async function streamedBytes(request: Request, tooLarge: () => AppError, limit: number): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array()
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limit) {
      await reader.cancel().catch(() => {})
      throw tooLarge()
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks)
}

export function parseJson(text: string): unknown {
  if (text.trim() === '') {
    throw new AppError(
      'VALIDATION_ERROR',
      'The request body is empty. Send a JSON object, e.g. {"name": "..."}, with Content-Type: application/json.',
    )
  }
  assertJsonShape(text)
  try {
    // Only a text that could spell the key, plainly or with escapes, is parsed with the slower reviver.
    return text.includes('proto') || text.includes('\\u') ? JSON.parse(text, refuseProtoKey) : JSON.parse(text)
  } catch (e) {
    if (e instanceof AppError) throw e
    const why = e instanceof Error ? e.message : String(e)
    throw new AppError(
      'VALIDATION_ERROR',
      `The request body is not valid JSON (${why}). Check quotes, commas and braces; keys need double quotes.`,
    )
  }
}

/**
 * A key named `__proto__` is refused wherever it is. JSON.parse makes it an ordinary key, but a record
 * of free names (a variant's options) would drop it without a word, and code that copies the value
 * would set an object's prototype instead: no route has a field of that name, so it is said at once.
 */
function refuseProtoKey(key: string, value: unknown) {
  if (key === '__proto__') {
    throw new AppError('VALIDATION_ERROR', 'The JSON body has a key named "__proto__", which no route takes and JavaScript treats as special: rename or remove it.', [
      { path: '', message: 'a key named "__proto__"' },
    ])
  }
  return value
}

export const isJsonType = (contentType: string) => /^application\/([\w.+-]+\+)?json\b/i.test(contentType)

export function wrongBodyType(contentType: string): AppError {
  const hint = contentType.startsWith('application/x-www-form-urlencoded')
    ? " (curl's -d sends a form unless you add -H 'Content-Type: application/json')"
    : contentType.startsWith('multipart/form-data')
      ? ' (files go to POST /v1/uploads or POST /v1/products/:id/media)'
      : ''
  const sent = contentType ? `Content-Type '${contentType.split(';')[0]}'` : 'no Content-Type'
  return new AppError(
    'UNSUPPORTED_MEDIA_TYPE',
    `This route takes a JSON body, but the request has ${sent}${hint}. Send the body as JSON with the header Content-Type: application/json.`,
  )
}

/**
 * A body sent to a route that takes none (`route`: its method and path, as a client reads them) is
 * refused unless it says nothing (empty, or `{}`): a field a client thought the route took would
 * otherwise be dropped without a word (a checkout sent {"items": [...]} ordered the cart). The message
 * names a few of the fields sent, each cut short, never the rest of the body.
 */
export function assertNoBody(route: string, text: string) {
  const sent = text.trim()
  if (sent === '' || /^\{\s*\}$/.test(sent)) return
  let fields: string[] = []
  try {
    assertJsonShape(sent)
    const value: unknown = JSON.parse(sent)
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) fields = Object.keys(value)
  } catch {
    // Not JSON, or too deep to parse: refused all the same, without naming fields.
  }
  const named = fields.length ? ` (it had ${fields.slice(0, 5).map((f) => clip(JSON.stringify(f), 40)).join(', ')}${fields.length > 5 ? `, and ${fields.length - 5} more` : ''})` : ''
  throw new AppError('VALIDATION_ERROR', `${route} takes no body${named}: send the request without one. What each route takes is in /docs.`, [
    { path: '', message: 'this route takes no body' },
  ])
}
