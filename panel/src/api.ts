// How the panel talks to Storefront: plain fetch against the public API, the same calls a student's
// app makes (see /docs). Every error comes back in one envelope,
// `{ "error": { "code", "message", "details"? } }`, and the message says what to do next, so the
// panel shows it as it is.

import type { z } from 'zod'
import type { Page as PageSchema } from '../../src/kernel/pagination'

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown[],
  ) {
    super(message)
  }
}

/** Who is calling: a student (their panel token) or the teacher (the admin token). */
export type Credential = { student: string } | { admin: string }

export interface CallOptions {
  body?: unknown
  query?: Record<string, string | number | boolean | undefined>
  /** Sent as is with this content type (a CSV file, a multipart form). */
  raw?: { body: BodyInit; type?: string }
}

function headersFor(credential: Credential): Record<string, string> {
  // A student token goes in Authorization (like a customer token); the admin token has its own header.
  return 'student' in credential ? { authorization: `Bearer ${credential.student}` } : { 'x-admin-token': credential.admin }
}

export function url(path: string, query?: CallOptions['query']): string {
  const params = new URLSearchParams()
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== '') params.set(k, String(v))
  const qs = params.toString()
  return `/v1${path}${qs ? `?${qs}` : ''}`
}

/** Calls the API and returns the parsed JSON body (undefined for 204); throws ApiError otherwise. */
export async function call<T = unknown>(credential: Credential | null, method: string, path: string, options: CallOptions = {}): Promise<T> {
  const headers: Record<string, string> = credential ? headersFor(credential) : {}
  let body: BodyInit | undefined
  if (options.raw) {
    body = options.raw.body
    if (options.raw.type) headers['content-type'] = options.raw.type
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body)
    headers['content-type'] = 'application/json'
  }
  let response: Response
  try {
    response = await fetch(url(path, options.query), { method, headers, body })
  } catch {
    throw new ApiError(0, 'NETWORK', 'The server did not answer. Check that Storefront is still running, then try again.')
  }
  if (response.status === 204) return undefined as T
  const type = response.headers.get('content-type') ?? ''
  if (!type.includes('json')) {
    if (response.ok) return (await response.text()) as T
    throw new ApiError(response.status, 'HTTP', `The server answered ${response.status}.`)
  }
  const json = await response.json()
  if (!response.ok) {
    const e = json?.error ?? {}
    throw new ApiError(response.status, e.code ?? 'HTTP', e.message ?? `The server answered ${response.status}.`, e.details)
  }
  return json as T
}

/** A list route's answer: every list comes in pages (the server's Page schema, of items of type T). */
export type Page<T> = z.infer<ReturnType<typeof PageSchema<z.ZodType<T>>>>
