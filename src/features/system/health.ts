import { Elysia } from 'elysia'
import { z } from 'zod'
import type { Deps } from '../../kernel/deps'
import { AppError, ErrorEnvelope } from '../../kernel/errors'

const Health = z.object({
  status: z.literal('ok'),
  version: z.string(),
  uptimeSeconds: z.number().int().describe('seconds since the server started'),
})

/** `GET /health`: at the root, no auth, and a query on the database connection must answer. */
export const healthRoutes = (deps: Deps) => {
  const probe = deps.sqlite.query('select 1')
  return new Elysia().get(
    '/health',
    () => {
      try {
        probe.get()
      } catch (e) {
        throw new AppError('SERVICE_UNAVAILABLE', `The database cannot be read (${(e as Error).message}). Tell the teacher.`)
      }
      return {
        status: 'ok' as const,
        version: deps.version,
        uptimeSeconds: Math.floor((deps.clock.now() - deps.startedAt) / 1000),
      }
    },
    {
      response: { 200: Health, 503: ErrorEnvelope },
      detail: { tags: ['System'], summary: 'Is the service up?', description: 'No authentication. Checks that the database answers.' },
    },
  )
}
