import { describe, expect, test } from 'bun:test'
import { nameText, printable, printableValues } from '../../src/kernel/control-characters'
import { createTestApp } from '../helpers/app'
import { TERMINAL_ESCAPE, TERMINAL_ESCAPE_PRINTED } from '../helpers/formulas'
import { activeStudent, admin, apiKey, bearer, createGroup, createKey, expectOk } from '../helpers/world'

/** One control character of each kind, inside a name (the surrounding whitespace is trimmed first). */
const CONTROLS: [string, string, number][] = [
  ['ESC', TERMINAL_ESCAPE, 0x1b],
  ['NUL', 'Ana\u0000Souza', 0x00],
  ['a newline', 'Ana\nSouza', 0x0a],
  ['a tab', 'Ana\tSouza', 0x09],
  ['a carriage return', 'Ana\r=1+1', 0x0d],
  ['DEL', 'Ana\u007f', 0x7f],
  ['C1 CSI', 'Ana\u009b2J', 0x9b],
  ['C1 OSC (window title)', 'Ana\u009d0;owned\u0007', 0x9d],
]

const codePoint = (n: number) => `U+${n.toString(16).toUpperCase().padStart(4, '0')}`

/** The 400 a name with a control character gets: details name the field, the message says what to remove. */
function expectRefused(res: { status: number; body: any }, path: string, name: string, code: number) {
  const at = name.indexOf(String.fromCharCode(code)) + 1
  const field = path.split('.').at(-1)
  const message = `${field} holds a control character (${codePoint(code)} at position ${at}); remove control characters, newlines and tabs included`
  expect([res.status, res.body.error]).toEqual([
    400,
    { code: 'VALIDATION_ERROR', message: `Invalid request body: ${path}: ${message}. The expected shape of this route is in /docs.`, details: [{ path, message }] },
  ])
}

async function classroom() {
  const t = createTestApp({ settings: { rateLimitRps: '0' } })
  const group = await createGroup(t.call, 'Azul', [{ rm: '111', name: 'Ana' }])
  const student = await activeStudent(t.call, '111')
  const key = (await createKey(t.call, student)).apiKey
  return { ...t, group, student, key }
}

