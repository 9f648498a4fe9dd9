import { describe, expect, test } from 'bun:test'
import { API_KEY_LENGTH } from '../../src/kernel/auth/credentials'
import { ADMIN_TOKEN } from '../helpers/app'
import { bearer } from '../helpers/world'
import { shopSetup } from '../helpers/orders'

describe('a customer token in X-API-Key', () => {
  test('on a buyer route, the 401 WRONG_CREDENTIAL says it is a customer token, that it goes in Authorization: Bearer, and which key goes in X-API-Key', async () => {
    const s = await shopSetup()
    const token = s.w.A.customer.token
    const res = await s.call('GET', '/v1/cart', { headers: { 'x-api-key': token, ...bearer(token) } })
    expect(res.status).toBe(401)
    expect(res.body.error).toEqual({
      code: 'WRONG_CREDENTIAL',
      message:
        "X-API-Key holds a customer token (ctk_...). A customer token goes in Authorization: Bearer <token>; X-API-Key takes the store's API key: " +
        "the publishable key (pk_...) in a shop front in the browser, the secret key (sk_...) on your app's server. " +
        "This route takes the store's API key in X-API-Key (publishable or secret) plus the customer's token in Authorization: Bearer (from POST /v1/customers/login).",
    })
  })

  test('on a shop route and a secret route alike, the message names what that route takes', async () => {
    const s = await shopSetup()
    const token = s.w.A.customer.token
    const shop = await s.call('GET', '/v1/products', { headers: { 'x-api-key': token } })
    expect(shop.status).toBe(401)
    expect(shop.body.error.message).toStartWith('X-API-Key holds a customer token (ctk_...). A customer token goes in Authorization: Bearer <token>;')
    expect(shop.body.error.message).toEndWith(
      "This route takes your store's API key in X-API-Key, publishable (pk_...) or secret (sk_...); a student token in Authorization: Bearer also works.",
    )
    const secret = await s.call('GET', '/v1/store/orders', { headers: { 'x-api-key': token } })
    expect(secret.status).toBe(401)
    expect(secret.body.error.message).toEndWith(
      "This route takes your store's secret API key (sk_...) in X-API-Key (a student token in Authorization: Bearer also works).",
    )
  })
})

describe("what stands where a buyer route takes the customer's token", () => {
  test('a student token or the teacher\'s is a credential of the wrong kind; anything else (a made-up or mistyped token) is no credential: 401 UNAUTHENTICATED saying how to get one', async () => {
    const s = await shopSetup()
    const key = { 'x-api-key': s.w.A.key.apiKey }
    const answer = async (authorization: string) => {
      const res = await s.call('GET', '/v1/cart', { headers: { ...key, authorization } })
      return [res.status, res.body.error.code, res.body.error.message]
    }
    const takes = "This route takes the store's API key in X-API-Key (publishable or secret) plus the customer's token in Authorization: Bearer (from POST /v1/customers/login)."
    expect(await answer(`Bearer ${s.w.A.student}`)).toEqual([401, 'WRONG_CREDENTIAL', `Authorization holds a student token, which opens the store panel, not a customer's cart or orders. ${takes}`])
    expect(await answer(`Bearer ${ADMIN_TOKEN}`)).toEqual([401, 'WRONG_CREDENTIAL', `Authorization holds the teacher's token, which opens the teacher's routes only. ${takes}`])
    const unknown = "The Bearer token is not a customer token (ctk_...). Log the customer in with this store's key (POST /v1/customers/login) and send the token it returns: Authorization: Bearer ctk_..."
    for (const made of ['Bearer garbage123', `Bearer ${s.w.A.customer.token.toUpperCase()}`]) expect(await answer(made)).toEqual([401, 'UNAUTHENTICATED', unknown])
  })
})

