import { Elysia } from 'elysia'
import { asStudent } from '../../kernel/auth/kinds'
import { authMacro } from '../../kernel/auth/macro'
import type { Deps } from '../../kernel/deps'
import { ErrorEnvelope } from '../../kernel/errors'
import { clientAddress } from '../../kernel/http/client-address'
import { LoginThrottle, MAX_FAILURES_PER_ACCOUNT, MAX_FAILURES_PER_ACCOUNT_AND_ADDRESS, MAX_FAILURES_PER_ADDRESS } from './login-throttle'
import { ChangePasswordBody, ChangePasswordResponse, LoginBody, LoginResponse, MeResponse } from './model'
import { changePassword, login, me } from './service'

const tags = ['Store panel']

/** Student login (RM and password), `me` and the password change, for the store panel. */
export const storeAuthRoutes = (deps: Deps) => {
  const throttle = new LoginThrottle(deps.clock, 'RM')
  return new Elysia({ prefix: '/store/auth' })
    .use(authMacro)
    .post('/login', ({ body, server, request }) => login(deps, throttle, body, clientAddress(server, request)), {
      body: LoginBody,
      response: { 200: LoginResponse, 401: ErrorEnvelope, 429: ErrorEnvelope },
      detail: {
        tags,
        summary: 'Log in with RM and password',
        description: `No credential needed. The RM is taken in any case (ra2025x logs in as RA2025X), and so is the first password, which is the RM; then \`mustChangePassword\` is true and every other panel route answers 403 PASSWORD_CHANGE_REQUIRED until the password is changed. After ${MAX_FAILURES_PER_ACCOUNT_AND_ADDRESS} failures in a minute for one RM (in any case) from one client address, that RM is refused from that address only, with 429 RATE_LIMITED and Retry-After (the message says how many seconds to wait): a classmate typing wrong passwords for your RM does not lock you out of your own machine. ${MAX_FAILURES_PER_ACCOUNT} failures in a minute for one RM from all addresses together, or ${MAX_FAILURES_PER_ADDRESS} from one address whatever the RM, are 429 too. A login counts as failed until its password is found right, so parallel attempts get no more; a success clears its RM's failures from its address. A wrong password takes as long whether the RM exists or not, and whether its password was changed or not.`,
      },
    })
    .get('/me', ({ ctx }) => me(deps, asStudent(ctx)), {
      auth: 'studentSelf',
      response: { 200: MeResponse },
      detail: { tags, summary: 'Who am I, my group and my store' },
    })
    .post('/change-password', ({ ctx, body, server, request }) => changePassword(deps, throttle, asStudent(ctx), body, clientAddress(server, request)), {
      auth: 'studentSelf',
      body: ChangePasswordBody,
      response: { 200: ChangePasswordResponse, 400: ErrorEnvelope, 429: ErrorEnvelope },
      detail: {
        tags,
        summary: 'Change my password',
        description: `newPassword has at least 8 characters and differs from the RM (in any case, and with spaces around it or not). Returns a fresh token and ends every other session of this student. A wrong currentPassword (400) counts as a failed login of the RM, under the limits of POST /v1/store/auth/login: after ${MAX_FAILURES_PER_ACCOUNT_AND_ADDRESS} in a minute from one client address, 429 RATE_LIMITED with Retry-After, so that a session cannot be used to guess the password.`,
      },
    })
}
