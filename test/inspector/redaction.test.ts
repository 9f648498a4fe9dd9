import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { ADMIN_TOKEN, createTestApp } from '../helpers/app'
import { apiKey, bearer, createKey, expectOk, oneStore } from '../helpers/world'

// The inspector is read by every member of the group and by the teacher: what one member's app sent
// must not hand another member's token (or the teacher's) to them.

async function setup() {
  const t = createTestApp({ settings: { rateLimitRps: '0' } })
  const w = await oneStore(t.call, t.deps, 'a')
  const detail = async (id: string) => {
    const r = await t.call('GET', `/v1/store/requests/${encodeURIComponent(id)}`, { headers: bearer(w.student) })
    expect(r.status).toBe(200)
    return r
  }
  return { ...t, w, detail }
}

/** A text with its percent-escapes decoded, as far as they decode. */
const decoded = (text: string) => {
  try {
    return decodeURIComponent(text)
  } catch {
    return text.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
  }
}

const ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789'
const random = (n: number) => fc.string({ unit: fc.constantFrom(...ALNUM), minLength: n, maxLength: n })

/** A credential of every kind this server makes, and the part of it that must never show. */
const credential = fc.oneof(
  fc.tuple(fc.constantFrom('sk_', 'pk_'), random(8), random(40)).map(([kind, prefix, rest]) => ({ token: `${kind}${prefix}_${rest}`, secret: rest })),
  fc.tuple(fc.constantFrom('stu_', 'ctk_'), random(40)).map(([kind, rest]) => ({ token: `${kind}${rest}`, secret: rest })),
  random(32).map((rest) => ({ token: `whsec_${rest}`, secret: rest })),
  random(32).map((rest) => ({ token: `adm_${rest}`, secret: rest })),
  fc.constant({ token: ADMIN_TOKEN, secret: ADMIN_TOKEN }),
)

