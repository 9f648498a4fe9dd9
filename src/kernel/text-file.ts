/** The encodings a class list is read in: what spreadsheets save as "CSV", "CSV UTF-8" and "Unicode Text". */
export type TextEncoding = 'UTF-8' | 'Windows-1252' | 'UTF-16'

/**
 * A text file's content: UTF-16 when it starts with that encoding's byte order mark (a spreadsheet's
 * "Unicode Text", tab-separated), UTF-8 when it is (a BOM or not), else Windows-1252, which a
 * spreadsheet in Portuguese on Windows saves as "CSV" (João read as UTF-8 came out Jo\uFFFDo).
 * Imports nothing: the panel reads a class list in the browser with it too.
 */
export function decodeTextFile(bytes: Uint8Array): { text: string; encoding: TextEncoding } {
  // By its mark, or, without one, by the zero byte beside each letter of a Latin text.
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || zeroEvery(bytes, 1)) return { text: new TextDecoder('utf-16le').decode(bytes), encoding: 'UTF-16' }
  if ((bytes[0] === 0xfe && bytes[1] === 0xff) || zeroEvery(bytes, 0)) return { text: new TextDecoder('utf-16be').decode(bytes), encoding: 'UTF-16' }
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), encoding: 'UTF-8' }
  } catch {
    return { text: new TextDecoder('windows-1252').decode(bytes), encoding: 'Windows-1252' }
  }
}

/** Whether the file starts with a byte order mark (UTF-8's or UTF-16's), which names its encoding. */
export const startsWithMark = (bytes: Uint8Array) =>
  (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) || (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)

/** Whether the first 4 pairs of bytes all hold a zero at `at` (0 or 1) and a letter beside it: UTF-16 text. */
function zeroEvery(bytes: Uint8Array, at: 0 | 1): boolean {
  if (bytes.length < 8) return false
  for (let i = 0; i < 8; i += 2) if (bytes[i + at] !== 0 || bytes[i + 1 - at] === 0) return false
  return true
}