describe('names a student types refuse control characters', () => {
  test('group, member (panel and teacher), customer, API key, store name and webhook description and URL: 400 VALIDATION_ERROR naming the field, nothing stored', async () => {
    const t = await classroom()
    for (const [what, name, code] of CONTROLS) {
      const tries: [string, string, () => ReturnType<typeof t.call>][] = [
        ['group', 'name', () => t.call('POST', '/v1/admin/groups', { headers: admin, body: { name } })],
        ['member of a new group', 'members.0.name', () => t.call('POST', '/v1/admin/groups', { headers: admin, body: { name: 'Verde', members: [{ rm: '900', name }] } })],
        ['member, by a student', 'name', () => t.call('POST', '/v1/store/members', { headers: bearer(t.student), body: { rm: '222', name } })],
        ['member, by the teacher', 'name', () => t.call('POST', `/v1/admin/groups/${t.group.id}/members`, { headers: admin, body: { rm: '222', name } })],
        ['customer', 'name', () => t.call('POST', '/v1/customers/register', { headers: apiKey(t.key), body: { email: 'lia@example.com', password: 'lia-password', name } })],
        ['API key', 'name', () => t.call('POST', '/v1/store/api-keys', { headers: bearer(t.student), body: { name } })],
        ['store name', 'storeName', () => t.call('PUT', '/v1/store/settings', { headers: bearer(t.student), body: { storeName: name } })],
        ['webhook description', 'description', () => t.call('POST', '/v1/webhooks', { headers: apiKey(t.key), body: { url: 'https://10.0.0.7/hook', events: ['*'], description: name } })],
        ['webhook URL', 'url', () => t.call('POST', '/v1/webhooks', { headers: apiKey(t.key), body: { url: `https://10.0.0.7/${name}`, events: ['*'] } })],
      ]
      for (const [where, field, send] of tries) {
        const res = await send()
        const sent = field === 'url' ? `https://10.0.0.7/${name}` : name
        expect([what, where, res.status]).toEqual([what, where, 400])
        expectRefused(res, field, sent, code)
      }
    }
    const count = (table: string) => t.deps.sqlite.query<{ n: number }, []>(`select count(*) as n from ${table}`).get()!.n
    expect([count('groups'), count('students'), count('customers'), count('api_keys'), count('webhook_endpoints')]).toEqual([1, 1, 0, 1, 0])
    expect((await expectOk(t.call('GET', '/v1/store/settings', { headers: bearer(t.student) }))).storeName).toBe('Azul')
  })

  test('a line break or a tab around a name is trimmed away with the spaces: what is stored has none', async () => {
    const t = await classroom()
    const member = await expectOk(t.call('POST', '/v1/store/members', { headers: bearer(t.student), body: { rm: '222', name: '\t Bruno Lima\r\n' } }), 201)
    expect(member).toEqual({ rm: '222', name: 'Bruno Lima' })
  })

  test('names with accents, emoji and punctuation are kept as typed', async () => {
    const t = await classroom()
    const names = ['João Ñandú', 'Zoë 🚀', 'Ana;=1+1;', "O'Brien, \"Bia\"", '李小龙']
    for (const [i, name] of names.entries()) {
      expect(await expectOk(t.call('POST', '/v1/store/members', { headers: bearer(t.student), body: { rm: `m${i}`, name } }), 201)).toEqual({ rm: `m${i}`, name })
    }
  })

  test('an accent typed as a letter and a combining mark is kept composed, so a group name so typed is the same name as one typed whole', async () => {
    const t = await classroom()
    const decomposed = 'Joa\u0303o'
    expect(await expectOk(t.call('POST', '/v1/store/members', { headers: bearer(t.student), body: { rm: 'nfd1', name: decomposed } }), 201)).toEqual({ rm: 'nfd1', name: 'Jo\u00e3o' })
    await createGroup(t.call, 'Alph\u00e1', [])
    const again = await t.call('POST', '/v1/admin/groups', { headers: admin, body: { name: 'ALPHA\u0301', members: [] } })
    expect([again.status, again.body.error.code]).toEqual([409, 'CONFLICT'])
  })

  test('the class list refuses a row whose group or name holds a control character, by line, and imports nothing', async () => {
    const t = createTestApp()
    const list = `group,rm,name\nAzul,100,Ana\nAzul,101,"${TERMINAL_ESCAPE}"\n"Verde\u009b2J",102,Carla\nAzul,103,"Rui\nSecond line"\n`
    const res = await t.call('POST', '/v1/admin/groups/import', { headers: { ...admin, 'content-type': 'text/csv' }, raw: list })
    const escapeMessage = 'name holds a control character (U+001B at position 4); remove control characters, newlines and tabs included'
    expect([res.status, res.body.error.code, res.body.error.details]).toEqual([
      400,
      'VALIDATION_ERROR',
      [
        { path: 'line 3', line: 3, message: escapeMessage },
        { path: 'line 4', line: 4, message: 'group holds a control character (U+009B at position 6); remove control characters, newlines and tabs included' },
        { path: 'line 5', line: 5, message: 'a quote (") opens a cell that runs on to line 6, where the next quote closes it: remove the quote, or close it on the same line' },
      ],
    ])
    expect(res.body.error.message).toStartWith(`3 problems in the class list (the first: line 3: ${escapeMessage}); nothing was imported.`)
    expect(t.deps.sqlite.query('select count(*) as n from groups').get()).toEqual({ n: 0 })
  })
})

