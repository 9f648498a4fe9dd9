import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { parse } from 'csv-parse/sync'
import { join } from 'node:path'
import { ADMIN_TOKEN, type CallResult } from '../helpers/app'
import { buildExecutable, emptyDir, overHttp, runExecutable, startExecutable } from '../helpers/executable'
import { rawControlBytes, TERMINAL_ESCAPE, TERMINAL_ESCAPE_PRINTED } from '../helpers/formulas'
import { activeStudent, admin, apiKey, bearer, createGroup, createKey } from '../helpers/world'
import { limit } from '../helpers/limits'

const bin = await buildExecutable()

/**
 * A student names themselves with an escape sequence that clears the teacher's terminal, homes the
 * cursor, prints a forged line in red, sets the window title, and clears again with the one-character
 * C1 form of the escape. The real executable refuses the name wherever a student types one; a name an
 * older version stored is planted straight into the database, and `storefront activity`, as a table
 * and as CSV, from the folder and through a running server, prints it escaped: no raw control byte.
 */
describe('a name holding terminal escapes', () => {
  test('is refused by every route that takes a name, and one stored by an older version prints escaped in storefront activity', async () => {
    const dir = emptyDir()
    const args = ['--data', 'data', '--admin-token', ADMIN_TOKEN, '--rate-limit-rps', '0']
    let server = await startExecutable(bin, dir, args)
    try {
      const call = overHttp(server.base)
      const group = await createGroup(call, 'Azul', [{ rm: '100', name: 'Ana' }])
      const student = await activeStudent(call, '100')
      const key = (await createKey(call, student)).apiKey
      const attempts: [string, string, () => Promise<CallResult>][] = [
        ['group', 'name', () => call('POST', '/v1/admin/groups', { headers: admin, body: { name: TERMINAL_ESCAPE, members: [] } })],
        ['member of a new group', 'members.0.name', () => call('POST', '/v1/admin/groups', { headers: admin, body: { name: 'Verde', members: [{ rm: '200', name: TERMINAL_ESCAPE }] } })],
        ['member, by the teacher', 'name', () => call('POST', `/v1/admin/groups/${group.id}/members`, { headers: admin, body: { rm: '101', name: TERMINAL_ESCAPE } })],
        ['member, by a student', 'name', () => call('POST', '/v1/store/members', { headers: bearer(student), body: { rm: '101', name: TERMINAL_ESCAPE } })],
        ['customer', 'name', () => call('POST', '/v1/customers/register', { headers: apiKey(key), body: { email: 'zed@example.com', password: 'zed-password', name: TERMINAL_ESCAPE } })],
        ['API key', 'name', () => call('POST', '/v1/store/api-keys', { headers: bearer(student), body: { name: TERMINAL_ESCAPE } })],
        ['store name', 'storeName', () => call('PUT', '/v1/store/settings', { headers: bearer(student), body: { storeName: TERMINAL_ESCAPE } })],
        ['webhook description', 'description', () => call('POST', '/v1/webhooks', { headers: apiKey(key), body: { url: 'https://10.0.0.7/hook', events: ['*'], description: TERMINAL_ESCAPE } })],
        ['class list', 'line 1', () => call('POST', '/v1/admin/groups/import', { headers: { ...admin, 'content-type': 'text/csv' }, raw: `Azul,101,"${TERMINAL_ESCAPE}"\n` })],
      ]
      for (const [what, path, attempt] of attempts) {
        const res = await attempt()
        expect([what, res.status, res.body.error.code]).toEqual([what, 400, 'VALIDATION_ERROR'])
        expect([what, res.body.error.details[0].path, res.body.error.message]).toEqual([what, path, expect.stringContaining('remove control characters, newlines and tabs included')])
      }
    } finally {
      expect(await server.stop()).toBe(0)
    }

    // An older version took any name: its database may hold this one.
    const db = new Database(join(dir, 'data', 'storefront.db'))
    try {
      db.query("update groups set name = ? where name = 'Azul'").run(TERMINAL_ESCAPE)
      db.query("update students set name = ? where rm = '100'").run(TERMINAL_ESCAPE)
    } finally {
      db.close()
    }

    const expectEscaped = async (through: string) => {
      const table = await runExecutable(bin, ['activity', '--data', 'data'], dir)
      expect([through, table.code, table.stderr, rawControlBytes(table.stdout)]).toEqual([through, 0, '', []])
      const lines = table.stdout.trimEnd().split('\n')
      expect([through, lines.length]).toEqual([through, 6]) // the window, the header, Ana's row, unattributed, shop front, total
      expect([through, lines[2]!.split(/ {2,}/).slice(0, 3)]).toEqual([through, [TERMINAL_ESCAPE_PRINTED, '100', TERMINAL_ESCAPE_PRINTED]])

      const csv = await runExecutable(bin, ['activity', '--csv', '--data', 'data'], dir)
      expect([through, csv.code, csv.stderr, rawControlBytes(csv.stdout)]).toEqual([through, 0, '', []])
      const rows = parse(csv.stdout) as string[][]
      expect([through, rows[1]!.slice(1, 4)]).toEqual([through, [TERMINAL_ESCAPE_PRINTED, '100', TERMINAL_ESCAPE_PRINTED]])
    }
    await expectEscaped('the folder opened by the command')
    server = await startExecutable(bin, dir, args)
    try {
      await expectEscaped('the running server')
      expect(rawControlBytes(server.stdout())).toEqual([])
    } finally {
      expect(await server.stop()).toBe(0)
    }
  }, limit(60_000))
})
