import type { ValidationError } from 'elysia'
import { AppError, type ErrorDetail } from '../errors'

type Issue = { message: string; path?: readonly (PropertyKey | { key: PropertyKey })[]; code?: string; keys?: string[]; expected?: string }

const WHERE: Record<string, string> = {
  body: 'request body',
  query: 'query string',
  params: 'path',
  headers: 'headers',
  cookie: 'cookies',
}

/**
 * Turns Elysia's validation failure into a 400 VALIDATION_ERROR whose `details` list every problem as
 * `{path, message}`, with unknown fields named one by one (decisions §3).
 */
export function toValidationError(error: ValidationError): AppError {
  const where = WHERE[error.type] ?? error.type
  if (error.type === 'body' && error.value === undefined) {
    return new AppError(
      'VALIDATION_ERROR',
      'The request body is missing. Send a JSON object with the header Content-Type: application/json.',
    )
  }
  const details = issuesOf(error).flatMap(toDetails)
  const first = details[0]
  const summary = first ? `${first.path ? `${first.path}: ` : ''}${first.message}` : 'it does not match the schema'
  const more = details.length > 1 ? ` (and ${details.length - 1} more problem${details.length > 2 ? 's' : ''} in details)` : ''
  return new AppError(
    'VALIDATION_ERROR',
    `Invalid ${where}: ${summary}${more}. The expected shape of this route is in /docs.`,
    details,
  )
}

function issuesOf(error: ValidationError): Issue[] {
  const validator = error.validator as { '~standard'?: StandardLike; schema?: { '~standard'?: StandardLike } } | undefined
  const standard = validator?.['~standard'] ?? validator?.schema?.['~standard']
  if (standard) {
    const result = standard.validate(error.value)
    if (!(result instanceof Promise) && result.issues) return result.issues as Issue[]
  }
  return error.all.map((e) => ({ message: e.summary ?? 'invalid value', path: 'path' in e ? String(e.path).split('/').filter(Boolean) : [] }))
}

type StandardLike = { validate(value: unknown): { issues?: readonly unknown[] } | Promise<unknown> }

function toDetails(issue: Issue): ErrorDetail[] {
  const base = (issue.path ?? []).map((p) => String(typeof p === 'object' ? p.key : p))
  if (issue.code === 'unrecognized_keys' && issue.keys) {
    return issue.keys.map((key) => ({
      path: [...base, key].join('.'),
      message: 'unknown or read-only field; remove it',
    }))
  }
  const message = issue.message.replace(/^Invalid input: /, '')
  // zod says "expected string, received undefined" for a field left out; say what to do instead.
  if (issue.code === 'invalid_type' && issue.expected && /received undefined$/.test(message)) {
    return [{ path: base.join('.'), message: `is required (${issue.expected})` }]
  }
  return [{ path: base.join('.'), message }]
}
