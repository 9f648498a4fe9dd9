import { foldName } from '../../kernel/db/folded'
import { clip } from '../../kernel/errors'
import { nameText } from '../../kernel/control-characters'
import { pluralize } from '../../kernel/plural'
import { MemberInput, rmKey } from '../members'
import { GROUP_NAME_MAX } from './model'

// Reading a class list: the CSV a teacher's spreadsheet saves, checked line by line before anything
// is written (import.ts writes it).

export interface ImportRow {
  line: number
  group: string
  rm: string
  name: string
}

/** The line a problem names ("line 3: ..."), or undefined for a problem of the whole file. */
export const lineOf = (problem: string) => {
  const n = /^line (\d+)/.exec(problem)?.[1]
  return n === undefined ? undefined : Number(n)
}

export class ImportError extends Error {
  readonly problems: string[]
  constructor(problems: string[]) {
    super(`${pluralize(problems.length, 'problem')} in the class list; nothing was imported`)
    this.problems = [...problems].sort((a, b) => (lineOf(a) ?? 0) - (lineOf(b) ?? 0))
  }
}

/** The group column: the same rules as a group's name in POST /v1/admin/groups. */
const GroupColumn = nameText('group', GROUP_NAME_MAX)

/**
 * The header a spreadsheet writes above the list, in English or Portuguese, ignoring case and accents:
 * a line of it is skipped, where read as a row it made a group 'grupo' with a student 'rm'.
 */
const HEADER_WORDS = [
  ['group', 'grupo', 'turma', 'equipe', 'time', 'team'],
  ['rm', 'ra', 'matricula', 'registro', 'id', 'codigo'],
  ['name', 'nome', 'aluno', 'aluna', 'estudante', 'student'],
]
/** A cell's words, folded (no case or accents), and its letters run together: `R.M.` is `rm`. */
const headerWords = (cell: string) => {
  const words = foldName(cell).split(/[^a-z]+/).filter((w) => w !== '')
  return [...words, words.join('')]
}
/**
 * A header line: its RM cell holds no digit (every RM a class uses has some), and two of its cells say
 * what their column is, the RM's or not: "Grupo;R.M.;Nome do aluno", "Grupo;Login;Nome".
 */
const isHeader = (record: string[]) => {
  if (record.length !== 3 || /\d/.test(record[1]!)) return false
  const [group, rm, name] = record.map((cell, i) => headerWords(cell).some((w) => HEADER_WORDS[i]!.includes(w)))
  // The RM column has many titles (Login, Prontuário, NUSP…): headings of a group and a name beside
  // one without a digit are a header too.
  return (rm === true && (group === true || name === true)) || (group === true && name === true)
}

/** An RM a spreadsheet showed as a number in scientific notation (1,23457E+11: always with its +), and saved so. */
const SHORTENED_NUMBER = /^\d+([.,]\d+)?e\+\d+$/i

/** No line of a class list comes near these: a group, an RM and a name, a few separators quoted in a name. */
const MAX_LINE_LENGTH = 1000
const MAX_CELLS = 20

/**
 * The line the cell left open by a quote starts on: the quote that nothing closes (csv-parse names
 * the line where the file ended, counting a CRLF file's line breaks twice).
 */
function unclosedQuoteLine(text: string, delimiter: string): number | undefined {
  let line = 1
  let fieldStart = true
  let openedAt: number | undefined
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (c === '\r' && text[i + 1] === '\n') continue
    const lineBreak = c === '\n' || c === '\r'
    if (openedAt !== undefined) {
      if (c === '"' && text[i + 1] === '"') i++
      else if (c === '"') openedAt = undefined
      if (lineBreak) line++
      continue
    }
    if (lineBreak) line++
    if (lineBreak || c === delimiter) fieldStart = true
    else if (c === '"' && fieldStart) openedAt = line
    else if (c !== ' ' && c !== '\t' && c !== '\uFEFF') fieldStart = false
  }
  return openedAt
}

