/** The encodings a class list is read in: what spreadsheets save as "CSV", "CSV UTF-8" and "Unicode Text". */
export type TextEncoding = 'UTF-8' | 'Windows-1252' | 'UTF-16'

/**
 * A text file's content: UTF-16 when it starts with that encoding's byte order mark (a spreadsheet's
 * "Unicode Text", tab-separated), UTF-8 when it is (a BOM or not), else Windows-1252, which a
 * spreadsheet in Portuguese on Windows saves as "CSV" (João read as UTF-8 came out Jo\uFFFDo).
 * Imports nothing: the panel reads a class list in the browser with it too.
 */
export function decodeTextFile(bytes: Uint8Array): { text: string; encoding: TextEncoding } {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { text: new TextDecoder('utf-16le').decode(bytes), encoding: 'UTF-16' }
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { text: new TextDecoder('utf-16be').decode(bytes), encoding: 'UTF-16' }
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), encoding: 'UTF-8' }
  } catch {
    return { text: new TextDecoder('windows-1252').decode(bytes), encoding: 'Windows-1252' }
  }
}
