import { close, closeSync, fstatSync, lstatSync, openSync, read, readSync } from 'node:fs'
import { dirname } from 'node:path'
import type { Deps } from '../../kernel/deps'
import { platform } from '../../kernel/platform'
import type { DownloadSlot } from './downloads'
import { filePath, mediaRoot, type MediaRow } from './service'

/**
 * An open library file. A plain descriptor, not a FileHandle: Bun treats a FileHandle collected while
 * open as an error, and an answer that is built but never read (a test's, a client's that went away
 * before the body) would drop its handle that way. A descriptor is closed by whoever reads to the end
 * or cancels, or else when the stream is collected (`dropped` below).
 */
export interface OpenedFile {
  fd: number
  size: number
}

/** Closes the descriptor once, whoever asks first, and ends what was held for it (a download's slot). */
interface Closing {
  fd: number
  closed: boolean
  ended: () => void
}
const closeOnce = (c: Closing) => {
  if (c.closed) return
  c.closed = true
  close(c.fd, () => {})
  c.ended()
}

/** The files of streams collected before they were read to the end or cancelled. */
const dropped = new FinalizationRegistry<Closing>(closeOnce)

/**
 * A library file opened for reading, or undefined when its path does not lead to a plain file through
 * plain folders. A link below the data folder (a restored archive could have held one, a hand can make
 * one) is never followed, whatever it points to: the media folder, the store's folder and the file are
 * each looked at without following links (lstat), and the file is opened with O_NOFOLLOW where the
 * system has it, so a link put there in between is refused too.
 */
export function openLibraryFile(deps: Deps, row: Pick<MediaRow, 'storeId' | 'id' | 'extension'>): OpenedFile | undefined {
  // Synchronous on purpose: a look at a file's metadata on a local disk costs less than the trip
  // through the thread pool that the asynchronous forms take.
  const path = filePath(deps, row)
  for (const folder of [mediaRoot(deps), dirname(path)]) if (!lstatSync(folder, { throwIfNoEntry: false })?.isDirectory()) return undefined
  if (!lstatSync(path, { throwIfNoEntry: false })?.isFile()) return undefined
  let fd: number
  try {
    fd = openSync(path, platform.readNoFollow)
  } catch {
    return undefined
  }
  const stat = fstatSync(fd)
  if (!stat.isFile()) {
    closeSync(fd)
    return undefined
  }
  return { fd, size: stat.size }
}

/** For an opened file that is not streamed after all (a 304, a 416). */
export const closeFile = (file: OpenedFile) => close(file.fd, () => {})

/**
 * Large enough that a 100 MiB video is under two thousand reads (600 MB/s on loopback), small enough
 * to keep little in memory per download: a client that never reads holds about two (110 KiB against
 * 480 with 256 KiB reads; 16 KiB reads held 53 KiB but sent a third as fast).
 */
export const CHUNK = 64 * 1024

const readAt = (fd: number, buffer: Uint8Array, position: number) =>
  new Promise<number>((resolve, reject) => read(fd, buffer, 0, buffer.length, position, (e, n) => (e ? reject(e) : resolve(n))))

/**
 * Bytes `start` to `end` (inclusive) of an opened file. Up to one chunk (most pictures) they are read at
 * once and the file closed; more are read as the client takes them, and the file is closed when the
 * last byte is read, when the client goes away, on a read error, when the stream is collected unread,
 * or when the download's `slot` is stopped (downloads.ts), which ends the answer and `closeConnection`s;
 * the slot is given back then (at once for bytes read at once), and told of each part the client takes.
 */
export function fileBytes(file: OpenedFile, start: number, end: number, slot?: DownloadSlot, closeConnection: () => void = () => {}): Uint8Array | ReadableStream<Uint8Array> {
  const ended = () => slot?.end()
  if (end + 1 - start <= CHUNK) {
    try {
      const buffer = new Uint8Array(Math.max(end + 1 - start, 0))
      // A file cut short since it was opened ends the answer where it ends.
      return buffer.subarray(0, buffer.length > 0 ? readSync(file.fd, buffer, 0, buffer.length, start) : 0)
    } finally {
      closeSync(file.fd)
      ended()
    }
  }
  const closing: Closing = { fd: file.fd, closed: false, ended }
  let position = start
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      if (!slot) return
      // Held weakly: a stream built and never sent must still be collected (`dropped`), and the slot
      // is held by the downloads running until then.
      const held = new WeakRef(controller)
      slot.stop = () => {
        closeOnce(closing)
        held.deref()?.error(new Error('stopped: its client read nothing while others waited for a download slot'))
        closeConnection()
      }
    },
    async pull(controller) {
      slot?.read()
      try {
        const length = Math.min(CHUNK, end + 1 - position)
        const buffer = new Uint8Array(Math.max(length, 0))
        // A file cut short since it was opened ends the answer where it ends.
        const bytesRead = length > 0 ? await readAt(file.fd, buffer, position) : 0
        if (closing.closed) return
        if (bytesRead === 0) {
          closeOnce(closing)
          controller.close()
          return
        }
        position += bytesRead
        controller.enqueue(buffer.subarray(0, bytesRead))
      } catch (e) {
        if (closing.closed) return
        closeOnce(closing)
        controller.error(e)
      }
    },
    cancel: () => closeOnce(closing),
  })
  dropped.register(stream, closing)
  return stream
}
