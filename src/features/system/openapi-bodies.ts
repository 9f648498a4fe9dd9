import type { RouteTable } from '../../kernel/http/route-table'
import type { BodySchema } from '../../kernel/http/validation'
import { routeOf } from './openapi-responses'

type Json = Record<string, unknown>
type Media = { schema?: { properties?: Json } }
type RequestBody = { required?: boolean; description?: string; content?: Record<string, Media> }

/**
 * What the generator gets wrong about request bodies, put right so that a client generated from the
 * document (openapi-typescript, test/contract) sends what the server takes:
 * - it marks every body required, also one the route's schema accepts leaving out (`.optional()`);
 * - a field the server refuses on purpose (`z.never()`, whose message names the route that changes it)
 *   comes out as `not: {}`, which openapi-typescript types as an optional `unknown`: a client could send
 *   it. Leaving the field out is no better, as openapi-fetch's generic options let an unknown field
 *   through. The schema `false` (no value passes) is typed `never`, which refuses every value; the
 *   refusal is told in the body's description. The server refuses the field as before.
 */
export function documentRequestBodies(paths: Json, routes: RouteTable) {
  for (const [path, item] of Object.entries(paths as Record<string, Record<string, { requestBody?: RequestBody }>>)) {
    for (const [method, op] of Object.entries(item)) {
      const body = op.requestBody
      if (!body) continue
      if (acceptsAbsent(routeOf(routes, method, path).body)) body.required = false
      const refused = Object.values(body.content ?? {}).flatMap((media) => markRefused(media.schema))
      if (refused.length === 0) continue
      body.description = [body.description, `Refused here with a 400: ${refused.join('; ')}.`].filter(Boolean).join(' ')
    }
  }
}

function acceptsAbsent(schema: BodySchema | undefined): boolean {
  if (!schema) return false
  const result = schema['~standard'].validate(undefined)
  return !(result instanceof Promise) && !(result as { issues?: unknown }).issues
}

/** Writes the fields no value can pass (`not: {}`) as `false`, and says why each is refused. */
function markRefused(schema: Media['schema']): string[] {
  const properties = schema?.properties ?? {}
  const told: string[] = []
  for (const [name, field] of Object.entries(properties)) {
    const { not, description } = (field ?? {}) as { not?: unknown; description?: string }
    if (!not || typeof not !== 'object' || Object.keys(not).length > 0) continue
    properties[name] = false
    told.push(`\`${name}\` ${description ?? 'is not accepted here'}`)
  }
  return told
}
