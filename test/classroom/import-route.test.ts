import { describe, expect, test } from 'bun:test'
import { MAX_IMPORT_ROWS } from '../../src/features/groups/class-list'
import { JSON_BODY_LIMIT } from '../../src/kernel/http/json-body'
import { createTestApp } from '../helpers/app'
import { activeStudent, admin, bearer, createGroup, expectOk, firstLogin, passwordOf } from '../helpers/world'

const CLASS = 'group,rm,name\nTurma A,11111,Ana Souza\nTurma A,22222,Bruno Lima\nTurma B,33333,Carla Dias\n'
const NOTHING_MOVED = { studentsMoved: 0, studentsRenamed: 0, moved: [], renamed: [], groupsLeftEmpty: [] }

const setup = () => {
  const t = createTestApp({ settings: { rateLimitRps: '0' } })
  const send = (raw: string | undefined, contentType = 'text/csv') =>
    t.call('POST', '/v1/admin/groups/import', { headers: { ...admin, ...(contentType ? { 'content-type': contentType } : {}) }, raw })
  const groups = async () => (await expectOk(t.call('GET', '/v1/admin/groups', { headers: admin }))).data.map((g: any) => [g.name, g.members.map((m: any) => m.rm)])
  return { ...t, send, groups }
}

describe('POST /v1/admin/groups/import (a class list as text/csv)', () => {
  test('creates the groups, their stores and members; the same list again changes nothing', async () => {
    const t = setup()
    await createGroup(t.call, 'turma b', [{ rm: '44444', name: 'Davi' }])
    expect(await expectOk(t.send(CLASS, 'text/csv; charset=utf-8'))).toEqual({ ...NOTHING_MOVED, rows: 3, groupsCreated: 1, studentsAdded: 3, alreadyThere: 0 })
    // 'Turma B' is the existing 'turma b' (names are compared ignoring case).
    expect(await t.groups()).toEqual([['Turma A', ['11111', '22222']], ['turma b', ['33333', '44444']]])
    expect(await expectOk(t.send(CLASS))).toEqual({ ...NOTHING_MOVED, rows: 3, groupsCreated: 0, studentsAdded: 0, alreadyThere: 3 })
    // An imported student logs in with the RM as first password.
    expect(await firstLogin(t.call, '11111')).toStartWith('stu_')
    // No header line is needed.
    expect(await expectOk(t.send('Turma C,55555,Eva\r\n'))).toEqual({ ...NOTHING_MOVED, rows: 1, groupsCreated: 1, studentsAdded: 1, alreadyThere: 0 })
  })

  test('any bad line is 400 VALIDATION_ERROR listing every problem by line, and nothing is imported', async () => {
    const t = setup()
    const bad = 'group,rm,name\nTurma A,11111,Ana\nTurma A,22222\nTurma B,11111,Ana again\n'
    const res = await t.send(bad)
    expect(res.status).toBe(400)
    expect(res.body.error.code).toBe('VALIDATION_ERROR')
    expect(res.body.error.message).toStartWith('2 problems in the class list')
    expect(res.body.error.message).toContain('nothing was imported')
    expect(res.body.error.details).toEqual([
      { path: 'line 3', line: 3, message: 'expected 3 columns (group,rm,name), found 2' },
      { path: 'line 4', line: 4, message: "RM 11111 is also in group 'Turma A' on line 2; a student belongs to one group" },
    ])
    expect(await t.groups()).toEqual([])
    expect(res.body.error.message).not.toContain('single line')
    // curl -d @class.csv drops the line breaks; the message says to use --data-binary.
    const flattened = await t.send(CLASS.replace(/\n/g, ''))
    expect(flattened.body.error.message).toContain('The file arrived as a single line: send it with curl --data-binary')
    const headerOnly = await t.send('group,rm,name\n')
    expect([headerOnly.status, headerOnly.body.error.details[0].path]).toEqual([400, 'file'])
  })

  test(`a list of more than ${MAX_IMPORT_ROWS} students is refused before it is read, saying to split it; ${MAX_IMPORT_ROWS} are imported`, async () => {
    const t = setup()
    const lines = (n: number) => Array.from({ length: n }, (_, i) => `Turma ${Math.floor(i / 40)},${100000 + i},Aluno ${i}`)
    const tooMany = await t.send(['group,rm,name', ...lines(MAX_IMPORT_ROWS + 1)].join('\n'))
    expect(tooMany.body.error.message).toEndWith('nothing was imported. Fix what details lists (each line it names) and send the whole file again.')
    expect([tooMany.status, tooMany.body.error.details]).toEqual([
      400,
      [{ path: 'file', message: `the file has ${MAX_IMPORT_ROWS + 2} lines; a class list holds at most ${MAX_IMPORT_ROWS} students: split it into files of up to ${MAX_IMPORT_ROWS} lines and import them one after the other` }],
    ])
    expect(await t.groups()).toEqual([])
    // Without a header line, one more line is one more student: counted once the file is read.
    const noHeader = await t.send(lines(MAX_IMPORT_ROWS + 1).join('\n'))
    expect([noHeader.status, noHeader.body.error.details[0].message]).toEqual([400, `the file has ${MAX_IMPORT_ROWS + 1} students; a class list holds at most ${MAX_IMPORT_ROWS} students: split it into files of up to ${MAX_IMPORT_ROWS} lines and import them one after the other`])
    expect(await t.groups()).toEqual([])
    expect((await expectOk(t.send(['group,rm,name', ...lines(MAX_IMPORT_ROWS)].join('\n')))).studentsAdded).toBe(MAX_IMPORT_ROWS)
  })

  test("a spreadsheet's list in Portuguese: its header skipped, semicolons as separators (a name may hold a comma), the same rows as with commas", async () => {
    const t = setup()
    const pt = 'Grupo;RM;Nome\r\nTurma A;11111;Ana Souza\r\nTurma A;22222;"Lima; Bruno"\r\nTurma B;33333;Dias, Carla\r\n'
    expect(await expectOk(t.send(pt))).toEqual({ ...NOTHING_MOVED, rows: 3, groupsCreated: 2, studentsAdded: 3, alreadyThere: 0 })
    const members = (await expectOk(t.call('GET', '/v1/admin/groups', { headers: admin }))).data.flatMap((g: any) => g.members.map((m: any) => [g.name, m.rm, m.name]))
    expect(members).toEqual([
      ['Turma A', '11111', 'Ana Souza'],
      ['Turma A', '22222', 'Lima; Bruno'],
      ['Turma B', '33333', 'Dias, Carla'],
    ])
    // A header in Portuguese with commas, and one tab-separated: never a group 'grupo' holding a student 'rm'.
    expect(await expectOk(t.send('grupo,rm,nome\nTurma C,44444,Caio\n'))).toMatchObject({ rows: 1, groupsCreated: 1, studentsAdded: 1 })
    expect(await expectOk(t.send('turma\tra\taluno\nTurma C\t55555\tEva\n'))).toMatchObject({ rows: 1, groupsCreated: 0, studentsAdded: 1 })
    expect((await t.groups()).map(([name]: [string]) => name)).toEqual(['Turma A', 'Turma B', 'Turma C'])
    const wrong = await t.send('Turma A;66666\n')
    expect(wrong.body.error.details).toEqual([{ path: 'line 1', line: 1, message: 'expected 3 columns (group;rm;name), found 2' }])
  })

  test('semicolons are told from commas by the whole list: lines with two commas (three columns by either) are read by their semicolons', async () => {
    const t = setup()
    const pt = 'Turma A;50100;Silva, Ana, Maria\r\nTurma 3B, manhã;50101;Souza, Bia\r\n'
    expect(await expectOk(t.send(pt))).toMatchObject({ rows: 2, groupsCreated: 2, studentsAdded: 2 })
    const members = (await expectOk(t.call('GET', '/v1/admin/groups', { headers: admin }))).data.flatMap((g: any) => g.members.map((m: any) => [g.name, m.rm, m.name]))
    expect(members).toEqual([
      ['Turma 3B, manhã', '50101', 'Souza, Bia'],
      ['Turma A', '50100', 'Silva, Ana, Maria'],
    ])
    // The other way round: a list by commas whose names hold two semicolons stays one by commas.
    expect(await expectOk(t.send('Turma C,50102,Dias; Caio; Melo\n'))).toMatchObject({ rows: 1, groupsCreated: 1, studentsAdded: 1 })
    expect((await t.groups()).find(([name]: [string]) => name === 'Turma C')).toEqual(['Turma C', ['50102']])
  })

  test('a list imported again with a name corrected renames that student, and says so; the same RM twice in a list under two names is a 400', async () => {
    const t = setup()
    await expectOk(t.send(CLASS))
    const corrected = CLASS.replace('Bruno Lima', 'Bruno de Lima')
    expect(await expectOk(t.send(corrected))).toEqual({
      ...NOTHING_MOVED,
      rows: 3,
      groupsCreated: 0,
      studentsAdded: 0,
      studentsRenamed: 1,
      alreadyThere: 2,
      renamed: [{ line: 3, rm: '22222', from: 'Bruno Lima', to: 'Bruno de Lima' }],
    })
    const members = (await expectOk(t.call('GET', '/v1/admin/groups', { headers: admin }))).data.flatMap((g: any) => g.members.map((m: any) => m.name))
    expect(members).toEqual(['Ana Souza', 'Bruno de Lima', 'Carla Dias'])
    // The same list again changes nothing.
    expect(await expectOk(t.send(corrected))).toMatchObject({ studentsRenamed: 0, alreadyThere: 3 })
    const twice = await t.send('Turma A,11111,Ana Souza\nTurma A,11111,Ana S.\n')
    expect(twice.body.error.details).toEqual([{ path: 'line 2', line: 2, message: "RM 11111 is also on line 1, named 'Ana Souza'; a student has one name" }])
  })

  test('a problem names its line in the file, counting blank lines and the line breaks inside a quoted name', async () => {
    const t = setup()
    const res = await t.send('Turma A,11111,Ana\n\n\nTurma A,22222\nTurma A,33333,"Carla\nDias"\nTurma A,44444\n')
    expect(res.body.error.details.map((d: { line: number; message: string }) => [d.line, d.message.slice(0, 40)])).toEqual([
      [4, 'expected 3 columns (group,rm,name), foun'],
      [5, 'a quote (") opens a cell that runs on to'],
      [7, 'expected 3 columns (group,rm,name), foun'],
    ])
  })

  test('a list is read in the encoding its bytes are in, or the one its charset names, as the panel and the command read a file', async () => {
    const t = setup()
    const send = (bytes: Uint8Array, contentType = 'text/csv') => t.call('POST', '/v1/admin/groups/import', { headers: { ...admin, 'content-type': contentType }, raw: bytes })
    const text = (rm: string) => `Turma A,${rm},Jo\u00e3o Concei\u00e7\u00e3o\n`
    // Windows-1252, what a spreadsheet in Portuguese saves as "CSV"; the same said by its charset; the
    // UTF-16 of a spreadsheet's "Unicode Text", tab-separated, with its byte order mark.
    expect(await expectOk(send(Buffer.from(text('11111'), 'latin1')))).toMatchObject({ rows: 1, studentsAdded: 1 })
    expect(await expectOk(send(Buffer.from(text('22222'), 'latin1'), 'text/csv; charset=windows-1252'))).toMatchObject({ rows: 1, studentsAdded: 1 })
    const unicodeText = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('grupo\trm\tnome\r\nTurma A\t33333\tJo\u00e3o Concei\u00e7\u00e3o\r\n', 'utf16le')])
    expect(await expectOk(send(unicodeText))).toMatchObject({ rows: 1, studentsAdded: 1 })
    const names = (await expectOk(t.call('GET', '/v1/admin/groups', { headers: admin }))).data.flatMap((g: any) => g.members.map((m: any) => m.name))
    expect(names).toEqual(['Jo\u00e3o Concei\u00e7\u00e3o', 'Jo\u00e3o Concei\u00e7\u00e3o', 'Jo\u00e3o Concei\u00e7\u00e3o'])
    // A byte order mark names the encoding whatever the charset says; UTF-16 without one is known by its zero bytes.
    const marked = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text('44444'))])
    expect(await expectOk(send(marked, 'text/csv; charset=windows-1252'))).toMatchObject({ rows: 1, studentsAdded: 1 })
    expect(await expectOk(send(Buffer.from(text('55555').replace(',', '\t').replace(',', '\t'), 'utf16le')))).toMatchObject({ rows: 1, studentsAdded: 1 })
    const bigEndian = Buffer.from(text('66666'), 'utf16le').swap16()
    expect(await expectOk(send(Buffer.concat([Buffer.from([0xfe, 0xff]), bigEndian]), 'text/csv; charset=utf-16'))).toMatchObject({ rows: 1, studentsAdded: 1 })
    // An encoding no spreadsheet saves a class list in is refused as an unknown one, a byte order mark or not.
    for (const charset of ['gbk', 'x-user-defined']) expect((await send(Buffer.from(text('77777')), `text/csv; charset=${charset}`)).status).toBe(415)
    expect((await send(marked, 'text/csv; charset=klingon')).status).toBe(415)
    // A charset the server does not know is 415, naming it.
    const unknown = await send(Buffer.from(text('44444')), 'text/csv; charset=klingon')
    expect([unknown.status, unknown.body.error.message]).toEqual([415, "The Content-Type names the encoding 'klingon', which is not one the server reads: send the file as UTF-8 (or Windows-1252 or UTF-16), or leave the charset out and the server reads which of those it is."])
    // A text decoded wrongly before it was sent holds replacement characters: named by line, nothing imported.
    const mangled = await t.send('Turma A,55555,Jo\ufffdo\n')
    expect(mangled.body.error.details).toEqual([
      {
        path: 'line 1',
        line: 1,
        message: 'holds the replacement character (\ufffd) where a letter was: the file was read in the wrong encoding before it was sent; send the file\'s own bytes (curl --data-binary @class.csv), which are read as UTF-8, Windows-1252 or UTF-16, or save the list as "CSV UTF-8"',
      },
    ])
    expect((await t.groups()).map(([, rms]: [string, string[]]) => rms)).toEqual([['11111', '22222', '33333', '44444', '55555', '66666']])
  })

  test("a spreadsheet's own habits: a header in other words, its empty rows as separators, a quote inside a name, an RM it shortened, a quote never closed", async () => {
    const t = setup()
    for (const header of ['Grupo;RM;Nome do aluno', 'GRUPO;R.M.;NOME', 'Equipe;Matrícula;Aluno(a)']) {
      const res = await expectOk(t.send(`${header}\r\nTurma A;11111;Ana "Aninha" Souza\r\n;;\r\n;;\r\n`))
      expect([header, res.rows, res.studentsAdded + res.alreadyThere]).toEqual([header, 1, 1])
    }
    expect(await t.groups()).toEqual([['Turma A', ['11111']]])
    const names = (await expectOk(t.call('GET', '/v1/admin/groups', { headers: admin }))).data.flatMap((g: any) => g.members.map((m: any) => m.name))
    expect(names).toEqual(['Ana "Aninha" Souza'])
    // A first line that only looks like a header is a student: its RM has digits.
    expect(await expectOk(t.send('Grupo;RM1;Nome\n'))).toMatchObject({ rows: 1, groupsCreated: 1, studentsAdded: 1 })
    const shortened = await t.send('Turma A;1,23457E+11;Bruno\nTurma A;9.87E+10;Carla\nTurma A;a b;Davi\n')
    expect(shortened.body.error.details.map((d: { message: string }) => d.message)).toEqual([
      'the RM 1,23457E+11 is a number the spreadsheet shortened: format the RM column as Text, type the RMs again and save the file',
      'the RM 9.87E+10 is a number the spreadsheet shortened: format the RM column as Text, type the RMs again and save the file',
      'RM "a b": rm may hold letters, digits, dot, dash and underscore only',
    ])
    // Empty rows above the header too: the header is the first line that holds something.
    expect(await expectOk(t.send(';;\r\nGrupo;RM;Nome\r\nTurma D;10001;Dora\r\n'))).toMatchObject({ rows: 1, groupsCreated: 1, studentsAdded: 1 })
    expect((await t.groups()).flatMap(([, rms]: [string, string[]]) => rms)).not.toContain('RM')
    // The RM column goes by other titles: two headings beside a cell without a digit are a header too.
    expect(await expectOk(t.send('Grupo;Login;Nome\r\nTurma D;10002;Duda\r\n'))).toMatchObject({ rows: 1, studentsAdded: 1 })
    expect((await t.groups()).flatMap(([, rms]: [string, string[]]) => rms)).not.toContain('Login')
    // A group typed with a combining accent is the group typed whole; names are kept composed.
    expect(await expectOk(t.send('Delt\u00e1;96001;Ana\nDelta\u0301;96002;Bi\u0301a\n'))).toMatchObject({ rows: 2, groupsCreated: 1, studentsAdded: 2 })
    const delta = (await expectOk(t.call('GET', '/v1/admin/groups?pageSize=100', { headers: admin }))).data.find((g: any) => g.name === 'Delt\u00e1')
    expect(delta.members).toEqual([{ rm: '96001', name: 'Ana' }, { rm: '96002', name: 'B\u00eda' }])
    // A line of many cells is not a class list's, refused before it is parsed.
    const crowded = await t.send(`Turma D;1;Eva\n${';'.repeat(30)}\n`)
    expect(crowded.body.error.details).toEqual([{ path: 'line 2', line: 2, message: "31 cells, where a class list's line holds 3 (group, RM, name): is this the class list?" }])
    // An RM with an E in it is an RM: what a spreadsheet shortens always has E+.
    expect(await expectOk(t.send('Turma D;21E045;Eva\n'))).toMatchObject({ rows: 1, studentsAdded: 1 })
    // A quote that closes a cell which then goes on.
    const after = await t.send('Turma D;30001;"Ana" Souza\n')
    expect(after.body.error.details).toEqual([
      { path: 'line 1', line: 1, message: 'a cell in quotes goes on after its closing quote: put the whole cell in quotes and write each quote inside it twice ("Ana ""Aninha"" Souza"), or remove the quotes' },
    ])
    // Line ends mixed in one file, and a line break inside a quoted name in a CRLF file: lines as the file counts them.
    expect(await expectOk(t.send('grupo;rm;nome\r\nTurma D;40001;Fabi\nTurma D;40002;Gil\r\n'))).toMatchObject({ rows: 2, studentsAdded: 2 })
    const inside = await t.send('group,rm,name\r\nG2,2001,"Ana\r\nB"\r\nG2,2003,Caio\r\nG2,,Dan\r\n')
    expect(inside.body.error.details.map((d: { line: number }) => d.line)).toEqual([2, 5, 5])
    // A line no class list has (a million commas took the server 3 s to read) is refused before it is read.
    const started = performance.now()
    const commas = await t.send(','.repeat(1024 * 1024 - 10))
    expect([commas.status, commas.body.error.details[0].message]).toEqual([
      400,
      '1,048,566 characters long, where a class list\'s line holds a group, an RM and a name (at most 1000 characters): is this the class list?',
    ])
    expect(performance.now() - started).toBeLessThan(1000)
    // The line where the quote opens, in a file with CRLF line ends as in one with LF.
    for (const end of ['\r\n', '\n']) {
      const open = await t.send(['grupo;rm;nome', 'Turma A;22222;"Bruno Lima', 'Turma A;33333;Carla', 'Turma A;44444;Davi', ''].join(end))
      expect([JSON.stringify(end), open.body.error.details]).toEqual([
        JSON.stringify(end),
        [{ path: 'line 2', line: 2, message: 'a quote (") opens a cell and nothing closes it, so the rest of the file would be that one cell: add the closing quote, or remove the quote (a name needs none)' }],
      ])
    }
  })

  test("an RM another group squatted moves to the list's group: the squatter's session for it is 401 at once, the password is the RM again, and the answer reports the move", async () => {
    const t = setup()
    // A student adds a classmate's RM to their own group first, logs in as it and sets a password.
    await createGroup(t.call, 'Squat', [{ rm: '99999', name: 'Squatter' }])
    await expectOk(t.call('POST', '/v1/store/members', { headers: bearer(await activeStudent(t.call, '99999')), body: { rm: '22222', name: 'Not Bruno' } }), 201)
    const squatted = await activeStudent(t.call, '22222')
    expect((await t.call('GET', '/v1/store/auth/me', { headers: bearer(squatted) })).body.student.group).toBe('Squat')

    expect(await expectOk(t.send(CLASS))).toEqual({
      rows: 3,
      groupsCreated: 2,
      studentsAdded: 2,
      studentsMoved: 1,
      studentsRenamed: 0,
      alreadyThere: 0,
      moved: [{ line: 3, rm: '22222', from: 'Squat', to: 'Turma A', renamedFrom: 'Not Bruno' }],
      renamed: [],
      groupsLeftEmpty: [],
    })
    expect(await t.groups()).toEqual([['Squat', ['99999']], ['Turma A', ['11111', '22222']], ['Turma B', ['33333']]])
    const ended = await t.call('GET', '/v1/store/auth/me', { headers: bearer(squatted) })
    expect([ended.status, ended.body.error.code]).toEqual([401, 'UNAUTHENTICATED'])
    // The squatter's password is gone; the real student logs in with the RM, under the list's name.
    expect((await t.call('POST', '/v1/store/auth/login', { body: { rm: '22222', password: passwordOf('22222') } })).status).toBe(401)
    const real = await expectOk(t.call('POST', '/v1/store/auth/login', { body: { rm: '22222', password: '22222' } }))
    expect([real.student, real.mustChangePassword]).toEqual([{ rm: '22222', name: 'Bruno Lima', group: 'Turma A' }, true])

    // The same list again changes nothing, and ends no session.
    expect(await expectOk(t.send(CLASS))).toEqual({ ...NOTHING_MOVED, rows: 3, groupsCreated: 0, studentsAdded: 0, alreadyThere: 3 })
    expect((await t.call('GET', '/v1/store/auth/me', { headers: bearer(real.token) })).status).toBe(200)
  })

  test('a move that takes the last member of a group still happens: the group is kept, empty, and named in groupsLeftEmpty', async () => {
    const t = setup()
    await createGroup(t.call, 'Solo', [{ rm: '44444', name: 'Davi' }])
    expect(await expectOk(t.send('Turma C,44444,Davi Reis\nTurma C,44444,Davi Reis\n'))).toEqual({
      rows: 2,
      groupsCreated: 1,
      studentsAdded: 0,
      studentsMoved: 1,
      studentsRenamed: 0,
      alreadyThere: 1, // the repeated line
      moved: [{ line: 1, rm: '44444', from: 'Solo', to: 'Turma C', renamedFrom: 'Davi' }],
      renamed: [],
      groupsLeftEmpty: ['Solo'],
    })
    expect(await t.groups()).toEqual([['Solo', []], ['Turma C', ['44444']]])
  })

  test('JSON or any other content type is 415 saying to send the file as text/csv; other routes still take only JSON', async () => {
    const t = setup()
    const json = await t.call('POST', '/v1/admin/groups/import', { headers: admin, body: { csv: CLASS } })
    expect([json.status, json.body.error.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE'])
    expect(json.body.error.message).toContain("Content-Type 'application/json'")
    expect(json.body.error.message).toContain("curl --data-binary @class.csv -H 'Content-Type: text/csv'")
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      expect((await t.send(CLASS, type)).status).toBe(415)
    }
    expect((await t.send(CLASS, '')).status).toBe(415)
    expect(await t.groups()).toEqual([])
    const csvToJsonRoute = await t.call('POST', '/v1/admin/groups', { headers: { ...admin, 'content-type': 'text/csv' }, raw: CLASS })
    expect(csvToJsonRoute.status).toBe(415)
    expect(csvToJsonRoute.body.error.message).toContain('Send the body as JSON with the header Content-Type: application/json')
  })

  test('an empty body is 400, a body over 1 MiB is 413, and only the admin token may import', async () => {
    const t = setup()
    for (const res of [await t.send(''), await t.send('  \n'), await t.send(undefined, '')]) {
      expect([res.status, res.body.error.code]).toEqual([400, 'VALIDATION_ERROR'])
      expect(res.body.error.message).toContain('The request body is empty')
    }
    const big = await t.send(`group,rm,name\n${'Turma A,11111,Ana\n'.repeat(JSON_BODY_LIMIT / 10)}`)
    expect([big.status, big.body.error.code]).toEqual([413, 'PAYLOAD_TOO_LARGE'])
    expect(big.body.error.message).toContain('The text/csv body is larger than 1024 KiB')
    const student = await t.call('POST', '/v1/admin/groups/import', { headers: { ...bearer('stu_x'), 'content-type': 'text/csv' }, raw: CLASS })
    expect(student.status).toBe(401)
    expect(await t.groups()).toEqual([])
  })

  test('the API reference documents the text/csv body and the summary', async () => {
    const t = setup()
    const doc = (await t.call('GET', '/openapi.json')).body
    const op = doc.paths['/v1/admin/groups/import'].post
    expect(Object.keys(op.requestBody.content)).toEqual(['text/csv'])
    expect(Object.keys(op.responses).sort()).toEqual(['200', '400', '401', '409', '413', '415', '500', '507'])
    expect(Object.keys(doc.components.schemas.ImportSummary.properties)).toEqual(['rows', 'groupsCreated', 'studentsAdded', 'studentsMoved', 'studentsRenamed', 'alreadyThere', 'moved', 'renamed', 'groupsLeftEmpty'])
    expect(doc.components.schemas.ImportSummary.properties.studentsAdded.description).toContain('RM as first password')
  })
})

