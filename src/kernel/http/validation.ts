import { z } from 'zod'
import { AppError, type ErrorDetail } from '../errors'

type Issue = {
  message: string
  path?: readonly (PropertyKey | { key: PropertyKey })[]
  code?: string
  keys?: string[]
  expected?: string
  origin?: string
  minimum?: number | bigint
  maximum?: number | bigint
  inclusive?: boolean
  values?: readonly unknown[]
}

/** A Standard Schema (zod's `~standard`): what a route declares for its body, and for its query, path and headers. */
export interface BodySchema {
  '~standard': { validate(value: unknown): { issues?: readonly unknown[]; value?: unknown } | Promise<unknown> }
}

/**
 * An error names at most this many problems, and no path or key past PATH_LIMIT characters: a body
 * with a hundred thousand unknown keys, or one key a megabyte long, gets a short answer.
 */
export const MAX_DETAILS = 20
const PATH_LIMIT = 100
const MESSAGE_LIMIT = 500

const WHERE: Record<RequestPart, string> = {
  body: 'request body',
  query: 'query string',
  params: 'path',
  headers: 'headers',
}

/** Where in the request a value came from, as a message names it. */
export type RequestPart = 'body' | 'query' | 'params' | 'headers'

/**
 * A part of the request checked against its route's schema, once: the value the schema gives (with
 * its defaults and conversions), or a 400 VALIDATION_ERROR whose `details` list every problem as
 * `{path, message}`, with unknown fields named one by one. The message never repeats the value it
 * refused, so a large or deep body gets a short answer.
 */
export function checkPart(part: RequestPart, schema: BodySchema, value: unknown): unknown {
  const result = schema['~standard'].validate(value)
  // Schemas are synchronous (no async refinements): a request is checked without waiting.
  if (result instanceof Promise) throw new Error(`a ${part} schema is asynchronous; the kernel checks requests synchronously`)
  if (result.issues) throw invalid(part, value, result.issues as Issue[], part === 'query' ? namesOf(schema) : undefined)
  return result.value
}

/**
 * The query of a route with a credential that declared none: any parameter is a 400 saying the route
 * takes none (`?pageSize=` on the store settings), as a declared query refuses what it lacks.
 */
export const NO_QUERY: BodySchema = z.strictObject({})

/** Whether the schema takes no value at all: a route whose body is optional. */
export function takesNoBody(schema: BodySchema): boolean {
  const result = schema['~standard'].validate(undefined)
  return !(result instanceof Promise) && !result.issues
}

/** The fields of an object schema (zod's shape), to name what a query takes; undefined for another schema. */
function namesOf(schema: BodySchema): string[] | undefined {
  const shape = (schema as { _zod?: { def?: { shape?: Record<string, unknown> } } })._zod?.def?.shape
  return shape ? Object.keys(shape) : undefined
}

/** `known`: a query's parameters, named beside one it does not take (a `q` where the route takes `search`). */
function invalid(type: RequestPart, value: unknown, issues: Issue[], known?: string[]): AppError {
  const where = WHERE[type]
  if (type === 'body' && value === undefined) {
    return new AppError(
      'VALIDATION_ERROR',
      'The request body is missing. Send a JSON object with the header Content-Type: application/json.',
    )
  }
  const details: ErrorDetail[] = []
  let total = 0
  // zod runs an array's length checks on a value that is no array ("Too big: expected string to have
  // <=9 characters" beside "expected array, received string"): a value of the wrong type gets one message.
  const mistyped = new Set(issues.filter((i) => i.code === 'invalid_type').map((i) => pathKey(i)))
  for (const issue of issues) {
    if (issue.code !== 'invalid_type' && mistyped.has(pathKey(issue))) continue
    total += issue.code === 'unrecognized_keys' && issue.keys ? issue.keys.length : 1
    const repeated = type === 'query' ? repeatedParameter(value, issue) : undefined
    if (details.length < MAX_DETAILS) details.push(...(repeated ? [repeated] : toDetails(issue, known)).slice(0, MAX_DETAILS - details.length))
  }
  const first = details[0]
  const summary = first ? `${first.path ? `${first.path}: ` : ''}${first.message}` : 'it does not match the schema'
  const shown = total > details.length ? `; the first ${details.length} are in details` : ' in details'
  const more = total > 1 ? ` (and ${total - 1} more problem${total > 2 ? 's' : ''}${shown})` : ''
  return new AppError(
    'VALIDATION_ERROR',
    `Invalid ${where}: ${summary}${more}. The expected shape of this route is in /docs.`,
    details,
  )
}

