import { toOpenAPISchema } from '@elysiajs/openapi'
import type { AnyElysia } from 'elysia'
import { z } from 'zod'
import { API_DESCRIPTION, SECURITY_SCHEMES, TAGS } from './docs-text'

type Json = Record<string, unknown>

const SAFE_INTEGER_BOUNDS = new Set([Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER])

/**
 * The OpenAPI 3.1 document, generated from the zod schemas on the routes (through zod's own
 * Standard JSON Schema output, so request and response shapes are exact), then tidied for readers:
 * schemas given an id with `.meta({ id })` become shared `components.schemas`, and the per-schema
 * `$schema` and ±2^53 integer bounds that zod adds everywhere are dropped.
 */
export function buildOpenApiDocument(app: AnyElysia, version: string) {
  const generated = toOpenAPISchema(app, { paths: ['/openapi.json'] }, undefined, undefined, '3.1.0') as {
    paths: Json
    components: { schemas: Json }
  }
  const schemas: Json = { ...generated.components.schemas }
  addRequestBodies(app, generated.paths)
  const paths = tidy(generated.paths, schemas) as Json
  return {
    openapi: '3.1.0',
    info: { title: 'Storefront API', version, description: API_DESCRIPTION },
    tags: TAGS,
    paths,
    components: { securitySchemes: SECURITY_SCHEMES, schemas: tidy(schemas, schemas) },
  }
}

/**
 * The kernel parses bodies in one global onParse function, and @elysiajs/openapi leaves the request
 * body's content empty for routes with a parser function. Each route's body schema goes back in here,
 * as the JSON the route takes.
 */
function addRequestBodies(app: AnyElysia, paths: Json) {
  for (const route of app.routes) {
    const body = (route.hooks as { body?: unknown } | undefined)?.body
    if (!(body instanceof z.ZodType)) continue
    const path = route.path.replace(/:([^/]+)/g, '{$1}')
    const operation = (paths[path] as Json | undefined)?.[route.method.toLowerCase()] as { requestBody?: { content?: Json } } | undefined
    if (!operation?.requestBody || Object.keys(operation.requestBody.content ?? {}).length > 0) continue
    operation.requestBody.content = { 'application/json': { schema: z.toJSONSchema(body, { io: 'input', unrepresentable: 'any' }) } }
  }
}

function tidy(node: unknown, schemas: Json): unknown {
  if (Array.isArray(node)) return node.map((n) => tidy(n, schemas))
  if (!node || typeof node !== 'object') return node
  const out: Json = {}
  for (const [key, value] of Object.entries(node as Json)) {
    if (key === '$schema') continue
    if (key === '$defs') {
      for (const [name, def] of Object.entries(value as Json)) schemas[name] ??= tidy(def, schemas)
      continue
    }
    if ((key === 'minimum' || key === 'maximum') && SAFE_INTEGER_BOUNDS.has(value as number)) continue
    if (key === '$ref' && typeof value === 'string' && value.startsWith('#/$defs/')) {
      out.$ref = `#/components/schemas/${value.slice('#/$defs/'.length)}`
      continue
    }
    out[key] = tidy(value, schemas)
  }
  return out
}
