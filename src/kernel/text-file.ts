/**
 * A text file's content: UTF-8 when it is (a BOM or not), else Windows-1252, which a spreadsheet in
 * Portuguese on Windows saves as "CSV" (João read as UTF-8 came out Jo\uFFFDo). Imports nothing: the
 * panel reads a class list in the browser with it too.
 */
export function decodeTextFile(bytes: Uint8Array): { text: string; encoding: 'UTF-8' | 'Windows-1252' } {
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), encoding: 'UTF-8' }
  } catch {
    return { text: new TextDecoder('windows-1252').decode(bytes), encoding: 'Windows-1252' }
  }
}
