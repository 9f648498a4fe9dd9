import { isIP } from 'node:net'
import { BadTarget, type Target } from './targets'

/** Success is a 2xx within this time. */
export const DELIVERY_TIMEOUT_MS = 10_000
/** How much of the receiver's answer the log keeps. */
const RESPONSE_BODY_LIMIT = 2048

export interface AttemptResult {
  ok: boolean
  responseStatus: number | null
  responseBody: string | null
  /** Why the attempt failed, as `<kind>: <what to check>`; null on success. */
  error: string | null
  durationMs: number
}

interface AttemptRequest {
  headers: Record<string, string>
  body: string
  /** Checks and resolves the target right before sending (targets.ts); throws BadTarget. */
  target: () => Promise<Target>
  /** Aborted when the server stops: the attempt is then abandoned, not recorded. */
  stop: AbortSignal
}

/**
 * One POST of one delivery: no redirects followed, a time-out over the answer and its first 2 KB.
 * Resolves with what happened (it never throws for a receiver's fault), or rejects with the stop
 * signal's reason when the server is stopping.
 */
export async function attempt(request: AttemptRequest): Promise<AttemptResult> {
  const started = performance.now()
  const done = (fields: Omit<AttemptResult, 'durationMs'>): AttemptResult => ({ ...fields, durationMs: Math.round(performance.now() - started) })
  const failed = (error: string, response?: { status: number; body: string }) =>
    done({ ok: false, responseStatus: response?.status ?? null, responseBody: response?.body ?? null, error })
  let url: URL | undefined
  try {
    const target = await request.target()
    url = target.url
    const response = await post(target, request, AbortSignal.any([AbortSignal.timeout(DELIVERY_TIMEOUT_MS), request.stop]))
    const body = await readStart(response, RESPONSE_BODY_LIMIT)
    const status = response.status
    if (status >= 200 && status < 300) return done({ ok: true, responseStatus: status, responseBody: body, error: null })
    if (status >= 300 && status < 400) {
      const location = response.headers.get('location') ?? '(no Location header)'
      return failed(`redirect: answered ${status} to ${location}; redirects are not followed, register the final URL`, { status, body })
    }
    return failed(`status: answered ${status}; only a 2xx answer counts as delivered`, { status, body })
  } catch (e) {
    if (request.stop.aborted) throw request.stop.reason
    return failed(describeFailure(e, url))
  }
}

/** Failures of a connection that never carried the request: the next checked address may be tried. */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL'])

/**
 * Sends to the checked addresses themselves, never to the name, so a second resolution cannot lead
 * elsewhere. The receiver still sees its name: in the Host header, and over TLS in the server name
 * (SNI) and the name its certificate is checked against. The addresses are tried in order until one
 * connects.
 */
async function post({ url, addresses }: Target, request: AttemptRequest, signal: AbortSignal): Promise<Response> {
  const named = !isIP(url.hostname.replace(/^\[(.*)\]$/, '$1'))
  for (const [i, address] of addresses.entries()) {
    const direct = new URL(url)
    direct.hostname = isIP(address) === 6 ? `[${address}]` : address
    try {
      return await fetch(direct, {
        method: 'POST',
        headers: { ...request.headers, host: url.host },
        body: request.body,
        redirect: 'manual',
        signal,
        tls: named ? { serverName: url.hostname } : undefined,
      })
    } catch (e) {
      if (i === addresses.length - 1 || !NOT_CONNECTED.has((e as NodeJS.ErrnoException).code ?? '')) throw e
    }
  }
  throw new Error('no address to send to')
}

function describeFailure(e: unknown, url: URL | undefined): string {
  if (e instanceof BadTarget) return `${e.kind === 'dns' ? 'dns' : 'refused target'}: ${e.message}`
  const error = e as NodeJS.ErrnoException
  if (error.name === 'TimeoutError') return `timeout: no complete answer within ${DELIVERY_TIMEOUT_MS / 1000} s; answer 2xx first, then do slow work`
  const code = error.code ?? ''
  if (code === 'ECONNREFUSED') return `connection refused: nothing listens on ${url?.host}; is your app running on that port?`
  if (/CERT|TLS|SSL|EPROTO/i.test(code)) return `tls: ${error.message} (the receiver needs a certificate this server trusts, or use http:// where allowed)`
  if (code === 'ENOTFOUND') return `dns: the host name '${url?.hostname}' could not be resolved`
  return `network: ${code ? `${code} ` : ''}${error.message}`
}

/** The first `limit` bytes of the body as text; the rest is not read. */
async function readStart(response: Response, limit: number): Promise<string> {
  if (!response.body) return ''
  const reader = response.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  while (size < limit) {
    const { done, value } = await reader.read()
    if (done) break
    chunks.push(value)
    size += value.byteLength
  }
  await reader.cancel().catch(() => {})
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, limit))
}
