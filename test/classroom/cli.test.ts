import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'csv-parse/sync'
import { buildExecutable, emptyDir, runExecutable, startExecutable } from '../helpers/executable'
import { track } from '../helpers/children'
import { limit } from '../helpers/limits'
import { waitFor } from '../helpers/receivers'
import { expectDefusedActivityCsv, formulaClassList, RAW_NAMES, rawControlBytes, TERMINAL_ESCAPE, TERMINAL_ESCAPE_PRINTED } from '../helpers/formulas'

const bin = await buildExecutable()

const cli = (args: string[], cwd: string) => runExecutable(bin, args, cwd)

/** A query on the data folder's database, opened read-only for it. */
function read<T>(dataDir: string, query: string): T[] {
  const db = new Database(join(dataDir, 'storefront.db'), { readonly: true })
  try {
    return db.query(query).all() as T[]
  } finally {
    db.close()
  }
}

const count = (dataDir: string, table: string) => read<{ n: number }>(dataDir, `select count(*) as n from ${table}`)[0]!.n

/** Every student with the name of their group, by RM. */
const members = (dataDir: string) => read(dataDir, 'select g.name as g, s.rm, s.name from students s join groups g on g.id = s.group_id order by s.rm')

describe('storefront groups import', () => {
  test('a class list with bad rows reports each row by line and creates nothing', async () => {
    const dir = emptyDir()
    writeFileSync(join(dir, 'class.csv'), 'group,rm,name\nAzul,100,Ana\nAzul,1 01,Bruno\nVerde,100,Ana again\nRosa,300\n')
    const res = await cli(['groups', 'import', 'class.csv', '--data', 'data'], dir)
    expect(res.code).toBe(1)
    expect(res.stdout).toBe('')
    expect(res.stderr.trim().split('\n')).toEqual([
      'storefront: 3 problems in the class list; nothing was imported',
      'storefront:   line 3: RM "1 01": rm may hold letters, digits, dot, dash and underscore only',
      "storefront:   line 4: RM 100 is also in group 'Azul' on line 2; a student belongs to one group",
      'storefront:   line 5: expected 3 columns (group,rm,name), found 2',
    ])
    // The list is checked before the data folder is even opened.
    expect(existsSync(join(dir, 'data', 'storefront.db'))).toBe(false)
  })

  test('a student another group holds moves to the group the list names; each move and each group left empty is printed; the same list again changes nothing', async () => {
    const dir = emptyDir()
    writeFileSync(join(dir, 'first.csv'), 'Azul,100,Ana\n')
    writeFileSync(join(dir, 'second.csv'), 'Rosa,300,Rui\nVerde,100,Ana Souza\n')
    await cli(['groups', 'import', 'first.csv', '--data', 'data'], dir)
    const res = await cli(['groups', 'import', 'second.csv', '--data', 'data'], dir)
    expect([res.code, res.stderr]).toEqual([0, ''])
    expect(res.stdout.split('\n')).toEqual([
      `imported 2 rows into ${join(dir, 'data')}: 2 new groups, 1 new student, 1 moved, 0 already there`,
      "line 2: moved RM 100 from group 'Azul' to 'Verde', renamed from 'Ana'; their sessions ended and their password is the RM again",
      "group 'Azul' has no members left",
      '',
    ])
    const again = await cli(['groups', 'import', 'second.csv', '--data', 'data'], dir)
    expect(again.stdout).toBe(`imported 2 rows into ${join(dir, 'data')}: 0 new groups, 0 new students, 0 moved, 2 already there\n`)
    expect(members(join(dir, 'data'))).toEqual([
      { g: 'Verde', rm: '100', name: 'Ana Souza' },
      { g: 'Rosa', rm: '300', name: 'Rui' },
    ])
    expect(count(join(dir, 'data'), 'groups')).toBe(3)
  })

  test('a good list creates groups, stores and members; importing it again changes nothing; quiet without a terminal', async () => {
    const dir = emptyDir()
    writeFileSync(join(dir, 'class.csv'), 'Azul,100,Ana\nAzul,101,"Silva, Bruno"\nVerde,200,Carla\n')
    const first = await cli(['groups', 'import', 'class.csv', '--data', 'data'], dir)
    const data = join(dir, 'data')
    // A class imported before the first start: the folder is made, and the command says so.
    expect([first.code, first.stdout, first.stderr]).toEqual([
      0,
      `imported 3 rows into ${data}: 2 new groups, 3 new students, 0 moved, 0 already there\n${data} held no class: it is a new data folder. Start the server on it (--data ${data}), or import into the folder your server uses.\n`,
      '',
    ])
    const again = await cli(['groups', 'import', 'class.csv', '--data', 'data'], dir)
    expect(again.stdout).toBe(`imported 3 rows into ${data}: 0 new groups, 0 new students, 0 moved, 3 already there\n`)
    expect(members(join(dir, 'data'))).toEqual([
      { g: 'Azul', rm: '100', name: 'Ana' },
      { g: 'Azul', rm: '101', name: 'Silva, Bruno' },
      { g: 'Verde', rm: '200', name: 'Carla' },
    ])
    expect(count(join(dir, 'data'), 'stores')).toBe(2)
    // A corrected name is taken, and printed.
    writeFileSync(join(dir, 'class.csv'), 'Azul,100,Ana Maria\nAzul,101,"Silva, Bruno"\nVerde,200,Carla\n')
    const corrected = await cli(['groups', 'import', 'class.csv', '--data', 'data'], dir)
    expect(corrected.stdout).toBe(`imported 3 rows into ${data}: 0 new groups, 0 new students, 0 moved, 1 renamed, 2 already there\nline 1: RM 100 renamed from 'Ana' to 'Ana Maria'\n`)
    // A list with no rows is refused, as over HTTP.
    writeFileSync(join(dir, 'header.csv'), 'grupo,rm,nome\n')
    writeFileSync(join(dir, 'empty.csv'), '')
    expect((await cli(['groups', 'import', 'header.csv', '--data', 'data'], dir)).stderr).toBe('storefront: 1 problem in the class list; nothing was imported\nstorefront:   the file has a header but no rows; add lines group,rm,name\n')
    expect((await cli(['groups', 'import', 'empty.csv', '--data', 'data'], dir)).stderr).toBe('storefront: 1 problem in the class list; nothing was imported\nstorefront:   the file is empty; add lines group,rm,name\n')
    const missing = await cli(['groups', 'import', 'nope.csv'], dir)
    expect([missing.code, missing.stderr]).toEqual([1, 'storefront: cannot read nope.csv (there is no such file): check its name, or give its whole path\n'])
  })
})

