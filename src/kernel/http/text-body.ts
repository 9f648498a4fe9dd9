import { AppError, clip } from '../errors'
import { decodeTextFile, startsWithMark } from '../text-file'
import { bodyTooLarge, readLimitedBytes } from './json-body'

// A route that takes a plain-text file as its body (a class list as text/csv) instead of JSON. The
// route says so in its `detail` with textBodyDetail(); the kernel then accepts that one media type on it,
// reads the body with the JSON size limit and hands the handler the text. Every other route keeps
// answering 415 to anything but JSON.

export const TEXT_BODY_EXTENSION = 'x-storefront-text-body'

export interface TextBody {
  /** The one media type accepted, e.g. `text/csv`. */
  mediaType: string
  /** A file name for the examples in messages, e.g. `class.csv`. */
  file: string
}

/**
 * The body the kernel read for a text-body route. Such a route declares no body schema (the
 * document generator would list it as JSON), so the handler's `body` is typed unknown.
 */
export function textOf(body: unknown): string {
  if (typeof body !== 'string') throw new AppError('INTERNAL_ERROR', 'A text-body route was reached without its body read; declare it with textBodyDetail().')
  return body
}

/** The `detail` fields of a text-body route: the marker for the kernel and the request body of the OpenAPI document. */
export const textBodyDetail = (body: TextBody, description: string) => ({
  [TEXT_BODY_EXTENSION]: body,
  requestBody: { required: true, content: { [body.mediaType]: { schema: { type: 'string', description } } } },
})

const howToSend = ({ mediaType, file }: TextBody) =>
  `Send the file itself as the body with the header Content-Type: ${mediaType}, e.g. curl --data-binary @${file} -H 'Content-Type: ${mediaType}' (--data-binary keeps the line breaks that -d removes).`

/** The body of a text-body route: 415 for another content type, 413 past the limit, 400 when empty. */
export async function readTextBody(request: Request, contentType: string, body: TextBody): Promise<string> {
  const sent = contentType.split(';')[0]!.trim().toLowerCase()
  if (sent === '' && !request.body) throw emptyBody(body)
  if (sent !== body.mediaType) {
    const what = sent ? `Content-Type '${sent}'` : 'no Content-Type'
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `This route takes a ${body.mediaType} file, not JSON or a form, but the request has ${what}. ${howToSend(body)}`)
  }
  const bytes = await readLimitedBytes(request, () => bodyTooLarge(`The ${body.mediaType} body`, `Split the file and send the parts one request at a time.`))
  const text = decoded(bytes, charsetOf(contentType))
  if (text.trim() === '') throw emptyBody(body)
  return text
}

const charsetOf = (contentType: string) => /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1]?.toLowerCase()

/**
 * The file's text in the encoding its Content-Type names (charset=windows-1252, as a client that read
 * the file's encoding may say) unless the file starts with a byte order mark, else as the command and
 * the panel read a file (text-file.ts): UTF-16 by its mark or its zero bytes, UTF-8 when it is, else
 * Windows-1252, what a spreadsheet in Portuguese saves as "CSV".
 */
function decoded(bytes: Uint8Array, charset: string | undefined): string {
  const decoder = charset === undefined ? undefined : decoderFor(charset)
  // A byte order mark says the encoding for certain, whatever the header claims.
  if (decoder === undefined || decoder.encoding === 'utf-8' || startsWithMark(bytes)) return decodeTextFile(bytes).text
  return decoder.decode(bytes)
}

/** The encodings a class list may name: what spreadsheets save (latin1 and ascii are read as Windows-1252, as browsers do). */
const READ_ENCODINGS = new Set(['utf-8', 'windows-1252', 'utf-16le', 'utf-16be'])

/** A decoder for one of READ_ENCODINGS by any of its names; 415 naming it for any other. */
function decoderFor(charset: string): TextDecoder {
  let decoder: TextDecoder | undefined
  try {
    decoder = new TextDecoder(charset as ConstructorParameters<typeof TextDecoder>[0])
  } catch {
    decoder = undefined
  }
  if (decoder && READ_ENCODINGS.has(decoder.encoding)) return decoder
  throw new AppError(
    'UNSUPPORTED_MEDIA_TYPE',
    `The Content-Type names the encoding '${clip(charset, 40)}', which is not one the server reads: send the file as UTF-8 (or Windows-1252 or UTF-16), or leave the charset out and the server reads which of those it is.`,
  )
}

const emptyBody = (body: TextBody) => new AppError('VALIDATION_ERROR', `The request body is empty. ${howToSend(body)}`)
