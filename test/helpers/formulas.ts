import { expect } from 'bun:test'
import { parse } from 'csv-parse/sync'

/** A group and members whose names a spreadsheet would run as formulas. */
export const FORMULA_GROUP = "=cmd|' /C calc'!A0"

export const FORMULA_MEMBERS = [
  { rm: 'f1', name: '=HYPERLINK("http://x","y")' },
  { rm: 'f2', name: '+1+1' },
  { rm: 'f3', name: '-2+3' },
  { rm: 'f4', name: '@SUM(A1)' },
  { rm: 'f5', name: 'Silva, "Bia"' },
  // A pt-BR spreadsheet splits on semicolons: unquoted, the second of three cells would be a formula.
  { rm: 'f8', name: 'Ana;=1+1;' },
]

/**
 * Names with a tab, a carriage return or a line break, which the API refuses (or trims away) and an
 * older version could have stored: a test writes them straight into the students table
 * (`update students set name = ? where rm = ?`).
 */
export const RAW_NAMES = [
  { rm: 'f6', name: '\t=1+1' },
  { rm: 'f7', name: '\r=1+1' },
  { rm: 'f9', name: 'two\nlines' },
]

/**
 * A name that clears the screen, homes the cursor, and prints a forged line in red: what a student
 * could have typed before names refused control characters.
 */
export const TERMINAL_ESCAPE = 'Zed\u001b[2J\u001b[H\u001b[31mALL GROUPS: 0 calls\u001b]0;owned\u0007\u009b2J'

/** The same name as the CLI prints it: every control character escaped. */
export const TERMINAL_ESCAPE_PRINTED = 'Zed\\x1b[2J\\x1b[H\\x1b[31mALL GROUPS: 0 calls\\x1b]0;owned\\x07\\x9b2J'

/** Any control character (C0, DEL, C1) but the line ends `\n` and `\r\n` that the program writes itself. */
export const rawControlBytes = (output: string) => [...output.replace(/\r?\n/g, '').matchAll(/[\u0000-\u001f\u007f-\u009f]/g)].map((m) => m[0])

/** The class list of FORMULA_GROUP and FORMULA_MEMBERS, plus the members of RAW_NAMES under placeholder names. */
export const formulaClassList = () =>
  [...FORMULA_MEMBERS, ...RAW_NAMES.map((m) => ({ rm: m.rm, name: `placeholder ${m.rm}` }))]
    .map((m) => [FORMULA_GROUP, m.rm, m.name].map((cell) => `"${cell.replace(/"/g, '""')}"`).join(','))
    .join('\n')

/**
 * The activity CSV still parses with 7 columns a row, no cell starts a formula, and each hostile name
 * (and the group's name) arrives whole behind one apostrophe. The API writes RAW_NAMES as stored;
 * the CLI (`printed`) writes their control characters escaped, which then start no formula.
 */
export function expectDefusedActivityCsv(text: string, printed = false) {
  // A byte order mark first, as the API writes and a file keeps, is not part of the first cell.
  const rows: string[][] = parse(text, { relax_column_count: true, bom: true })
  expect(rows[0]).toEqual(['group_id', 'group', 'rm', 'name', 'calls', 'errors', 'last_call_at'])
  expect(rows.every((r) => r.length === 7)).toBe(true)
  expect(rows.flat().filter((cell) => /^[=+\-@\t\r]/.test(cell))).toEqual([])
  const ours = rows.filter((r) => r[1] === `'${FORMULA_GROUP}`)
  expect(ours).toHaveLength(FORMULA_MEMBERS.length + RAW_NAMES.length + 3) // plus unattributed, shop front and total
  const names = Object.fromEntries(ours.filter((r) => r[2] !== '').map((r) => [r[2], r[3]]))
  expect(names).toEqual({
    f1: `'=HYPERLINK("http://x","y")`,
    f2: "'+1+1",
    f3: "'-2+3",
    f4: "'@SUM(A1)",
    f5: 'Silva, "Bia"',
    f8: 'Ana;=1+1;',
    ...(printed ? { f6: '\\x09=1+1', f7: '\\x0d=1+1', f9: 'two\\x0alines' } : { f6: "'\t=1+1", f7: "'\r=1+1", f9: 'two\nlines' }),
  })
  // Quoted, so that it stays one cell where a spreadsheet splits on semicolons.
  expect(text).toContain(',f8,"Ana;=1+1;",')
}