describe('a store credential in the wrong header is a credential of the wrong kind (401 WRONG_CREDENTIAL), naming where it goes', () => {
  test('a student token in X-API-Key', async () => {
    const s = await shopSetup()
    const res = await s.call('GET', '/v1/products', { headers: { 'x-api-key': s.w.A.student } })
    expect([res.status, res.body.error.code]).toEqual([401, 'WRONG_CREDENTIAL'])
    expect(res.body.error.message).toStartWith('X-API-Key holds a student token. Send student tokens as Authorization: Bearer <token>. This route takes')
    // On a panel route too, where an API key is the wrong credential: it is not called one.
    const panel = await s.call('GET', '/v1/store/settings', { headers: { 'x-api-key': s.w.A.student } })
    expect([panel.status, panel.body.error.code]).toEqual([401, 'WRONG_CREDENTIAL'])
    expect(panel.body.error.message).toStartWith('X-API-Key holds a student token. Send student tokens as Authorization: Bearer <token>. This route takes')
  })

  test("a store key or token in X-Admin-Token; anything else there is still not the teacher's token", async () => {
    const s = await shopSetup()
    for (const value of [s.w.A.key.apiKey, s.w.A.student, s.w.A.customer.token]) {
      const res = await s.call('GET', '/v1/admin/groups', { headers: { 'x-admin-token': value } })
      expect([res.status, res.body.error]).toEqual([
        401,
        { code: 'WRONG_CREDENTIAL', message: "X-Admin-Token holds a store key or token, not the teacher's token. This route takes the teacher's token in X-Admin-Token." },
      ])
    }
    const other = await s.call('GET', '/v1/admin/groups', { headers: { 'x-admin-token': 'adm_not-it' } })
    // Where the token is, whether the teacher chose it or the server made it.
    expect([other.status, other.body.error]).toEqual([
      401,
      {
        code: 'UNAUTHENTICATED',
        message:
          "X-Admin-Token is not the teacher's token: the one given with --admin-token (ADMIN_TOKEN), or else the one printed when the server first started, kept in the file admin-token of its data folder.",
      },
    ])
  })
})

describe("the teacher's token and a cut API key", () => {
  test("the teacher's token in Authorization or X-API-Key on a teacher route says to send it as X-Admin-Token", async () => {
    const s = await shopSetup()
    for (const headers of [bearer(ADMIN_TOKEN), { 'x-api-key': ADMIN_TOKEN }]) {
      const res = await s.call('GET', '/v1/admin/groups', { headers })
      expect([res.status, res.body.error]).toEqual([
        401,
        {
          code: 'WRONG_CREDENTIAL',
          message: "That is the teacher's token, in the wrong header: send it as X-Admin-Token, not in Authorization or X-API-Key. This route takes the teacher's token in X-Admin-Token.",
        },
      ])
    }
    // A store's key there is still called one.
    const store = await s.call('GET', '/v1/admin/groups', { headers: { 'x-api-key': s.w.A.key.apiKey } })
    expect(store.body.error.message).toStartWith('This is a teacher route; store keys and tokens do not open it.')
  })

  test('an API key cut short says how long a key is and to copy all of it; what looks like no key says to create one', async () => {
    const s = await shopSetup()
    const key: string = s.w.A.key.apiKey
    expect(key.length).toBe(API_KEY_LENGTH)
    const cut = await s.call('GET', '/v1/products', { headers: { 'x-api-key': key.slice(0, 30) } })
    expect([cut.status, cut.body.error]).toEqual([
      401,
      {
        code: 'UNAUTHENTICATED',
        message: `X-API-Key starts like an API key but is not a whole one (30 characters; a key has ${API_KEY_LENGTH}). Check that you copied all of it, without spaces or quotes; a key is shown only when it is made, so if it is lost, create a new one in the store panel: POST /v1/store/api-keys.`,
      },
    ])
    const none = await s.call('GET', '/v1/products', { headers: { 'x-api-key': 'my-key' } })
    expect(none.body.error.message).toBe('X-API-Key does not look like an API key (sk_xxxxxxxx_... or pk_xxxxxxxx_...). Create one in the store panel: POST /v1/store/api-keys.')
  })
})

