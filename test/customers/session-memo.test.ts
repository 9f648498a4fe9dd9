import { describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { customerSessions } from '../../src/kernel/auth/tables'
import { hashToken } from '../../src/kernel/auth/credentials'
import { bearer, expectOk } from '../helpers/world'
import { shopSetup } from '../helpers/orders'

/**
 * The gate keeps a buyer's key and customer session between requests while the database is unchanged
 * (gate.ts). These requests follow each other with no write between them (a GET of a cart that
 * exists writes nothing), so each answer below comes from what was kept unless the change is seen.
 */
describe("the kept key and customer session", () => {
  test('an expired session is refused on the very next request: expiry is checked against the clock every time', async () => {
    const s = await shopSetup()
    await s.shop.cart()
    await s.shop.cart()
    const session = s.deps.db.select().from(customerSessions).where(eq(customerSessions.tokenHash, hashToken(s.w.A.customer.token))).get()!
    s.clock.advance(session.expiresAt - s.clock.now() - 1)
    await s.shop.cart()
    s.clock.advance(1)
    const expired = await s.shop.send('GET', '/v1/cart')
    expect(expired.status).toBe(401)
    expect(expired.body.error.message).toBe('The customer session expired (sessions last 30 days). Log in again: POST /v1/customers/login.')
  })

  test('a session removed from the database is refused on the very next request', async () => {
    const s = await shopSetup()
    await s.shop.cart()
    await s.shop.cart()
    s.deps.db.delete(customerSessions).where(eq(customerSessions.tokenHash, hashToken(s.w.A.customer.token))).run()
    const gone = await s.shop.send('GET', '/v1/cart')
    expect(gone.status).toBe(401)
    expect(gone.body.error.message).toStartWith('This customer token is not valid for this store.')
  })

  test('a revoked key is refused on the very next buyer request, and another store\'s key never opens the session', async () => {
    const s = await shopSetup()
    await s.shop.cart()
    const spare = { 'x-api-key': s.w.A.spareKey.apiKey, ...bearer(s.w.A.customer.token) }
    expect((await s.call('GET', '/v1/cart', { headers: spare })).status).toBe(200)
    const other = await s.call('GET', '/v1/cart', { headers: { 'x-api-key': s.w.B.key.apiKey, ...bearer(s.w.A.customer.token) } })
    expect(other.status).toBe(401)
    expect(other.body.error.message).toStartWith('This customer token is not valid for this store.')
    await expectOk(s.call('DELETE', `/v1/store/api-keys/${s.w.A.spareKey.id}`, { headers: bearer(s.w.A.student) }), 204)
    const revoked = await s.call('GET', '/v1/cart', { headers: spare })
    expect(revoked.status).toBe(401)
    expect(revoked.body.error.message).toBe('This API key was revoked. Create a new one in the store panel: POST /v1/store/api-keys.')
    expect((await s.shop.send('GET', '/v1/cart')).status).toBe(200)
  })

  test('a buyer route with an unknown key, a student token as key or no customer token keeps its own message', async () => {
    const s = await shopSetup()
    const token = bearer(s.w.A.customer.token)
    const unknown = await s.call('GET', '/v1/cart', { headers: { 'x-api-key': 'sk_abcdefgh_' + 'x'.repeat(40), ...token } })
    expect(unknown.body.error.message).toStartWith('This API key is not known.')
    const student = await s.call('GET', '/v1/cart', { headers: { 'x-api-key': s.w.A.student, ...token } })
    expect(student.body.error.message).toStartWith('X-API-Key holds a student token.')
    const none = await s.call('GET', '/v1/cart', { headers: { 'x-api-key': s.w.A.key.apiKey } })
    expect(none.body.error.message).toStartWith("This route also needs the customer's token")
  })
})
