import type { AnyElysia } from 'elysia'
import { AUTH_KINDS, type AuthKind } from '../../kernel/auth/kinds'
import type { RouteTable } from '../../kernel/http/route-table'
import { API_DESCRIPTION, SECURITY_SCHEMES, STUDENT_RM_PARAMETER, SUCCESS_DESCRIPTIONS, TAGS } from './docs-text'
import { documentRequestBodies } from './openapi-bodies'
import { completeAnswers, routeOf } from './openapi-responses'
import { webhookDocumentation } from './openapi-webhooks'

type Json = Record<string, unknown>

const SAFE_INTEGER_BOUNDS = new Set([Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER])

/**
 * Where a route declares `detail.responses` beside its response map (a second media type, headers), the
 * generator keeps only the map; they are kept aside under this name and merged back (withDeclared).
 */
const DECLARED = 'x-storefront-declared-responses'

/**
 * The OpenAPI 3.1 document, generated from the zod schemas on the routes (through zod's own
 * Standard JSON Schema output, so request and response shapes are exact), then tidied for readers:
 * schemas given an id with `.meta({ id })` become shared `components.schemas`, and the per-schema
 * `$schema` and ±2^53 integer bounds that zod adds everywhere are dropped. Every operation then lists
 * every answer it may give (openapi-responses.ts), from what the route table knows of its route.
 */
export async function buildOpenApiDocument(app: AnyElysia, routes: RouteTable, version: string) {
  // Loaded on the first request for the document, not at start (it is a large module).
  const { toOpenAPISchema } = await import('@elysiajs/openapi')
  const generated = toOpenAPISchema(withReadableParsers(app), { paths: ['/openapi.json'] }, undefined, undefined, '3.1.0') as {
    paths: Json
    components: { schemas: Json }
  }
  const schemas: Json = { ...generated.components.schemas }
  const paths: Json = {}
  for (const [path, item] of Object.entries(tidy(generated.paths, schemas) as Json)) {
    // A route declared as '/' under a prefix is served with and without the slash; document it without.
    paths[path.length > 1 ? path.replace(/\/$/, '') : path] = withNoContent(withDeclared(item as Json))
  }
  documentRequestBodies(paths, routes)
  const answers = completeAnswers(paths, routes)
  declareStudentRm(paths, routes)
  booleanQueries(paths)
  camelOperationIds(paths)
  const events = webhookDocumentation((schema) => tidy(schema, schemas))
  return {
    openapi: '3.1.0',
    info: { title: 'Storefront API', version, description: API_DESCRIPTION, license: { name: 'MIT', identifier: 'MIT' } },
    // Relative: the document is read from the server it describes, under whatever address it was reached.
    servers: [{ url: '/', description: 'This server: the one that served this document' }],
    tags: TAGS,
    paths,
    webhooks: events.webhooks,
    components: {
      securitySchemes: SECURITY_SCHEMES,
      schemas: { ...(tidy(schemas, schemas) as Json), ...events.schemas },
      parameters: { StudentRm: STUDENT_RM_PARAMETER },
      responses: answers.responses,
      headers: answers.headers,
    },
  }
}

/**
 * The credentials of the routes where the gate reads X-Student-RM: those that take the secret key (a
 * store key, alone or with a customer token). A route for student tokens counts the token's student; a
 * teacher's or a public route counts for no student.
 */
const READS_STUDENT_RM: ReadonlySet<AuthKind> = new Set(
  (Object.keys(AUTH_KINDS) as AuthKind[]).filter((kind) => AUTH_KINDS[kind].security.some((way) => 'secretKey' in way)),
)

/**
 * The generator names an operation after its path, keeping a path's hyphens (postV1StoreApi-keys), which
 * a generated client must then quote and some generators mangle: postV1StoreApiKeys instead.
 */
function camelOperationIds(paths: Json) {
  for (const item of Object.values(paths as Record<string, Record<string, { operationId?: string }>>)) {
    for (const op of Object.values(item)) if (op.operationId) op.operationId = op.operationId.replace(/-(\w)/g, (_, c: string) => c.toUpperCase())
  }
}