/** What csv-parse could not read, in a teacher's words, on the line it is. */
function notCsv(e: unknown, text: string, delimiter: string): string {
  const error = e as { code?: string; lines?: number; message?: string }
  if (error.code === 'CSV_QUOTE_NOT_CLOSED') {
    const line = unclosedQuoteLine(text, delimiter)
    return `${line === undefined ? '' : `line ${line}: `}a quote (") opens a cell and nothing closes it, so the rest of the file would be that one cell: add the closing quote, or remove the quote (a name needs none)`
  }
  const line = error.lines ?? Number(/at line (\d+)/.exec(error.message ?? '')?.[1] ?? NaN)
  if (/CLOSING_QUOTE/.test(error.code ?? '') && Number.isInteger(line)) {
    return `line ${line}: a cell in quotes goes on after its closing quote: put the whole cell in quotes and write each quote inside it twice ("Ana ""Aninha"" Souza"), or remove the quotes`
  }
  return `the file is not valid CSV: ${error.message ?? String(e)}`
}

/**
 * The column separator of the list: a comma, or the semicolon a spreadsheet set to Portuguese writes
 * (or a tab). Each is scored over the whole list: a line that has three columns by it counts, and counts
 * twice when its second column holds a digit, as an RM does. A name may hold commas ("Turma 3B, manhã",
 * "Silva, Ana, Maria") and so give three columns by a comma too, where its RM column would not be one.
 * With no line of three columns by any, the one that gives the first line the most columns (so that a
 * wrong line is told in its own terms).
 */
function separatorOf(lines: readonly string[]): string {
  const filled = lines.filter((line) => line.trim() !== '')
  const SEPARATORS = [',', ';', '\t']
  const score = (separator: string) =>
    filled.reduce((sum, line) => {
      const cells = line.split(separator)
      return cells.length !== 3 ? sum : sum + (/\d/.test(cells[1]!) ? 2 : 1)
    }, 0)
  const scores = SEPARATORS.map(score)
  const best = Math.max(...scores)
  if (best > 0) return SEPARATORS[scores.indexOf(best)]!
  const columns = (separator: string) => (filled[0] ?? '').split(separator).length
  return SEPARATORS.reduce((most, separator) => (columns(separator) > columns(most) ? separator : most))
}

/**
 * The most students one class list may hold. A class is tens; the bound keeps one import to a fraction
 * of a second (the server answers nothing else meanwhile): 39,000 lines, which fit in the 1 MiB body,
 * held it for over 4 s.
 */
export const MAX_IMPORT_ROWS = 2000

const tooManyStudents = (what: string) =>
  new ImportError([`${what}; a class list holds at most ${MAX_IMPORT_ROWS} students: split it into files of up to ${MAX_IMPORT_ROWS} lines and import them one after the other`])

