/**
 * An uploaded image's width and height, read from the first bytes of its file only, in time that
 * stays small whatever the bytes are.
 *
 * The library reads PNG, GIF, WebP and AVIF from their headers. Its JPEG reader, on a file that has
 * no marker where one must be, steps one byte at a time to the file's end, making a new view of the
 * buffer at each step: a 10 MiB upload of `FF D8 FF E0` and zeros held the event loop for 1.5 s, and
 * every store's requests with it. A JPEG is therefore read here, marker by marker (each step is a
 * whole segment, and anything that is not a marker ends the walk), within the same first bytes.
 */

/** How much of the file is read: a camera's EXIF, ICC and XMP segments come before the size, well within. */
export const IMAGE_HEAD_BYTES = 256 * 1024

export interface ImageSize {
  width: number | null
  height: number | null
}

const UNKNOWN: ImageSize = { width: null, height: null }

/** Start-of-frame markers, which carry the size: C0 to CF but C4 (Huffman tables), C8 (reserved) and CC (arithmetic coding). */
const isFrame = (marker: number) => marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc
/** Markers without a length: TEM, restarts, start of image. */
const standsAlone = (marker: number) => marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)

/** A JPEG's size from its frame header, or unknown when its segments do not lead to one within `bytes`. */
export function jpegSize(bytes: Uint8Array): ImageSize {
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) return UNKNOWN
  let at = 2
  while (at + 8 < bytes.length) {
    if (bytes[at] !== 0xff) return UNKNOWN
    const marker = bytes[at + 1]!
    if (marker === 0xff) {
      at += 1 // a fill byte before the marker
      continue
    }
    if (standsAlone(marker)) {
      at += 2
      continue
    }
    // The end of the image or the start of the compressed data with no frame before it.
    if (marker === 0xd9 || marker === 0xda) return UNKNOWN
    if (isFrame(marker)) {
      const height = (bytes[at + 5]! << 8) | bytes[at + 6]!
      const width = (bytes[at + 7]! << 8) | bytes[at + 8]!
      return width > 0 && height > 0 ? { width, height } : UNKNOWN
    }
    const length = (bytes[at + 2]! << 8) | bytes[at + 3]!
    if (length < 2) return UNKNOWN
    at += 2 + length
  }
  return UNKNOWN
}

/** The size of an image of type `mime` from the first bytes of its file (IMAGE_HEAD_BYTES of them at most). */
export async function imageSize(head: Uint8Array, mime: string): Promise<ImageSize> {
  const bytes = head.subarray(0, IMAGE_HEAD_BYTES)
  if (mime === 'image/jpeg') return jpegSize(bytes)
  try {
    const { imageSize: read } = await import('image-size')
    const { width, height } = read(bytes)
    return width && height ? { width, height } : UNKNOWN
  } catch {
    return UNKNOWN
  }
}