/**
 * A query parameter read as "true" or "false" is a boolean to the document: that is how a boolean in
 * a query is written, so a generated client takes `force: true` (it was typed "true" | "false").
 */
function booleanQueries(paths: Json) {
  type Parameter = { in?: string; schema?: { type?: string; enum?: unknown[]; default?: unknown } }
  for (const item of Object.values(paths as Record<string, Record<string, { parameters?: Parameter[] }>>)) {
    for (const op of Object.values(item)) {
      for (const parameter of op.parameters ?? []) {
        const schema = parameter.schema
        if (parameter.in !== 'query' || schema?.type !== 'string' || [...(schema.enum ?? [])].sort().join() !== 'false,true') continue
        const { enum: _, type: __, default: given, ...rest } = schema
        parameter.schema = { ...rest, type: 'boolean', ...(given === undefined ? {} : { default: given === 'true' }) }
      }
    }
  }
}

/** Lists X-Student-RM among the parameters of every operation whose route reads it. */
function declareStudentRm(paths: Json, routes: RouteTable) {
  for (const [path, item] of Object.entries(paths as Record<string, Record<string, { parameters?: unknown[] }>>)) {
    for (const [method, op] of Object.entries(item)) {
      const auth = routeOf(routes, method, path).auth
      if (auth && READS_STUDENT_RM.has(auth)) op.parameters = [...(op.parameters ?? []), { $ref: '#/components/parameters/StudentRm' }]
    }
  }
}

type Parser = { fn: unknown }
type Hooks = { parse?: Parser[]; response?: unknown; detail?: { responses?: Json } }
type AppView = { getGlobalRoutes(): { hooks?: Hooks }[]; getGlobalDefinitions?(): unknown }

/**
 * The HTTP kernel reads every body itself (http/kernel.ts), so routes name no parser. The generator
 * lists a body's content types from the route's *named* parsers and skips functions, which left every
 * request body without a schema. It is shown the routes with JSON named instead, unless a route
 * names a parser of its own (multipart uploads).
 */
function withReadableParsers(app: AnyElysia): AnyElysia {
  const view = app as unknown as AppView
  return {
    getGlobalDefinitions: () => view.getGlobalDefinitions?.(),
    getGlobalRoutes: () =>
      view.getGlobalRoutes().map((route) => {
        const hooks = route.hooks ?? {}
        const named = (hooks.parse ?? []).filter((p) => typeof p.fn !== 'function')
        const detail = hooks.response && hooks.detail?.responses ? { ...hooks.detail, [DECLARED]: hooks.detail.responses } : hooks.detail
        return { ...route, hooks: { ...hooks, detail, parse: named.length > 0 ? named : [{ fn: 'json' }] } }
      }),
  } as unknown as AnyElysia
}

/** Merges what routes declared beside their response map into the generated answers. */
function withDeclared(item: Json): Json {
  // biome-ignore lint/suspicious/noExplicitAny: an operation of the generated document, read and written by the specification's member names
  for (const op of Object.values(item as Record<string, Record<string, any>>)) {
    // biome-ignore lint/suspicious/noExplicitAny: what a route declared beside its response map, merged into the generated answer as is
    for (const [status, extra] of Object.entries<Record<string, any>>(op[DECLARED] ?? {})) {
      const generated = op.responses?.[status] ?? {}
      op.responses[status] = {
        ...generated,
        ...extra,
        headers: { ...generated.headers, ...extra.headers },
        content: { ...generated.content, ...extra.content },
      }
    }
    delete op[DECLARED]
  }
  return item
}

/** Deletions answer 204 with no body; say so where the route declared no success response. */
function withNoContent(item: Json): Json {
  const del = item.delete as { responses?: Json } | undefined
  if (del && !Object.keys(del.responses ?? {}).some((status) => status.startsWith('2'))) {
    del.responses = { '204': { description: SUCCESS_DESCRIPTIONS['204'] }, ...del.responses }
  }
  return item
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
  // The plugin turns a nullable enum into `type: [..., 'null']` with an `enum` that lacks null, which
  // forbids the null it means to allow.
  if (Array.isArray(out.type) && out.type.includes('null') && Array.isArray(out.enum) && !out.enum.includes(null)) {
    out.enum = [...out.enum, null]
  }
  return out
}