describe('a name is what the teacher reads', () => {
  test('a direction override, or no visible character, is 400 naming it (member, customer, group, class list); the marks and joiners a name may need are kept', async () => {
    const t = await classroom()
    const member = (name: string) => t.call('POST', '/v1/store/members', { headers: bearer(t.student), body: { rm: '222', name } })
    const refusal = async (res: Promise<{ status: number; body: any }>) => {
      const answer = await res
      return [answer.status, answer.body.error?.details]
    }
    const reversed = 'name holds a character that overrides the direction of text (U+202E at position 4), with which a name shows as another; remove it'
    expect(await refusal(member('Ana\u202eazuoS'))).toEqual([400, [{ path: 'name', message: reversed }]])
    expect(await refusal(member('\u2067Ana'))).toEqual([400, [{ path: 'name', message: 'name holds a character that overrides the direction of text (U+2067 at position 1), with which a name shows as another; remove it' }]])
    const invisible = 'name has no visible character, only spaces or invisible ones (U+200B); write the name'
    expect(await refusal(member('\u200b'))).toEqual([400, [{ path: 'name', message: invisible }]])
    expect(await refusal(member(' \u200b\u2060 '))).toEqual([400, [{ path: 'name', message: invisible }]])
    const customer = t.call('POST', '/v1/customers/register', { headers: apiKey(t.key), body: { email: 'lia@example.com', password: 'lia-password', name: '\u200b' } })
    expect(await refusal(customer)).toEqual([400, [{ path: 'name', message: invisible }]])
    expect(await refusal(t.call('POST', '/v1/admin/groups', { headers: admin, body: { name: 'Verde\u202e' } }))).toEqual([
      400,
      [{ path: 'name', message: 'name holds a character that overrides the direction of text (U+202E at position 6), with which a name shows as another; remove it' }],
    ])
    const list = await t.call('POST', '/v1/admin/groups/import', { headers: { ...admin, 'content-type': 'text/csv' }, raw: 'Azul,300,Ana\u202eazuoS\n\u200b,301,Rui\n' })
    expect([list.status, list.body.error.details]).toEqual([
      400,
      [
        { path: 'line 1', line: 1, message: reversed },
        { path: 'line 2', line: 2, message: 'group has no visible character, only spaces or invisible ones (U+200B); write the name' },
      ],
    ])
    // A right-to-left mark after a Hebrew name, and the joiners of a family emoji, are kept.
    for (const [rm, name] of [['r1', '\u05e9\u05dc\u05d5\u05dd\u200f'], ['r2', '\u{1f468}\u200d\u{1f469}\u200d\u{1f467}']]) {
      expect(await expectOk(t.call('POST', '/v1/store/members', { headers: bearer(t.student), body: { rm, name } }), 201)).toEqual({ rm, name })
    }
  })
})

describe('the kernel helpers', () => {
  test('nameText trims, then refuses an empty name, one too long, and one holding a control character, naming the first one', () => {
    const name = nameText('name', 10)
    expect(name.parse('  Ana \n')).toBe('Ana')
    const messages = (value: string) => name.safeParse(value).error?.issues.map((i) => i.message)
    expect(messages(' \t ')).toEqual(['name is required'])
    expect(messages('x'.repeat(11))).toEqual(['name has at most 10 characters'])
    expect(messages('a\u0085b\u001bc')).toEqual(['name holds a control character (U+0085 at position 2); remove control characters, newlines and tabs included'])
    // The first and last characters of each range, and their neighbours that are not control characters.
    const accepted = (c: string) => name.safeParse(`a${c}b`).success
    expect(['\u0000', '\u001f', '\u007f', '\u0080', '\u009f'].map(accepted)).toEqual([false, false, false, false, false])
    expect([' ', '~', '\u00a0', 'é'].map(accepted)).toEqual([true, true, true, true])
  })

  test('printable writes every control character as a visible \\x escape, and leaves other text alone', () => {
    expect(printable(TERMINAL_ESCAPE)).toBe(TERMINAL_ESCAPE_PRINTED)
    expect(printable('a\nb\tc\rd\u0000e\u007ff\u0085g\u009b2J\u009f')).toBe('a\\x0ab\\x09c\\x0dd\\x00e\\x7ff\\x85g\\x9b2J\\x9f')
    expect(printable('João 🚀 \u00a0 \\x1b')).toBe('João 🚀 \u00a0 \\x1b')
    // Characters that reorder text: a name that would print as another, or drag its row around.
    expect(printable('Ana\u202egnp.exe\u2066x\u2069\u200f')).toBe('Ana\\u202egnp.exe\\u2066x\\u2069\\u200f')
    expect(printableValues({ n: 1, ok: true, none: null, list: [{ name: 'a\u001bb' }], text: '\n' })).toEqual({ n: 1, ok: true, none: null, list: [{ name: 'a\\x1bb' }], text: '\\x0a' })
  })
})
