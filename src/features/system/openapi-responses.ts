import { ERROR_STATUS, type ErrorCode } from '../../kernel/errors'
import { kernelErrors } from '../../kernel/http/kernel-answers'
import type { RouteEntry, RouteTable } from '../../kernel/http/route-table'
import { ERROR_RESPONSES, RESPONSE_HEADERS, SUCCESS_DESCRIPTIONS, type ErrorResponseName, type ResponseHeader } from './docs-text'

// An OpenAPI document as generated: walked by the names the specification gives its members.
// biome-ignore lint/suspicious/noExplicitAny: any member of the generated document may be read or written
type Json = Record<string, any>

const ERROR_SCHEMA = { $ref: '#/components/schemas/Error' }
const RATE_LIMIT_HEADERS: ResponseHeader[] = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']
/** What any error may carry besides its own headers: the request id, and the rate limit's headers on a store credential. */
const ERROR_HEADERS: ResponseHeader[] = ['X-Request-Id', ...RATE_LIMIT_HEADERS]

/**
 * Completes every operation's answers in place: each error status the operation may answer (its route's
 * own, and those kernelErrors() knows) becomes a `$ref` to a shared error response, each success answer
 * gets a description and the headers it is sent with, and a public operation says it needs no
 * credential. Returns the `components.responses` and `components.headers` the operations refer to.
 */
export function completeAnswers(paths: Json, routes: RouteTable): { responses: Json; headers: Json } {
  const usedResponses = new Set<ErrorResponseName>()
  const usedHeaders = new Set<ResponseHeader>()
  const header = (name: ResponseHeader) => {
    usedHeaders.add(name)
    return { $ref: `#/components/headers/${name}` }
  }
  for (const [path, item] of Object.entries<Json>(paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      const at = `${method.toUpperCase()} ${path}`
      const route = routeOf(routes, method, path)
      if (!route.auth) op.security = []
      const answers: Json = { ...op.responses }
      for (const [status, name] of errorAnswers(route, answers, at)) {
        usedResponses.add(name)
        answers[status] = { $ref: `#/components/responses/${name}` }
      }
      for (const [status, answer] of Object.entries<Json>(answers)) {
        if (answer.$ref) continue
        if (!answer.description || answer.description.startsWith('Response for status')) {
          answer.description = method === 'get' && status === '200' ? SUCCESS_DESCRIPTIONS.read : (SUCCESS_DESCRIPTIONS[status] ?? answer.description)
        }
        for (const [name, given] of Object.entries<Json>(answer.headers ?? {})) {
          if (given.$ref !== `#/components/headers/${name}`) throw new Error(`${at}: header ${name} of ${status} must be a $ref to #/components/headers/${name} (docs-text.ts, RESPONSE_HEADERS)`)
          usedHeaders.add(name as ResponseHeader)
        }
        answer.headers = { 'X-Request-Id': header('X-Request-Id'), ...answer.headers }
        if (route.auth && route.auth !== 'admin') for (const name of RATE_LIMIT_HEADERS) answer.headers[name] = header(name)
        const idempotent = op.parameters?.some((p: Json) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key')
        if (idempotent && status.startsWith('2')) answer.headers['Idempotent-Replayed'] = header('Idempotent-Replayed')
      }
      op.responses = Object.fromEntries(Object.entries(answers).sort(([a], [b]) => a.localeCompare(b)))
    }
  }
  const responses: Json = {}
  for (const name of Object.keys(ERROR_RESPONSES) as ErrorResponseName[]) {
    if (!usedResponses.has(name)) continue
    const { description, ...rest } = ERROR_RESPONSES[name]
    const own: readonly ResponseHeader[] = 'headers' in rest ? rest.headers : []
    responses[name] = {
      description,
      headers: Object.fromEntries([...ERROR_HEADERS, ...own].map((h) => [h, header(h)])),
      content: { 'application/json': { schema: ERROR_SCHEMA } },
    }
  }
  const headers = Object.fromEntries(Object.entries(RESPONSE_HEADERS).filter(([name]) => usedHeaders.has(name as ResponseHeader)))
  return { responses, headers }
}

/** The route an operation of the document (`get`, `/v1/products/{id}`) describes, as the route table knows it. */
export function routeOf(routes: RouteTable, method: string, documentPath: string): RouteEntry {
  const route = routes.get(method.toUpperCase(), documentPath.replace(/\{([^}]+)\}/g, ':$1'))
  if (!route) throw new Error(`${method.toUpperCase()} ${documentPath} is in the OpenAPI document but not in the route table`)
  return route
}

/** Each error status of the operation with the shared response that describes it. */
function errorAnswers(route: RouteEntry, declared: Json, at: string): [string, ErrorResponseName][] {
  const fromKernel = new Map<string, ErrorCode[]>()
  for (const code of kernelErrors(route)) {
    const status = String(ERROR_STATUS[code])
    fromKernel.set(status, [...(fromKernel.get(status) ?? []), code])
  }
  const own = Object.keys(declared).filter((status) => Number(status) >= 400)
  const statuses = [...new Set([...fromKernel.keys(), ...own])]
  return statuses.map((status) => [status, errorResponse(route, status, fromKernel.get(status) ?? [], own.includes(status), at)])
}

function errorResponse(route: RouteEntry, status: string, fromKernel: ErrorCode[], declared: boolean, at: string): ErrorResponseName {
  if (status === '403') {
    // A feature's own 403 (FORBIDDEN, REVIEW_NOT_ALLOWED) is described apart from the gate's refusals;
    // a route that had both would need one shared response that describes both.
    const gate = fromKernel.includes('SECRET_KEY_REQUIRED') ? 'SecretKeyRequired' : fromKernel.includes('PASSWORD_CHANGE_REQUIRED') ? 'PasswordChangeRequired' : undefined
    // A shop route has no customer, so its own 403 can only refuse a publishable key what the secret
    // key alone may read (drafts on the product list): SecretKeyRequired describes that and the gate's
    // PASSWORD_CHANGE_REQUIRED both.
    if (gate === 'PasswordChangeRequired' && declared && route.auth === 'shop') return 'SecretKeyRequired'
    if (gate && declared) throw new Error(`${at} declares a 403 of its own where the gate refuses with 403 too; describe both in one shared response`)
    return gate ?? 'Forbidden'
  }
  const name = (Object.keys(ERROR_RESPONSES) as ErrorResponseName[]).find((n) => String(ERROR_RESPONSES[n].status) === status)
  if (!name) throw new Error(`${at} answers ${status}, which has no shared response in ERROR_RESPONSES (docs-text.ts)`)
  return name
}
