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

/**
 * What the sign-in screen says after the server refused the session (401): the server's reason, without
 * the API route it names for apps, and that what was being sent did not happen.
 */
export const signedOutNotice = (e: ApiError) =>
  `${e.message.replace(/\s*Log in again: POST \S+$/, '')} Sign in again; what you were sending when it ended was not saved.`

/** Who is calling: a student (their panel token) or the teacher (the admin token). */
export type Credential = { student: string } | { admin: string }

export interface CallOptions {
  body?: unknown
  query?: Record<string, string | number | boolean | undefined>
  /** Sent as is with this content type (a CSV file, a multipart form). */
  raw?: { body: BodyInit; type?: string }
}

/**
 * The panel's calls say so in X-Storefront-Client (`panel` for a student's screens, `teacher` for the
 * teacher's), which the request inspector records: its list hides the panel's own calls unless asked.
 * A view filter only; the server trusts nothing to it.
 */
export const CLIENT_HEADER = 'x-storefront-client'

function headersFor(credential: Credential): Record<string, string> {
  // A student token goes in Authorization (like a customer token); the admin token has its own header.
  return 'student' in credential
    ? { authorization: `Bearer ${credential.student}`, [CLIENT_HEADER]: 'panel' }
    : { 'x-admin-token': credential.admin, [CLIENT_HEADER]: 'teacher' }
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

/**
 * Reads a Server-Sent Events route with fetch, since a browser's EventSource cannot send the
 * credential headers. Calls `onEvent` with each event's name and data; returns a function that
 * closes the stream. `onEnd` hears why it ended unless it was closed by that function.
 */
export function openStream(credential: Credential, path: string, onEvent: (event: string, data: string) => void, onEnd: (error: ApiError) => void): () => void {
  const abort = new AbortController()
  const read = async () => {
    const response = await fetch(url(path), { headers: { ...headersFor(credential), accept: 'text/event-stream' }, signal: abort.signal })
    if (!response.ok || !response.body) {
      const e = (await response.json().catch(() => ({})))?.error ?? {}
      throw new ApiError(response.status, e.code ?? 'HTTP', e.message ?? `The server answered ${response.status}.`)
    }
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
    let buffered = ''
    for (;;) {
      const { value, done } = await reader.read()
      if (done) throw new ApiError(0, 'NETWORK', 'The live view stopped: the server closed it. Reload the page to start it again.')
      buffered += value
      // Events end with a blank line; lines starting with ':' are comments (the heartbeat).
      let end: number
      while ((end = buffered.indexOf('\n\n')) >= 0) {
        const lines = buffered.slice(0, end).split('\n')
        buffered = buffered.slice(end + 2)
        let event = 'message'
        const data: string[] = []
        for (const line of lines) {
          if (line.startsWith('event:')) event = line.slice(6).trim()
          else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''))
        }
        if (data.length > 0) onEvent(event, data.join('\n'))
      }
    }
  }
  read().catch((e: unknown) => {
    if (abort.signal.aborted) return
    onEnd(e instanceof ApiError ? e : new ApiError(0, 'NETWORK', 'The live view lost the server. Check that Storefront is still running, then reload the page.'))
  })
  return () => abort.abort()
}

/** A list route's answer: every list comes in pages (the server's Page schema, of items of type T). */
export type Page<T> = z.infer<ReturnType<typeof PageSchema<z.ZodType<T>>>>