describe('a class list as a spreadsheet in Portuguese saves it', () => {
  test('Windows-1252 with semicolons and a header in Portuguese: the names arrive whole, and the command says how it read the file', async () => {
    const dir = emptyDir()
    writeFileSync(join(dir, 'turma.csv'), Buffer.from('Grupo;RM;Nome\r\nLoja Sol;RM150;Jo\xe3o Concei\xe7\xe3o\r\nLoja Sol;RM151;In\xeas, Ana\r\n', 'latin1'))
    const res = await cli(['groups', 'import', 'turma.csv', '--data', 'data'], dir)
    expect([res.code, res.stderr]).toEqual([0, ''])
    expect(res.stdout.split('\n').slice(0, 2)).toEqual(['turma.csv is not UTF-8: read as Windows-1252, as a spreadsheet on Windows saves "CSV"', `imported 2 rows into ${join(dir, 'data')}: 1 new group, 2 new students, 0 moved, 0 already there`])
    expect(members(join(dir, 'data'))).toEqual([
      { g: 'Loja Sol', rm: 'RM150', name: 'João Conceição' },
      { g: 'Loja Sol', rm: 'RM151', name: 'Inês, Ana' },
    ])
  })

  test('the "Unicode Text" a spreadsheet saves (UTF-16, tab-separated) is read too, and said so', async () => {
    const dir = emptyDir()
    writeFileSync(join(dir, 'turma.txt'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Grupo\tRM\tNome\r\nLoja Lua\tRM160\tJoão Conceição\r\n', 'utf16le')]))
    const res = await cli(['groups', 'import', 'turma.txt', '--data', 'data'], dir)
    expect([res.code, res.stderr, res.stdout.split('\n')[0]]).toEqual([0, '', 'turma.txt is not UTF-8: read as UTF-16, as a spreadsheet on Windows saves "Unicode Text"'])
    expect(members(join(dir, 'data'))).toEqual([{ g: 'Loja Lua', rm: 'RM160', name: 'João Conceição' }])
  })
})

describe('a data folder that holds no class', () => {
  test('backup and activity refuse it and make nothing, naming the folder and --data', async () => {
    const dir = emptyDir()
    for (const args of [['backup', 'class.tgz'], ['activity']]) {
      const res = await cli(args, dir)
      expect([res.code, res.stdout, res.stderr]).toEqual([1, '', `storefront: ${join(dir, 'data')} holds no class (no storefront.db in it): give the data folder your server uses, with --data <dir> or DATA_DIR\n`])
    }
    expect([existsSync(join(dir, 'data')), existsSync(join(dir, 'class.tgz'))]).toEqual([false, false])
    // A file given as the data folder is said to be one, for every command.
    writeFileSync(join(dir, 'notes.txt'), 'not a folder')
    writeFileSync(join(dir, 'class.csv'), 'Azul,100,Ana\n')
    for (const args of [['backup', 'class.tgz'], ['activity'], ['groups', 'import', 'class.csv']]) {
      const res = await cli([...args, '--data', 'notes.txt'], dir)
      expect([res.code, res.stderr]).toEqual([
        1,
        `storefront: cannot look into the data folder ${join(dir, 'notes.txt')} (a part of the path is a file, not a folder): give the data folder your server uses, with --data <dir> or DATA_DIR\n`,
      ])
    }
    // A backup into a folder that does not exist says so (it was a dump of Bun's error).
    writeFileSync(join(dir, 'class.csv'), 'Azul,100,Ana\n')
    await cli(['groups', 'import', 'class.csv'], dir)
    const nowhere = await cli(['backup', 'no-such-folder/class.tgz'], dir)
    expect([nowhere.code, nowhere.stderr]).toEqual([1, `storefront: the folder ${join(dir, 'no-such-folder')} does not exist: create it first, or write the backup into another folder\n`])
  })
})

describe('storefront backup and restore', () => {
  test('a backup taken under write load restores to an intact database holding every write acknowledged before it began', async () => {
    const dir = emptyDir()
    const server = await startExecutable(bin, dir, ['--rate-limit-rps', '0'])
    const admin = { 'x-admin-token': readFileSync(join(dir, 'data', 'admin-token'), 'utf8').trim(), 'content-type': 'application/json' }
    const acknowledged: string[] = []
    let writing = true
    let n = 0
    const writer = async () => {
      while (writing) {
        const name = `Group ${n++}`
        const res = await fetch(`${server.base}/v1/admin/groups`, { method: 'POST', headers: admin, body: JSON.stringify({ name, members: [{ rm: `rm${n}`, name }] }) })
        if (res.status === 201) acknowledged.push(name)
      }
    }
    const writers = [writer(), writer(), writer()]
    // Counted, not timed: a busy machine may take far longer than usual for the first writes.
    await waitFor(() => acknowledged.length > 5, limit(20_000), 'six writes acknowledged before the backup')
    // Every write in the list now was acknowledged before the backup began (a clock would tie within a millisecond).
    const before = [...acknowledged]
    const backup = await cli(['backup', 'class.tgz', '--data', 'data'], dir)
    const byEnd = acknowledged.length
    await waitFor(() => acknowledged.length > byEnd, limit(20_000), 'a write acknowledged after the backup')
    writing = false
    await Promise.all(writers)
    expect(backup.code).toBe(0)
    expect(backup.stdout).toStartWith(`backup of ${join(dir, 'data')} written to ${join(dir, 'class.tgz')}`)
    expect(backup.stderr).toBe('')

    // Restoring refuses a running server's folder.
    const refused = await cli(['restore', 'class.tgz', '--data', 'data'], dir)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('the server is running on this data dir')
    expect(await server.stop()).toBe(0)

    const restored = await cli(['restore', 'class.tgz', '--data', 'restored'], dir)
    expect([restored.code, restored.stdout]).toEqual([0, `restored class.tgz into ${join(dir, 'restored')}\na backup holds no admin token: the next start makes a new one and prints it\n`])
    const db = new Database(join(dir, 'restored', 'storefront.db'), { readonly: true })
    expect(db.query('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' })
    const names = new Set((db.query('select name from groups').all() as { name: string }[]).map((r) => r.name))
    db.close()
    for (const name of before) expect(names.has(name)).toBe(true)

    // The restored folder starts as a server.
    const again = await startExecutable(bin, dir, ['--data', 'restored'])
    expect((await fetch(`${again.base}/health`)).status).toBe(200)
    expect(await again.stop()).toBe(0)

    // Over an existing folder, the old data is set aside, not lost.
    const over = await cli(['restore', 'class.tgz', '--data', 'data'], dir)
    const [said, token] = over.stdout.trimEnd().split('\n')
    expect(said).toContain('the previous data is in')
    const aside = /the previous data is in (.+)$/.exec(said!)![1]!
    expect(existsSync(join(aside, 'storefront.db'))).toBe(true)
    // The folder's admin token stays where it was: nothing to say about it.
    expect([token, existsSync(join(dir, 'data', 'admin-token'))]).toEqual([undefined, true])
  })

  test('a backup into the data folder is refused, with or without a server, and the database stays whole', async () => {
    const dir = emptyDir()
    writeFileSync(join(dir, 'class.csv'), 'Azul,100,Ana\n')
    await cli(['groups', 'import', 'class.csv', '--data', 'data'], dir)
    const data = join(dir, 'data')
    const refusal = (target: string) => `storefront: ${target} is inside the data folder ${data}: write the backup outside it, where it can neither replace the database nor go with the folder (a restore moves the folder aside). For example: storefront backup ${join(dir, 'class-backup.tgz')}\n`
    const alone = await cli(['backup', 'data/storefront.db', '--data', 'data'], dir)
    expect([alone.code, alone.stderr]).toEqual([1, refusal(join(data, 'storefront.db'))])
    const server = await startExecutable(bin, dir, ['--data', 'data'])
    try {
      const beside = await cli(['backup', 'data/media/copy.tgz', '--data', 'data'], dir)
      expect([beside.code, beside.stderr]).toEqual([1, refusal(join(data, 'media', 'copy.tgz'))])
      expect(existsSync(join(data, 'media', 'copy.tgz'))).toBe(false)
    } finally {
      expect(await server.stop()).toBe(0)
    }
    expect(members(data)).toEqual([{ g: 'Azul', rm: '100', name: 'Ana' }])
  })

  test('a file that is not a backup is refused with one line and nothing changes', async () => {
    const dir = emptyDir()
    writeFileSync(join(dir, 'junk.tgz'), 'junk')
    const res = await cli(['restore', 'junk.tgz', '--data', 'data'], dir)
    expect(res.code).toBe(1)
    expect(res.stderr.trim().split('\n')).toHaveLength(1)
    expect(res.stderr).toStartWith('storefront: junk.tgz is not a Storefront backup')
    expect(existsSync(join(dir, 'data', 'storefront.db'))).toBe(false)
  })
})

describe('storefront activity', () => {
  test('prints the report as CSV or as a table', async () => {
    const dir = emptyDir()
    writeFileSync(join(dir, 'class.csv'), 'Azul,100,Ana\n')
    await cli(['groups', 'import', 'class.csv', '--data', 'data'], dir)
    const csv = await cli(['activity', '--csv', '--data', 'data'], dir)
    expect(csv.code).toBe(0)
    const lines = csv.stdout.trimEnd().split('\r\n')
    expect(lines[0]).toBe('group_id,group,rm,name,calls,errors,last_call_at')
    expect(lines[1]).toMatch(/^grp_[0-9a-z]+,Azul,100,Ana,0,0,$/)
    const table = await cli(['activity', '--data', 'data'], dir)
    expect(table.stdout).toContain('group  rm   name            calls  errors  last call')
    const bad = await cli(['activity', '--from', 'someday', '--data', 'data'], dir)
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('from must be an ISO date')
    // The options before the command went to the server's start: the answer shows the order that works.
    const before = await cli(['--data', 'my data', 'activity', '--from', 'someday'], dir)
    expect([before.code, before.stderr]).toEqual([2, 'storefront: write the command first, then its options: storefront activity --from someday --data "my data"\n'])
    // A group by its name, as the teacher knows it, ignoring case; a name no group has lists them.
    // Written to a file (here a pipe) it starts with the byte order mark Excel needs; --separator semicolon for Excel in Portuguese.
    const proc = track(Bun.spawn([bin, 'activity', '--csv', '--separator', 'semicolon', '--data', 'data'], { cwd: dir, stdout: 'pipe', stderr: 'pipe' }))
    const bytes = new Uint8Array(await new Response(proc.stdout).arrayBuffer())
    expect([await proc.exited, [...bytes.slice(0, 3)]]).toEqual([0, [0xef, 0xbb, 0xbf]])
    expect(new TextDecoder().decode(bytes).split('\r\n')[1]).toMatch(/^grp_[0-9a-z]+;Azul;100;Ana;0;0;$/)
    const byName = await cli(['activity', '--csv', '--group', 'azul', '--data', 'data'], dir)
    expect(byName.stdout.trimEnd().split('\r\n')[1]).toMatch(/^grp_[0-9a-z]+,Azul,100,Ana,0,0,$/)
    const nameless = await cli(['activity', '--group', 'Verde', '--data', 'data'], dir)
    expect([nameless.code, nameless.stderr]).toEqual([1, "storefront: No group is named 'Verde': the groups are 'Azul'.\n"])
  })

  test('activity --csv writes names that start a formula behind an apostrophe, and still parses with 7 columns', async () => {
    const dir = emptyDir()
    writeFileSync(join(dir, 'class.csv'), formulaClassList())
    const imported = await cli(['groups', 'import', 'class.csv', '--data', 'data'], dir)
    expect([imported.code, imported.stderr]).toEqual([0, ''])
    const db = new Database(join(dir, 'data', 'storefront.db'))
    try {
      for (const m of RAW_NAMES) db.query('update students set name = ? where rm = ?').run(m.name, m.rm)
    } finally {
      db.close()
    }
    const csv = await cli(['activity', '--csv', '--data', 'data'], dir)
    expect([csv.code, csv.stderr]).toEqual([0, ''])
    expectDefusedActivityCsv(csv.stdout, true)
  })

  test('names an older version stored with control characters print escaped: the table, the CSV and the import report hold no raw control byte', async () => {
    const dir = emptyDir()
    writeFileSync(join(dir, 'class.csv'), 'Azul,100,Ana\nAzul,101,Bruno\n')
    await cli(['groups', 'import', 'class.csv', '--data', 'data'], dir)
    // Written straight into the database, as a version that took any name could have stored them.
    const db = new Database(join(dir, 'data', 'storefront.db'))
    try {
      db.query("update groups set name = ? where name = 'Azul'").run(TERMINAL_ESCAPE)
      db.query("update students set name = ? where rm = '100'").run(TERMINAL_ESCAPE)
      db.query("update students set name = ? where rm = '101'").run('Bruno\n(group total) 999\r\u0085')
    } finally {
      db.close()
    }
    const table = await cli(['activity', '--data', 'data'], dir)
    expect([table.code, table.stderr, rawControlBytes(table.stdout)]).toEqual([0, '', []])
    const rows = table.stdout.trimEnd().split('\n')
    expect(rows).toHaveLength(7) // the window, the header, two students, unattributed, shop front and total: no forged line
    expect(rows.slice(2, 4).map((r) => r.split(/ {2,}/))).toEqual([
      [TERMINAL_ESCAPE_PRINTED, '100', TERMINAL_ESCAPE_PRINTED, '0', '0', '-'],
      [TERMINAL_ESCAPE_PRINTED, '101', 'Bruno\\x0a(group total) 999\\x0d\\x85', '0', '0', '-'],
    ])

    const csv = await cli(['activity', '--csv', '--data', 'data'], dir)
    expect([csv.code, csv.stderr, rawControlBytes(csv.stdout)]).toEqual([0, '', []])
    expect((parse(csv.stdout) as string[][]).slice(1, 3).map((r) => r.slice(1, 4))).toEqual([
      [TERMINAL_ESCAPE_PRINTED, '100', TERMINAL_ESCAPE_PRINTED],
      [TERMINAL_ESCAPE_PRINTED, '101', 'Bruno\\x0a(group total) 999\\x0d\\x85'],
    ])

    // The report of a move names the group the student leaves, as stored.
    writeFileSync(join(dir, 'move.csv'), 'Verde,101,Bruno\n')
    const moved = await cli(['groups', 'import', 'move.csv', '--data', 'data'], dir)
    expect([moved.code, moved.stderr, rawControlBytes(moved.stdout)]).toEqual([0, '', []])
    expect(moved.stdout).toContain(`line 1: moved RM 101 from group '${TERMINAL_ESCAPE_PRINTED}' to 'Verde'`)
  })

  test('a class list with a control character in a name is refused by line, and the problem printed holds no raw control byte', async () => {
    const dir = emptyDir()
    writeFileSync(join(dir, 'class.csv'), `Azul,100,Ana\nAzul,101,"${TERMINAL_ESCAPE}"\n`)
    const res = await cli(['groups', 'import', 'class.csv', '--data', 'data'], dir)
    expect([res.code, res.stdout, rawControlBytes(res.stderr)]).toEqual([1, '', []])
    expect(res.stderr.trim().split('\n')).toEqual([
      'storefront: 1 problem in the class list; nothing was imported',
      'storefront:   line 2: name holds a control character (U+001B at position 4); remove control characters, newlines and tabs included',
    ])
  })
})

describe('the commands beside a running server', () => {
  // The server holds its database alone (exclusive locking), so the commands hand their work to it.
  test('import and activity are done by the running server, which answers the new group at once; a second server is refused', async () => {
    const dir = emptyDir()
    const server = await startExecutable(bin, dir, ['--rate-limit-rps', '0'])
    try {
      const admin = { 'x-admin-token': readFileSync(join(dir, 'data', 'admin-token'), 'utf8').trim() }
      writeFileSync(join(dir, 'class.csv'), 'Azul,100,Ana\nAzul,101,Bruno\n')
      const imported = await cli(['groups', 'import', 'class.csv', '--data', 'data'], dir)
      expect([imported.code, imported.stdout, imported.stderr]).toEqual([0, `imported 2 rows into ${join(dir, 'data')}: 1 new group, 2 new students, 0 moved, 0 already there\n`, ''])
      const groups = (await (await fetch(`${server.base}/v1/admin/groups`, { headers: admin })).json()) as { data: { name: string; members: { rm: string }[] }[] }
      expect(groups.data.map((g) => [g.name, g.members.map((m) => m.rm)])).toEqual([['Azul', ['100', '101']]])

      // Student 101 squats a classmate's RM in Azul and logs in as it; the teacher's list puts it in Verde.
      const post = async (path: string, body: unknown, headers: Record<string, string> = {}) =>
        (await fetch(`${server.base}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) })).json() as Promise<any>
      const first = await post('/v1/store/auth/login', { rm: '101', password: '101' })
      const changed = await post('/v1/store/auth/change-password', { currentPassword: '101', newPassword: 'pw-101-secret' }, { authorization: `Bearer ${first.token}` })
      await post('/v1/store/members', { rm: '200', name: 'Not Carla' }, { authorization: `Bearer ${changed.token}` })
      const squatted = (await post('/v1/store/auth/login', { rm: '200', password: '200' })).token as string
      const me = () => fetch(`${server.base}/v1/store/auth/me`, { headers: { authorization: `Bearer ${squatted}` } })
      expect((await me()).status).toBe(200)
      writeFileSync(join(dir, 'teacher.csv'), 'Verde,200,Carla\n')
      const moved = await cli(['groups', 'import', 'teacher.csv', '--data', 'data'], dir)
      expect([moved.code, moved.stdout, moved.stderr]).toEqual([
        0,
        `imported 1 row into ${join(dir, 'data')}: 1 new group, 0 new students, 1 moved, 0 already there\nline 1: moved RM 200 from group 'Azul' to 'Verde', renamed from 'Not Carla'; their sessions ended and their password is the RM again\n`,
        '',
      ])
      expect((await me()).status).toBe(401)

      const csv = await cli(['activity', '--csv', '--data', 'data'], dir)
      expect(csv.code).toBe(0)
      expect(csv.stdout.trimEnd().split('\r\n').slice(1).map((l) => l.split(',').slice(1, 4).join(','))).toEqual([
        'Azul,100,Ana',
        'Azul,101,Bruno',
        'Azul,200,Not Carla (no longer a member)', // the calls made as 200 while in Azul stay Azul's, under the name it had there
        'Azul,,(unattributed)',
        'Azul,,(shop front)',
        'Azul,,(group total)',
        'Verde,200,Carla',
        'Verde,,(unattributed)',
        'Verde,,(shop front)',
        'Verde,,(group total)',
      ])

      const second = await runExecutable(bin, ['--data', 'data', '--port', '0'], dir)
      expect(second.code).toBe(2)
      expect(second.stderr).toContain(`another Storefront (pid ${server.proc.pid}) is serving`)
    } finally {
      expect(await server.stop()).toBe(0)
    }
    // Stopped, the folder is the commands' own again.
    const after = await cli(['activity', '--csv', '--data', 'data'], dir)
    expect(after.code).toBe(0)
    expect(existsSync(join(dir, 'data', 'control.sock'))).toBe(false)
  })
})

describe('a data folder whose path is too long for a socket address', () => {
  test('the server listens in the temp folder instead, and the commands find it there', async () => {
    const dir = emptyDir()
    const data = join(dir, 'a-folder-name-long-enough-that-its-control-socket-path-passes-one-hundred-bytes', 'data')
    expect(Buffer.byteLength(join(data, 'control.sock'))).toBeGreaterThan(108)
    const server = await startExecutable(bin, dir, ['--data', data])
    try {
      writeFileSync(join(dir, 'class.csv'), 'Azul,100,Ana\n')
      const imported = await cli(['groups', 'import', 'class.csv', '--data', data], dir)
      expect([imported.code, imported.stdout]).toEqual([0, `imported 1 row into ${data}: 1 new group, 1 new student, 0 moved, 0 already there\n`])
      expect(existsSync(join(data, 'control.sock'))).toBe(false)
    } finally {
      expect(await server.stop()).toBe(0)
    }
  })
})

describe('a pid file left by a crash', () => {
  test('naming a live process that is not a server, it stops neither the commands, a restore nor a new server', async () => {
    const dir = emptyDir()
    writeFileSync(join(dir, 'class.csv'), 'Azul,100,Ana\n')
    await cli(['groups', 'import', 'class.csv', '--data', 'data'], dir)
    // This test's own pid: alive, and no Storefront server.
    writeFileSync(join(dir, 'data', 'server.pid'), String(process.pid))
    const report = await cli(['activity', '--csv', '--data', 'data'], dir)
    expect(report.code).toBe(0)
    expect(report.stdout).toContain(',Azul,100,Ana,0,0,')
    const backup = await cli(['backup', 'class.tgz', '--data', 'data'], dir)
    expect(backup.code).toBe(0)
    const restored = await cli(['restore', 'class.tgz', '--data', 'data'], dir)
    expect([restored.code, restored.stderr]).toEqual([0, ''])
    writeFileSync(join(dir, 'data', 'server.pid'), String(process.pid))
    const server = await startExecutable(bin, dir, ['--data', 'data'])
    expect((await fetch(`${server.base}/health`)).status).toBe(200)
    expect(readFileSync(join(dir, 'data', 'server.pid'), 'utf8')).toBe(String(server.proc.pid))
    expect(await server.stop()).toBe(0)
  })
})