/** A query parameter the route takes once, sent more than once (page=1&page=2): said so, whatever the schema's own message. */
function repeatedParameter(query: unknown, issue: Issue): ErrorDetail | undefined {
  const [name, ...deeper] = segments(issue)
  const sent = name === undefined || deeper.length > 0 ? undefined : (query as Record<string, unknown>)[name]
  if (!Array.isArray(sent)) return undefined
  const path = shorten(name!)
  return { path, message: `${path} is sent ${sent.length} times, and this route takes it once: send one ${path}=` }
}

/** The issue's path as names: zod writes a segment as a key, or as an object holding it. */
const segments = (issue: Issue) => (issue.path ?? []).map((p) => String(typeof p === 'object' ? p.key : p))

const pathKey = (issue: Issue) => segments(issue).join('\u0000')

const shorten = (text: string, limit = PATH_LIMIT) => (text.length > limit ? `${text.slice(0, limit)}…` : text)

function toDetails(issue: Issue, known?: string[]): ErrorDetail[] {
  const base = segments(issue)
  if (issue.code === 'unrecognized_keys' && issue.keys) {
    const message = !known
      ? 'unknown or read-only field; remove it'
      : known.length
        ? `not a parameter of this route, which takes ${known.join(', ')}`
        : 'not a parameter of this route, which takes no query parameters; remove it'
    return issue.keys.slice(0, MAX_DETAILS).map((key) => ({ path: shorten([...base, key].join('.')), message }))
  }
  const path = shorten(base.join('.'))
  const message = shorten(issue.message.replace(/^Invalid input: /, ''), MESSAGE_LIMIT)
  // zod says "expected string, received undefined" for a field left out; say what to do instead.
  if (issue.code === 'invalid_type' && issue.expected && /received undefined$/.test(message)) {
    return [{ path, message: `is required (${issue.expected})` }]
  }
  return [{ path, message: plainWords(issue) ?? message }]
}

/**
 * zod's own wording of a check a schema gave no message of its own ("Too big: expected string to have
 * <=200 characters", "expected boolean, received string"), said as what to send instead; undefined for
 * a message a schema wrote.
 */
function plainWords(issue: Issue): string | undefined {
  const { code, origin, minimum, maximum } = issue
  const items = origin === 'array' || origin === 'set' ? 'items' : 'characters'
  if (code === 'too_big' && issue.message.startsWith('Too big:')) {
    if (origin === 'string' || origin === 'array' || origin === 'set') return `has at most ${maximum} ${items}`
    if (origin === 'number' || origin === 'bigint') return issue.inclusive === false ? `must be less than ${maximum}` : `must be at most ${maximum}`
  }
  if (code === 'too_small' && issue.message.startsWith('Too small:')) {
    if (origin === 'string' && minimum === 1) return 'must not be empty'
    if (origin === 'string' || origin === 'array' || origin === 'set') return `needs at least ${minimum} ${items}`
    if (origin === 'number' || origin === 'bigint') return issue.inclusive === false ? `must be more than ${minimum}` : `must be at least ${minimum}`
  }
  if (code === 'invalid_value' && issue.message.startsWith('Invalid option:') && issue.values) {
    return `must be one of ${issue.values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ')}`
  }
  if (code === 'invalid_type' && issue.message.startsWith('Invalid input:')) {
    const received = /received (\w+)$/.exec(issue.message)?.[1]
    // A value in quotes where JSON has a number or a boolean: the most common slip of a form's values.
    if (received === 'string' && issue.expected === 'boolean') return 'must be true or false, a JSON boolean without quotes (true, not "true")'
    if (received === 'string' && issue.expected === 'number') return 'must be a number, a JSON number without quotes (19.9, not "19.9")'
  }
  return undefined
}