describe('group names that differ only in case or accents are one group', () => {
  test('a list naming TURMA AÇÃO adds to the existing Turma Ação; creating Turma Acao is 409 naming it', async () => {
    const t = setup()
    await createGroup(t.call, 'Turma Ação', [{ rm: '1001', name: 'Ana' }])
    expect(await expectOk(t.send('TURMA AÇÃO,1002,Bruno\nturma acao,1003,Carla\n'))).toMatchObject({ groupsCreated: 0, studentsAdded: 2 })
    expect(await t.groups()).toEqual([['Turma Ação', ['1001', '1002', '1003']]])
    const again = await t.call('POST', '/v1/admin/groups', { headers: admin, body: { name: 'Turma Acao' } })
    expect([again.status, again.body.error.message]).toEqual([409, "A group named 'Turma Ação' already exists (names are compared ignoring case and accents). Choose another name."])
  })
})

describe('RMs that differ only in case are one student', () => {
  test('a list naming ra2025x moves the RA2025X another group holds, who keeps the RM as written; the same RM in two cases on two groups of a list is a 400', async () => {
    const t = setup()
    await createGroup(t.call, 'Verde', [{ rm: 'RA2025X', name: 'Dora' }])
    const moved = await expectOk(t.send('Azul,ra2025x,Dora Lima\n'))
    expect(moved).toMatchObject({ studentsAdded: 0, studentsMoved: 1, moved: [{ line: 1, rm: 'ra2025x', from: 'Verde', to: 'Azul' }], groupsLeftEmpty: ['Verde'] })
    expect(await t.groups()).toEqual([['Azul', ['RA2025X']], ['Verde', []]])
    expect(await firstLogin(t.call, 'RA2025X')).toStartWith('stu_')
    const twice = await t.send('Azul,RA1,Ana\nVerde,ra1,Ana again\n')
    expect([twice.status, twice.body.error.details]).toEqual([
      400,
      [{ path: 'line 2', line: 2, message: "RM ra1 is also in group 'Azul' on line 1 (as RA1: RMs are compared ignoring case); a student belongs to one group" }],
    ])
  })
})