/** Reads a class list `group,rm,name` (a header line is optional), reporting every bad row by its line in the file. */
export async function parseClassList(sent: string): Promise<ImportRow[]> {
  // One kind of line end, whatever the file mixes: csv-parse takes the first line's for the whole file,
  // and counts a CRLF inside a quoted cell as two lines.
  const text = sent.replace(/\r\n?/g, '\n')
  // Counted before parsing, which alone took half a second for 39,000 lines (a header line may be one
  // of them), or 3 s for one line of a million commas.
  const lines = text.split('\n')
  const filled = lines.filter((line) => line.trim() !== '').length
  if (filled > MAX_IMPORT_ROWS + 1) throw tooManyStudents(`the file has ${filled} lines`)
  const long = lines.findIndex((line) => line.length > MAX_LINE_LENGTH)
  if (long >= 0) {
    throw new ImportError([`line ${long + 1}: ${lines[long]!.length.toLocaleString('en')} characters long, where a class list's line holds a group, an RM and a name (at most ${MAX_LINE_LENGTH} characters): is this the class list?`])
  }
  const delimiter = separatorOf(lines)
  // A line of many cells is not one of a class list, and costs the parser (a thousand lines of 300 commas held it 0.4 s).
  const crowded = lines.findIndex((line) => line.split(delimiter).length > MAX_CELLS)
  if (crowded >= 0) {
    throw new ImportError([`line ${crowded + 1}: ${lines[crowded]!.split(delimiter).length} cells, where a class list's line holds 3 (group, RM, name): is this the class list?`])
  }
  const { parse } = await import('csv-parse/sync') // loaded by the first import, not at start
  let records: { record: string[]; info: { lines: number } }[]
  try {
    // relax_quotes: a quote inside a cell that does not start with one is kept (Ana "Aninha" Souza).
    records = parse(text, { relax_column_count: true, relax_quotes: true, skip_empty_lines: true, trim: true, bom: true, info: true, delimiter }) as unknown as typeof records
  } catch (e) {
    throw new ImportError([notCsv(e, text, delimiter)])
  }
  const problems: string[] = []
  const rows: ImportRow[] = []
  const shown = delimiter === ',' ? 'group,rm,name' : `group${delimiter}rm${delimiter}name`.replace(/\t/g, '<tab>')
  let headerLooked = false
  let headerSkipped = false
  records.forEach(({ record, info }) => {
    // The line the record starts on: it ends on info.lines, after the line breaks its quoted cells hold.
    const line = info.lines - record.reduce((n, cell) => n + (cell.match(/\n/g)?.length ?? 0), 0)
    // A spreadsheet saves the empty rows of a sheet as separators alone (;;): blank lines, above the
    // header as well as under the list.
    if (record.every((cell) => cell === '')) return
    if (!headerLooked) {
      headerLooked = true
      headerSkipped = isHeader(record)
      if (headerSkipped) return
    }
    // A line break inside a cell comes only from a quote that the next line's quote closed: one cell
    // read across lines, which no name holds.
    if (record.some((cell) => cell.includes('\n'))) {
      return problems.push(`line ${line}: a quote (") opens a cell that runs on to line ${info.lines}, where the next quote closes it: remove the quote, or close it on the same line`)
    }
    if (record.length !== 3) return problems.push(`line ${line}: expected 3 columns (${shown}), found ${record.length}`)
    const [group, rm, name] = record as [string, string, string]
    // A letter something read in the wrong encoding before the text got here (the file's own bytes
    // are read as UTF-8, Windows-1252 or UTF-16: text-file.ts).
    if (record.some((cell) => cell.includes('\uFFFD'))) {
      return problems.push(`line ${line}: holds the replacement character (\uFFFD) where a letter was: the file was read in the wrong encoding before it was sent; send the file's own bytes (curl --data-binary @class.csv), which are read as UTF-8, Windows-1252 or UTF-16, or save the list as "CSV UTF-8"`)
    }
    const groupName = GroupColumn.safeParse(group)
    if (!groupName.success) for (const issue of groupName.error.issues) problems.push(`line ${line}: ${issue.message}`)
    const member = MemberInput.safeParse({ rm, name })
    const shortened = SHORTENED_NUMBER.test(rm)
    if (shortened) problems.push(`line ${line}: the RM ${rm} is a number the spreadsheet shortened: format the RM column as Text, type the RMs again and save the file`)
    for (const issue of member.success ? [] : member.error.issues) {
      if (issue.path[0] !== 'rm') problems.push(`line ${line}: ${issue.message}`)
      else if (!shortened) problems.push(`line ${line}: ${rm === '' ? '' : `RM ${JSON.stringify(clip(rm, 40))}: `}${issue.message}`)
    }
    // As the checks left them: trimmed, accents composed (a group typed with a combining accent is the
    // group typed whole).
    rows.push({ line, group: groupName.success ? groupName.data : group, rm: member.success ? member.data.rm : rm, name: member.success ? member.data.name : name })
  })
  const firstLine = new Map<string, ImportRow>()
  for (const row of rows) {
    const seen = firstLine.get(rmKey(row.rm))
    if (seen && foldName(seen.group) !== foldName(row.group)) {
      const as = seen.rm === row.rm ? '' : ` (as ${seen.rm}: RMs are compared ignoring case)`
      problems.push(`line ${row.line}: RM ${row.rm} is also in group '${seen.group}' on line ${seen.line}${as}; a student belongs to one group`)
    } else if (seen && seen.name !== row.name) {
      problems.push(`line ${row.line}: RM ${row.rm} is also on line ${seen.line}, named '${seen.name}'; a student has one name`)
    }
    if (!seen) firstLine.set(rmKey(row.rm), row)
  }
  if (problems.length) throw new ImportError(problems)
  if (rows.length > MAX_IMPORT_ROWS) throw tooManyStudents(`the file has ${rows.length} students`)
  if (rows.length === 0) {
    throw new ImportError([headerSkipped ? 'the file has a header but no rows; add lines group,rm,name' : text.trim() === '' ? 'the file is empty; add lines group,rm,name' : 'the file holds no student, only separators; add lines group,rm,name'])
  }
  return rows
}
