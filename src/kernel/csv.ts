// The one way the program writes CSV (the activity report, from the API and from the CLI).
//
// Names in it come from students, and a spreadsheet runs a cell that starts with `=`, `+`, `-` or `@`
// as a formula (a tab or a carriage return first is read past by some of them): a member named
// `=HYPERLINK(...)` would become a link on the teacher's machine. Such a cell gets a leading `'`, which
// spreadsheets take as "this is text". The rule is the same for every cell, numbers included: the
// program writes no negative numbers, and a rule without exceptions cannot pick the wrong one.
//
// A spreadsheet set to a language that writes decimals with a comma (pt-BR) splits a CSV line on `;`,
// and some split on tabs: an unquoted `Ana;=1+1;` would be three cells there, the second a formula.
// So a cell holding any separator a spreadsheet may use (`,` `;` tab), a quote or a line break is
// quoted, with its quotes doubled (RFC 4180): it is one cell whichever separator the reader picks.
// Such a spreadsheet opens a comma-separated file as one column, so the reader may ask for `;`.
//
// Excel reads a CSV file as the machine's old code page (Windows-1252) unless it starts with a UTF-8
// byte order mark: `João` becomes `JoÃ£o`. A file to save therefore starts with one (CSV_BOM).

export type CsvValue = string | number | null

const FORMULA_START = /^[=+\-@\t\r]/
const NEEDS_QUOTES = /[",;\t\r\n]/

/** One cell: `null` is empty; a formula start is defused; separators, quotes and line breaks are quoted. */
export function csvCell(value: CsvValue): string {
  const text = value === null ? '' : String(value)
  const safe = FORMULA_START.test(text) ? `'${text}` : text
  return NEEDS_QUOTES.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe
}

/** The byte order mark that makes Excel read a file as UTF-8; other spreadsheets and csv readers skip it. */
export const CSV_BOM = '\ufeff'

export const CSV_SEPARATORS = { comma: ',', semicolon: ';' } as const
export type CsvSeparator = keyof typeof CSV_SEPARATORS

/** Rows as CSV text: cells split by `separator`, CRLF line ends (RFC 4180), one after the last row too. */
export const csvText = (rows: CsvValue[][], separator: CsvSeparator = 'comma'): string =>
  rows.map((row) => row.map(csvCell).join(CSV_SEPARATORS[separator])).join('\r\n') + '\r\n'
