import { describe, expect, test } from 'bun:test'
import { parse } from 'csv-parse/sync'
import fc from 'fast-check'
import { csvCell, csvText } from '../../src/kernel/csv'

/** What a cell reads as once parsed: the text, behind an apostrophe when it would start a formula. */
const defused = (text: string) => (/^[=+\-@\t\r]/.test(text) ? `'${text}` : text)

describe('CSV cells a spreadsheet reads as one cell, whatever its separator', () => {
  test('a cell holding ; , " tab CR or LF is quoted with its quotes doubled; a formula start gets its apostrophe first', () => {
    const cells: [string, string][] = [
      ['Ana;=1+1;', '"Ana;=1+1;"'],
      [';=1+1', '";=1+1"'],
      ['=1+1;', `"'=1+1;"`],
      ['=1;2', `"'=1;2"`],
      ['a,b', '"a,b"'],
      ['say "hi"', '"say ""hi"""'],
      ['"', '""""'],
      ['Ana\tSouza', '"Ana\tSouza"'],
      ['\t=1+1', `"'\t=1+1"`],
      ['\r=1+1', `"'\r=1+1"`],
      ['two\nlines', '"two\nlines"'],
      ['a\r\nb', '"a\r\nb"'],
      ['@SUM(A1);x', `"'@SUM(A1);x"`],
      ['-2+3', "'-2+3"],
      ['plain text', 'plain text'],
      ["O'Brien", "O'Brien"],
      ['', ''],
    ]
    expect(cells.map(([text]) => [text, csvCell(text)])).toEqual(cells)
    expect(csvText([['group', 'name'], ['Azul', 'Ana;=1+1;'], ['Verde;x', '=1,2']])).toBe(`group,name\r\nAzul,"Ana;=1+1;"\r\n"Verde;x","'=1,2"\r\n`)
  })

  test('a pt-BR spreadsheet splitting on ; and one splitting on , both read Ana;=1+1; as one cell, and no cell as a formula', () => {
    const text = csvText([['grp_1', 'Ana;=1+1;', 3]])
    expect(parse(text, { delimiter: ',' })).toEqual([['grp_1', 'Ana;=1+1;', '3']])
    expect(parse(csvText([['Ana;=1+1;']]), { delimiter: ';' })).toEqual([['Ana;=1+1;']])
  })

  test('property: any text is one cell, read back whole (behind its apostrophe when it starts a formula) with , or ; as the separator, rows written with either', () => {
    // Separators, quotes, formula starts and line breaks often, anything else (any code point) too.
    const unit = fc.oneof(fc.constantFrom(',', ';', '"', "'", '\t', '\r', '\n', '=', '+', '-', '@', ' '), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }))
    const text = fc.string({ unit, minLength: 1, maxLength: 40 })
    fc.assert(
      fc.property(text, (cell) => {
        for (const delimiter of [',', ';']) expect(parse(csvText([[cell]]), { delimiter })).toEqual([[defused(cell)]])
        for (const [separator, delimiter] of [['comma', ','], ['semicolon', ';']] as const) {
          expect(parse(csvText([[cell, cell], ['x', cell]], separator), { delimiter })).toEqual([
            [defused(cell), defused(cell)],
            ['x', defused(cell)],
          ])
        }
      }),
      { numRuns: 2000 },
    )
  })
})