/** Text around the credential: any printable ASCII (what can go in a header), letters and digits glued on included. */
const around = fc.string({ unit: fc.constantFrom(...`${ALNUM}ABC _-.:/=&%+"'\\{}[],;\n`.split('')), maxLength: 12 })
const headerSafe = (text: string) => text.replace(/[\n"\\]/g, ' ')

/** Where the credential goes: each builds a request of the store's secret key that fails, so headers and bodies are kept. */
type Place = 'path' | 'query' | 'query encoded' | 'query bearer' | 'header' | 'header encoded' | 'json value' | 'json member name' | 'not json'
const PLACES: Place[] = ['path', 'query', 'query encoded', 'query bearer', 'header', 'header encoded', 'json value', 'json member name', 'not json']

function request(place: Place, text: string, sk: string, id: string) {
  let path = '/v1/products/prod_missing'
  let query = 'page=1'
  const headers: Record<string, string> = { 'x-api-key': sk, 'x-request-id': id, 'content-type': 'application/json' }
  let body = JSON.stringify({ name: 'Mug', notes: [{ at: 1, say: 'fine' }] })
  if (place === 'path') path = `/v1/products/${encodeURIComponent(text)}`
  if (place === 'query') query = `note=${text.replace(/[^\w.~-]/g, (c) => encodeURIComponent(c))}`
  if (place === 'query encoded') query = `note=${[...text].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('')}`
  if (place === 'query bearer') query = `auth=${encodeURIComponent(`Bearer ${text}`)}`
  if (place === 'header') headers['x-debug-note'] = headerSafe(text)
  if (place === 'header encoded') headers['x-forwarded-uri'] = `/callback?c=${encodeURIComponent(text)}`
  if (place === 'json value') body = JSON.stringify({ name: 'Mug', notes: [{ at: 1, say: [null, { deep: text }] }] })
  if (place === 'json member name') body = JSON.stringify({ name: 'Mug', extra: { [text]: true } })
  if (place === 'not json') body = `{"name": "Mug", ${text}`
  return { path: `${path}?${query}`, init: { method: 'PUT', headers, body } }
}

describe('no credential reaches the inspector', () => {
  test('property: a credential of any kind, anywhere in the path, query, a header or the body, never appears in the entry as served (nor decoded)', async () => {
    const t = await setup()
    let n = 0
    await fc.assert(
      fc.asyncProperty(credential, fc.constantFrom(...PLACES), around, around, async ({ token, secret }, place, before, after) => {
        const id = `prop-${n++}`
        const { path, init } = request(place, `${before}${token}${after}`, t.w.key.apiKey, id)
        const sent = await t.app.handle(new Request(`http://localhost:3000${path}`, init))
        expect(sent.status).toBeGreaterThanOrEqual(400)
        const { text: served, body: entry } = await t.detail(id)
        // The credential was kept, redacted, where it was sent: nothing passes for lack of being kept.
        const where = { path: entry.path, header: entry.requestHeaders['x-debug-note'], 'header encoded': entry.requestHeaders['x-forwarded-uri'] }[place as string] ?? (place.startsWith('query') ? entry.query : entry.requestBody)
        expect(decoded(where)).toContain('[redacted]')
        expect(served).not.toContain(secret)
        expect(decoded(served)).not.toContain(secret)
        const listed = await t.call('GET', `/v1/store/requests?pageSize=1`, { headers: bearer(t.w.student) })
        expect(listed.body.data[0].id).toBe(id)
        expect(decoded(listed.text)).not.toContain(secret)
      }),
      { numRuns: 150 },
    )
  })

  test('a query auth=Bearer%20stu_… shows auth=Bearer%20[redacted], encoded', async () => {
    const t = await setup()
    const r = await t.call('GET', `/v1/products/prod_missing?auth=Bearer%20${t.w.student}&page=2`, { headers: { ...apiKey(t.w.key.apiKey), 'x-request-id': 'q1' } })
    // A product's detail takes no query: the 400 names the parameters, never their values.
    expect([r.status, JSON.stringify(r.body).includes(t.w.student)]).toEqual([400, false])
    const entry = (await t.detail('q1')).body
    expect(entry.query).toBe('auth=Bearer%20%5Bredacted%5D&page=2')
    // With the underscore percent-encoded too.
    const encoded = t.w.student.replace('_', '%5F')
    await t.call('GET', `/v1/products/prod_missing?next=${encoded}`, { headers: { ...apiKey(t.w.key.apiKey), 'x-request-id': 'q2' } })
    expect((await t.detail('q2')).body.query).toBe('next=%5Bredacted%5D')
  })

  test('body fields named like a password or token lose their value in any case and nesting: senha, SENHA, newPassword, apiToken, pwd, passwd, clientSecret', async () => {
    const t = await setup()
    const sent = {
      name: 'Bia',
      email: 'not-an-email',
      senha: 'segredo-1',
      perfil: { SENHA: 'segredo-2', contatos: [{ newPassword: 'segredo-3', apiToken: 42, pwd: true }] },
      passwd: { nested: 'segredo-4', list: ['segredo-5'] },
      clientSecret: null,
      nota: 'kept',
    }
    const r = await t.call('POST', '/v1/customers/register', { headers: { ...apiKey(t.w.key.apiKey), 'x-request-id': 'senha' }, body: sent })
    expect(r.status).toBe(400)
    const d = await t.detail('senha')
    expect(JSON.parse(d.body.requestBody)).toEqual({
      name: 'Bia',
      email: 'not-an-email',
      senha: '[redacted]',
      perfil: { SENHA: '[redacted]', contatos: [{ newPassword: '[redacted]', apiToken: '[redacted]', pwd: '[redacted]' }] },
      passwd: '[redacted]',
      clientSecret: '[redacted]',
      nota: 'kept',
    })
    expect(d.text).not.toContain('segredo')
  })

  test("a whsec_ signing secret in the answer's body is redacted there too", async () => {
    const t = await setup()
    const secret = 'whsec_0123456789abcdef0123456789abcdef'
    // An unknown field is named back in the 400's details: the secret is in the answer as well as in the request.
    const r = await t.call('POST', '/v1/products', { headers: { ...apiKey(t.w.key.apiKey), 'x-request-id': 'wh' }, body: { name: 'Mug', sku: 'M-1', price: 5, stock: 1, [secret]: 1, [`my_${secret}`]: 2 } })
    expect(r.status).toBe(400)
    expect(r.text).toContain(secret)
    const d = (await t.detail('wh')).body
    expect(d.responseBody).not.toContain('0123456789abcdef')
    expect(JSON.parse(d.responseBody).error.details.map((x: any) => x.path)).toEqual(['[redacted]', 'my_[redacted]'])
    expect(d.requestBody).not.toContain('0123456789abcdef')
  })

  test('a custom header: a ctk_ in any header is redacted, and a header named like a secret loses its whole value', async () => {
    const t = await setup()
    const { token } = t.w.customer
    await t.call('GET', '/v1/products/prod_missing', {
      headers: {
        ...apiKey(t.w.key.apiKey),
        'x-request-id': 'h1',
        'x-customer': token,
        'x-session-note': `last=${token.replace('_', '%5F')}`,
        'x-auth-token': 'hunter2',
        'x-kept': 'plain value',
      },
    })
    const h = (await t.detail('h1')).body.requestHeaders
    expect([h['x-customer'], h['x-session-note'], h['x-auth-token'], h['x-kept']]).toEqual(['[redacted]', 'last=%5Bredacted%5D', '[redacted]', 'plain value'])
  })

  test("the teacher's token is redacted wherever it is written", async () => {
    const t = await setup()
    await t.call('POST', `/v1/products?note=${ADMIN_TOKEN}`, { headers: { ...apiKey(t.w.key.apiKey), 'x-request-id': 'adm', 'x-note': ADMIN_TOKEN }, body: { name: 'x', note: `is ${ADMIN_TOKEN}` } })
    const d = await t.detail('adm')
    expect(d.text).not.toContain(ADMIN_TOKEN)
    expect(d.body.query).toBe('note=[redacted]')
    expect(JSON.parse(d.body.requestBody).note).toBe('is [redacted]')
  })

  test('the path filter matches the path as shown, so it cannot find a redacted token a character at a time', async () => {
    const t = await setup()
    await t.call('GET', `/v1/products/${t.w.student}`, { headers: apiKey(t.w.key.apiKey) })
    const count = async (prefix: string) => (await expectOk(t.call('GET', `/v1/store/requests?path=${encodeURIComponent(prefix)}`, { headers: bearer(t.w.student) }))).total
    expect(await count(`/v1/products/${t.w.student.slice(0, 12)}`)).toBe(0)
    expect(await count('/v1/products/[redacted]')).toBe(1)
  })
})

describe('a body that is not JSON loses the values of its secret-named fields too', () => {
  /** Sends `body` as application/json (which it is not) with the headers given; the store's inspector shows what it kept. */
  async function sent(t: Awaited<ReturnType<typeof setup>>, path: string, headers: Record<string, string>, body: string, id: string) {
    const r = await t.app.handle(new Request(`http://localhost:3000${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json', 'x-request-id': id }, body }))
    expect(r.status).toBe(400)
    return t.detail(id)
  }

  test("a student's change-password sent as a form shows neither password to the teammates", async () => {
    const t = await setup()
    const d = await sent(t, '/v1/store/auth/change-password', bearer(t.w.student), 'currentPassword=OldSecret1&newPassword=NewSecret99', 'cp')
    expect(d.body.requestBody).toBe('currentPassword=[redacted]&newPassword=[redacted]')
    expect(d.body.credential).toBe('student')
    expect(d.text).not.toContain('Secret1')
    expect(d.text).not.toContain('Secret99')
  })

  test('a customer login with the publishable key, as a form, a Python dict or a YAML line, shows no password', async () => {
    const t = await setup()
    const pk = (await createKey(t.call, t.w.student, 'shop page', 'publishable')).apiKey
    const cases = [
      ['email=bia%40example.com&password=Hunter22x', 'email=bia%40example.com&password=[redacted]'],
      ["{'email': 'bia@example.com', 'password':'Hunter22x'}", "{'email': 'bia@example.com', 'password':'[redacted]'}"],
      ['email: bia@example.com\npassword: Hunter22x is mine', 'email: bia@example.com\npassword: [redacted]'],
      ['{"email": "bia@example.com", "password": Hunter22x}', '{"email": "bia@example.com", "password": "[redacted]"}'],
      ['pass%77ord=Hunter22x;email=bia', 'pass%77ord=[redacted];email=bia'],
    ]
    for (const [i, [body, shown]] of cases.entries()) {
      const d = await sent(t, '/v1/customers/login', apiKey(pk), body!, `login-${i}`)
      expect([d.body.credential, d.body.requestBody]).toEqual(['publishable', shown])
      expect(d.text).not.toContain('Hunter22x')
    }
  })

  test('a misspelt password field is hidden too: pasword, paswd, pssword, psw, senah', async () => {
    const t = await setup()
    const body = { email: 'bia@example.com', pasword: 'Hunter22x-1', paswd: 'Hunter22x-2', pssword: 'Hunter22x-3', psw: 'Hunter22x-4', senah: 'Hunter22x-5' }
    await t.call('POST', '/v1/customers/login', { headers: { ...apiKey(t.w.key.apiKey), 'x-request-id': 'typo' }, body })
    const d = await t.detail('typo')
    expect(JSON.parse(d.body.requestBody)).toEqual({ email: 'bia@example.com', pasword: '[redacted]', paswd: '[redacted]', pssword: '[redacted]', psw: '[redacted]', senah: '[redacted]' })
    expect(d.text).not.toContain('Hunter22x')
  })

  test('pw is a secret name as a word of the name; upward, stopwatch, shipWeight and pwned are not', async () => {
    const t = await setup()
    const body = { pw: 'hidden-1', newPw: 'hidden-2', user_pw: 'hidden-3', pw2: 'hidden-4', upward: 'kept-1', stopwatch: 'kept-2', shipWeight: 'kept-3', pwned: 'kept-4' }
    await t.call('POST', '/v1/customers/register', { headers: { ...apiKey(t.w.key.apiKey), 'x-request-id': 'pw' }, body })
    expect(JSON.parse((await t.detail('pw')).body.requestBody)).toEqual({
      pw: '[redacted]',
      newPw: '[redacted]',
      user_pw: '[redacted]',
      pw2: '[redacted]',
      upward: 'kept-1',
      stopwatch: 'kept-2',
      shipWeight: 'kept-3',
      pwned: 'kept-4',
    })
  })

  test('a token written with JSON escapes (stu\\u005f…, Bearer\\u0020stu_…) is redacted; the body stays JSON', async () => {
    const t = await setup()
    const [, rest] = t.w.student.split('_')
    const body = `{"name": "Mug", "note": "stu\\u005f${rest}", "auth": "Bearer\\u0020\\u0073tu_${rest}"}`
    expect(JSON.parse(body).note).toBe(t.w.student)
    await t.call('POST', '/v1/products', { headers: { ...apiKey(t.w.key.apiKey), 'x-request-id': 'esc', 'content-type': 'application/json' }, raw: body })
    const d = await t.detail('esc')
    expect(JSON.parse(d.body.requestBody)).toEqual({ name: 'Mug', note: '[redacted]', auth: 'Bearer [redacted]' })
    expect(d.text).not.toContain(rest!)
  })

  const NAMES = ['password', 'newPassword', 'currentPassword', 'senha', 'pwd', 'pw', 'user_pw', 'passwd', 'token', 'apiKey', 'api_key', 'clientSecret', 'credential', 'key']
  /** A value of 6 to 24 characters: letters, digits and punctuation, no quote, backslash, &, ; or line break. */
  const value = fc.string({ unit: fc.constantFrom(...`${ALNUM}ABCXYZ!@#$*()-_+.~^|,{}[]<> `.split('')), minLength: 5, maxLength: 23 }).map((v) => `V${v}`)
  const other = fc.constantFrom('email=bia%40example.com', 'name: Bia', "'qty': 2", '"note": "fine"')
  const percentEncoded = (name: string, mask: number) => [...name].map((c, i) => ((mask >> i) & 1 ? `%${c.charCodeAt(0).toString(16)}` : c)).join('')

  /** One secret-named field in each shape the rule covers, with its value; the whole body is seldom JSON (and then the JSON rule covers it). */
  const shaped = fc.oneof(
    fc.tuple(fc.constantFrom(...NAMES), value, fc.integer({ min: 0, max: 255 }), fc.constantFrom('&', ';', '\n', '\r\n')).map(([name, v, mask, sep]) => ({ field: `${percentEncoded(name, mask)}=${encodeURIComponent(v)}`, sep, v: encodeURIComponent(v) })),
    fc.tuple(fc.constantFrom(...NAMES), value.map((v) => v.trim()), fc.constantFrom(': ', ':', ' : ', '=')).map(([name, v, colon]) => ({ field: `${name}${colon}${v}`, sep: '\n', v })),
    fc.tuple(fc.constantFrom(...NAMES), value, fc.constantFrom(`'`, '"', '`'), fc.constantFrom(`'`, '"', '`', '')).map(([name, v, nameQuote, valueQuote]) => ({
      field: `${nameQuote}${name}${nameQuote}: ${valueQuote}${valueQuote === '' ? v.replace(/[ ,{}[\]]/g, 'x') : v}${valueQuote}`,
      sep: ', ',
      v: valueQuote === '' ? v.replace(/[ ,{}[\]]/g, 'x') : v,
    })),
  )

  test('property: a secret-named field of any of these shapes, with any value, never shows its value in the served entry', async () => {
    const t = await setup()
    const pk = (await createKey(t.call, t.w.student, 'shop page', 'publishable')).apiKey
    let n = 0
    await fc.assert(
      fc.asyncProperty(shaped, other, other, fc.boolean(), async ({ field, sep, v }, before, after, braces) => {
        const id = `pairs-${n++}`
        const inner = [before, field, after].join(sep)
        const body = braces ? `{${inner}}` : inner
        const d = await sent(t, '/v1/customers/login', apiKey(pk), body, id)
        expect(d.text).not.toContain(v)
        expect(decoded(d.text)).not.toContain(decoded(v))
        expect(d.body.requestBody).toContain('[redacted]')
      }),
      { numRuns: 200 },
    )
  })
})
