import { Elysia } from 'elysia'
import { authMacro } from '../../src/kernel/auth/macro'
import { AppError } from '../../src/kernel/errors'

/**
 * Store routes for counting calls: one taking the API key, like the catalog's, one that always fails,
 * and one whose JSON answer is exactly `:bytes` bytes long.
 */
export const activityProbes = new Elysia({ prefix: '/v1/probe' })
  .use(authMacro)
  .get('/', ({ ctx }) => ({ storeId: ctx.storeId }), { auth: 'shop' })
  .get('/sized/:bytes', ({ params }) => ({ data: 'x'.repeat(Number(params.bytes) - '{"data":""}'.length) }), { auth: 'shop' })
  .get('/conflict', () => {
    throw new AppError('CONFLICT', 'always a conflict')
  }, { auth: 'secret' })
