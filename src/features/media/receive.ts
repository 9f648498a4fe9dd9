import { open, rm, type FileHandle } from 'node:fs/promises'
import { Readable } from 'node:stream'
import type { ReadableStream as NodeWebStream } from 'node:stream/web'
import { withoutControls } from '../../kernel/control-characters'
import { AppError } from '../../kernel/errors'
import { ACCEPTED_LIST, FORMATS, isAccepted, LARGEST_FILE, MiB, SAME_FORMAT, SIZE_LIMIT, type AcceptedMime, type MediaKind } from './formats'
import type { Upload } from './in-flight'

/** Bytes file-type needs to recognise every accepted format. */
const SNIFF_BYTES = 4100
/** Room for the multipart framing around the file when judging a declared Content-Length. */
const FRAMING = 64 * 1024

export interface ReceivedFile {
  mime: AcceptedMime
  kind: MediaKind
  extension: string
  sizeBytes: number
  filename: string
  /** The other form fields (e.g. isPrimary). */
  fields: Record<string, string>
}

const HOW = "Send multipart/form-data with the file in the field named 'file' (curl: -F file=@photo.jpg; fetch: a FormData body, without setting Content-Type yourself)."

function checkEnvelope(request: Request, upload: Upload) {
  const type = request.headers.get('content-type') ?? ''
  if (!type.toLowerCase().startsWith('multipart/form-data')) {
    const sent = type ? `Content-Type '${type.split(';')[0]}'` : 'no Content-Type'
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `Uploads must be multipart/form-data, but the request has ${sent}. ${HOW}`)
  }
  if (!/boundary=/i.test(type)) {
    throw new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      'The Content-Type says multipart/form-data but has no boundary, so the parts cannot be found. Do not set the Content-Type header by hand: your HTTP client adds it, with the boundary, when the body is a form.',
    )
  }
  const declared = Number(request.headers.get('content-length') ?? NaN)
  if (declared > LARGEST_FILE + FRAMING) throw tooLarge()
  // A declared size is reserved at once, less the room its framing may take: sent together with
  // others, the upload is refused now or has its room kept for it.
  if (declared > FRAMING && !upload.reserveAhead(declared - FRAMING)) throw quotaExceeded(upload.room())
  return type
}

/** `kind` undefined: the size was past every limit before the file's type was known. */
const tooLarge = (kind?: MediaKind) =>
  new AppError(
    'FILE_TOO_LARGE',
    kind
      ? `The file is larger than ${SIZE_LIMIT[kind] / MiB} MiB, the limit for ${kind === 'IMAGE' ? 'an image' : 'a video'}. Make it smaller (resize or compress it) and upload again.`
      : `The file is larger than ${LARGEST_FILE / MiB} MiB, more than any upload may be (${SIZE_LIMIT.IMAGE / MiB} MiB for an image, ${SIZE_LIMIT.VIDEO / MiB} MiB for a video). Make it smaller (resize or compress it) and upload again.`,
  )

const quotaExceeded = (room: number) =>
  new AppError(
    'QUOTA_EXCEEDED',
    `The store's media quota has ${Math.max(0, Math.floor(room / 1024))} KiB left, less than this file (the files of uploads still running count too). Delete files you no longer use (DELETE /v1/media/:id; GET /v1/media/usage shows the space used).`,
  )

function notAccepted(head: Buffer, detected: string | undefined): AppError {
  const text = head.subarray(0, 1024).toString('utf8').trimStart().toLowerCase()
  if (text.includes('<svg')) {
    return new AppError('UNSUPPORTED_MEDIA_TYPE', `SVG files are not accepted: they can carry scripts. Export the picture as PNG or WebP. Accepted: ${ACCEPTED_LIST}.`)
  }
  if (text.startsWith('<!doctype html') || text.startsWith('<html') || text.startsWith('<')) {
    return new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      `The file is a text or HTML document (perhaps a saved web page or an error page renamed to an image name), not a picture. Files are recognised by their content, not by their name. Accepted: ${ACCEPTED_LIST}.`,
    )
  }
  const what = detected ? `of type ${detected}` : 'not a format we recognise'
  return new AppError('UNSUPPORTED_MEDIA_TYPE', `The file is ${what}. Files are recognised by their content, not by their name. Accepted: ${ACCEPTED_LIST}.`)
}

/** The file's own name, without folders or control characters (C1 too: U+009B starts a terminal sequence like ESC [). */
const displayName = (name: string | undefined) => withoutControls((name ?? '').split(/[\\/]/).pop()!).slice(0, 255) || 'upload'

/**
 * Streams the `file` part of a multipart request to `path`, recognising its format from the first
 * bytes (before anything is written) and stopping as soon as it passes the size limit or the room left
 * in the store's quota. Each chunk is reserved in `upload` before it is written, so the bytes of every
 * upload of the store still running count against the quota. On any failure (a client that went away
 * too) the partial file is removed and reading stops; the caller ends `upload` after that.
 */
