import { Elysia } from 'elysia'
import { authMacro } from '../../kernel/auth/macro'
import type { Deps } from '../../kernel/deps'
import { ErrorEnvelope } from '../../kernel/errors'
import { clientAddress } from '../../kernel/http/client-address'
import { CUSTOMER_HELP, LoginThrottle, MAX_FAILURES_PER_ACCOUNT, MAX_FAILURES_PER_ACCOUNT_AND_ADDRESS, MAX_FAILURES_PER_ADDRESS } from '../store-auth'
import { Customer, CustomerLoginBody, CustomerSession, RegisterBody } from './model'
import { login, me, register } from './service'

const tags = ['Customers']

/** The shop's buyers: accounts per store, and the customer token that buyer routes take. */
export const customerRoutes = (deps: Deps) => {
  const throttle = new LoginThrottle(deps.clock, 'e-mail', CUSTOMER_HELP)
  return new Elysia({ prefix: '/customers' })
    .use(authMacro)
    .post(
      '/register',
      async ({ ctx, body, set }) => {
        const session = await register(deps, ctx, body)
        set.status = 201
        return session
      },
      {
        auth: 'shop',
        body: RegisterBody,
        response: { 201: CustomerSession, 400: ErrorEnvelope, 409: ErrorEnvelope },
        detail: {
          tags,
          summary: 'Register a customer of this store',
          description: 'E-mails are unique per store, ignoring case (409 CONFLICT); the same e-mail may exist in another store. The password needs 8 characters. The answer logs the customer in.',
        },
      },
    )
    .post('/login', ({ ctx, body, server, request }) => login(deps, ctx, throttle, body, clientAddress(server, request)), {
      auth: 'shop',
      body: CustomerLoginBody,
      response: { 200: CustomerSession, 401: ErrorEnvelope, 429: ErrorEnvelope },
      detail: {
        tags,
        summary: 'Log a customer in',
        description: `Returns a customer token. Buyer routes (cart, orders, own reviews) take it as Authorization: Bearer together with the store's X-API-Key; it works only with its own store's key. An unknown e-mail and a wrong password get the same 401 in the same time. After ${MAX_FAILURES_PER_ACCOUNT_AND_ADDRESS} failures in a minute for one e-mail from one client address, that e-mail is refused from that address only (429 RATE_LIMITED with Retry-After; the message says how many seconds to wait); ${MAX_FAILURES_PER_ACCOUNT} for one e-mail from all addresses together, or ${MAX_FAILURES_PER_ADDRESS} from one address, are 429 too. A login counts as failed until its password is found right, so parallel attempts get no more.`,
      },
    })
    .get('/me', ({ ctx }) => me(deps, ctx), {
      auth: 'customer',
      response: { 200: Customer },
      detail: { tags, summary: 'The logged-in customer' },
    })
}