describe('the word Bearer missing where it belongs, or written where it does not', () => {
  test('a key in Authorization without Bearer is told the header it goes in, as with Bearer; so is the teacher token', async () => {
    const s = await shopSetup()
    const key: string = s.w.A.key.apiKey
    for (const authorization of [key, `Bearer ${key}`, `Token ${key}`]) {
      const res = await s.call('GET', '/v1/products', { headers: { authorization } })
      expect([res.status, res.body.error.code]).toEqual([401, 'WRONG_CREDENTIAL'])
      expect(res.body.error.message).toStartWith('An API key was sent in Authorization; API keys go in the X-API-Key header. This route takes')
    }
    const teacher = await s.call('GET', '/v1/admin/groups', { headers: { authorization: ADMIN_TOKEN } })
    expect([teacher.status, teacher.body.error.code]).toEqual([401, 'WRONG_CREDENTIAL'])
    expect(teacher.body.error.message).toStartWith("That is the teacher's token, in the wrong header: send it as X-Admin-Token")
  })

  test('a key in Authorization beside the right X-API-Key is told to remove the header, not to move the key', async () => {
    const s = await shopSetup()
    const key: string = s.w.A.key.apiKey
    const res = await s.call('GET', '/v1/products', { headers: { 'x-api-key': key, authorization: `Bearer ${key}` } })
    expect([res.status, res.body.error.code]).toEqual([401, 'WRONG_CREDENTIAL'])
    expect(res.body.error.message).toStartWith(
      'An API key was sent in Authorization as well as in X-API-Key: remove the Authorization header, or put a token there (Bearer stu_... or ctk_...); API keys go only in X-API-Key.',
    )
  })

  test("the teacher's token in Authorization on a store route is called the teacher's token, with or without Bearer", async () => {
    const s = await shopSetup()
    for (const authorization of [ADMIN_TOKEN, `Bearer ${ADMIN_TOKEN}`]) {
      const store = await s.call('GET', '/v1/products', { headers: { authorization } })
      expect([store.status, store.body.error.code]).toEqual([401, 'WRONG_CREDENTIAL'])
      expect(store.body.error.message).toStartWith("The teacher's token does not open store routes. This route takes")
      const panel = await s.call('GET', '/v1/store/members', { headers: { authorization } })
      expect(panel.body.error.message).toStartWith("The teacher's token does not open the store panel. This route takes")
    }
  })

  test('a token without Bearer is shown the exact form; anything else names the two tokens and where keys go', async () => {
    const s = await shopSetup()
    const student = await s.call('GET', '/v1/store/members', { headers: { authorization: s.w.A.student } })
    expect([student.status, student.body.error]).toEqual([
      401,
      { code: 'UNAUTHENTICATED', message: 'The Authorization header must look like "Bearer <token>": the word Bearer, a space, then the token (Authorization: Bearer stu_...).' },
    ])
    const customer = await s.call('GET', '/v1/cart', { headers: { 'x-api-key': s.w.A.key.apiKey, authorization: s.w.A.customer.token } })
    expect(customer.body.error.message).toEndWith('(Authorization: Bearer ctk_...).')
    for (const authorization of ['Basic dXNlcjpwYXNz', 'Bearer', 'my-token']) {
      const res = await s.call('GET', '/v1/products', { headers: { authorization } })
      expect([res.status, res.body.error]).toEqual([
        401,
        { code: 'UNAUTHENTICATED', message: 'The Authorization header must look like "Bearer <token>", with a student token (stu_...) or a customer token (ctk_...); API keys go in X-API-Key.' },
      ])
    }
  })

  test('"Bearer " before a key in X-API-Key is told to send the key alone, not to make a new key; before a token, where the token goes', async () => {
    const s = await shopSetup()
    for (const value of [`Bearer ${s.w.A.key.apiKey}`, `Bearer: ${s.w.A.key.apiKey}`, `bearer:${s.w.A.key.apiKey}`]) {
      const res = await s.call('GET', '/v1/products', { headers: { 'x-api-key': value } })
      expect([res.status, res.body.error]).toEqual([
        401,
        {
          code: 'UNAUTHENTICATED',
          message: 'X-API-Key holds "Bearer" before the key: send the key alone (X-API-Key: sk_... or pk_...). The word Bearer goes only before a token in Authorization.',
        },
      ])
    }
    const token = await s.call('GET', '/v1/products', { headers: { 'x-api-key': `Bearer ${s.w.A.student}` } })
    expect(token.body.error.message).toBe(
      "X-API-Key holds \"Bearer\" and a token: a token goes in the Authorization header (Authorization: Bearer stu_...), and X-API-Key takes the store's API key (sk_... or pk_...).",
    )
  })
})