export async function receiveFile(request: Request, path: string, upload: Upload): Promise<ReceivedFile> {
  if (upload.room() <= 0) throw quotaExceeded(0)
  const contentType = checkEnvelope(request, upload)
  if (!request.body) throw new AppError('VALIDATION_ERROR', `The request has no body. ${HOW}`)

  // Loaded on the first upload, not at start.
  const [{ default: Busboy }, { fileTypeFromBuffer }] = await Promise.all([import('busboy'), import('file-type')])
  const source = Readable.fromWeb(request.body as unknown as NodeWebStream)
  // A browser writes a file's name as UTF-8 bytes; busboy reads them as Latin-1 unless told (João.png became JoÃ£o.png).
  const parser = Busboy({ headers: { 'content-type': contentType }, defParamCharset: 'utf8', limits: { files: 1, fields: 20, fieldSize: 10_000, parts: 40 } })
  const fields: Record<string, string> = {}
  let handle: FileHandle | undefined
  let fileStream: Readable | undefined
  let file: Promise<Omit<ReceivedFile, 'fields'>> | undefined
  /** The file's kind once its first bytes told it: a body cut short past every limit names that kind's. */
  let kindSeen: MediaKind | undefined

  const work = new Promise<ReceivedFile>((resolve, reject) => {
    parser.on('field', (name, value) => {
      fields[name] = value
    })
    // The parser takes one file (limits.files) and tells of a second instead of handing it over.
    parser.on('filesLimit', () =>
      reject(new AppError('VALIDATION_ERROR', 'The form holds more than one file; send one file per upload request (nothing was kept).', [{ path: 'file', message: 'one file per request' }])),
    )
    parser.on('file', (name, stream, info) => {
      if (name !== 'file') {
        stream.resume()
        reject(new AppError('VALIDATION_ERROR', `The file came in the form field '${name}'. ${HOW}`, [{ path: name, message: "the file goes in the field 'file'" }]))
        return
      }
      fileStream = stream
      file = (async () => {
        let head = Buffer.alloc(0)
        let size = 0
        let format: (typeof FORMATS)[AcceptedMime] | undefined
        let mime: AcceptedMime | undefined
        const start = async () => {
          const detected = (await fileTypeFromBuffer(head))?.mime
          const accepted = detected === undefined ? undefined : (SAME_FORMAT[detected] ?? detected)
          if (!isAccepted(accepted)) throw notAccepted(head, detected)
          mime = accepted
          format = FORMATS[mime]
          kindSeen = format.kind
          if (size > SIZE_LIMIT[format.kind]) throw tooLarge(format.kind)
          handle = await open(path, 'w')
          await handle.write(head)
        }
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          size += chunk.length
          if (format && size > SIZE_LIMIT[format.kind]) throw tooLarge(format.kind)
          // Reserved before it is written (or held for the format check): a chunk that does not fit is refused.
          if (!upload.reserve(chunk.length)) throw quotaExceeded(upload.room())
          if (!format) {
            head = Buffer.concat([head, chunk])
            if (head.length >= SNIFF_BYTES) await start()
            continue
          }
          await handle!.write(chunk)
        }
        if (size === 0) throw new AppError('VALIDATION_ERROR', 'The file is empty. Check the path of the file you attach.')
        if (!format) await start()
        await handle!.close()
        handle = undefined
        return { mime: mime!, kind: format!.kind, extension: format!.extension, sizeBytes: size, filename: displayName(info.filename) }
      })()
      file.catch(reject)
    })
    parser.on('error', () => reject(new AppError('VALIDATION_ERROR', `The multipart body is malformed. ${HOW}`)))
    parser.on('close', () => {
      if (!file) return reject(new AppError('VALIDATION_ERROR', `The form has no file. ${HOW}`, [{ path: 'file', message: 'required' }]))
      file.then((f) => resolve({ ...f, fields }), reject)
    })
    const interrupted = () => reject(new AppError('VALIDATION_ERROR', 'The upload was interrupted before it ended. Try again.'))
    source.on('error', interrupted)
    request.signal.addEventListener('abort', interrupted, { once: true })
    // The whole body is bounded too, not only the file in it: a body that never reaches its first
    // boundary (or is all form fields) would otherwise be read for as long as the sender sends.
    let received = 0
    source.on('data', (chunk: Buffer) => {
      received += chunk.length
      const room = upload.room()
      if (received > Math.min(LARGEST_FILE, room) + FRAMING) reject(received > room + FRAMING ? quotaExceeded(room) : tooLarge(kindSeen))
    })
    source.pipe(parser)
  })

  try {
    return await work
  } catch (e) {
    source.unpipe(parser)
    source.destroy()
    // The file's writer may be between two awaits: it stops, and only then is its file closed and removed,
    // so that it cannot open or write the file after the removal.
    fileStream?.destroy()
    await file?.catch(() => {})
    await handle?.close().catch(() => {})
    await rm(path, { force: true })
    if ((e as NodeJS.ErrnoException).code === 'ENOSPC') {
      throw new AppError('INSUFFICIENT_STORAGE', "The server's disk is full, so the file was not stored (nothing was kept). Tell the teacher.")
    }
    throw e
  }
}
