import type { RequestDetail } from './request-types'

/** Headers the curl command leaves out: the credentials (replaced by variables) and what curl sets itself. */
const LEFT_OUT = new Set(['authorization', 'x-api-key', 'x-admin-token', 'cookie', 'host', 'content-length', 'connection', 'accept-encoding', 'user-agent', 'origin', 'referer', 'accept-language'])

/** The credential headers of each kind, as shell variables: the real key never appears in the command. */
const CREDENTIAL: Record<RequestDetail['credential'], string[]> = {
  secret: ['X-API-Key: $API_KEY'],
  publishable: ['X-API-Key: $API_KEY'],
  customer: ['X-API-Key: $API_KEY', 'Authorization: Bearer $CUSTOMER_TOKEN'],
  student: ['Authorization: Bearer $STUDENT_TOKEN'],
}

/** A POSIX shell word: single quotes, with each single quote closed, escaped and reopened. */
const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`

/** What the inspector shows of a refused call's Authorization when the credential kind does not account for it. */
const OTHER_BEARER = 'Authorization: Bearer $TOKEN'

/** The header a buyer route needs beside the key, offered as the fix when a call came without it. */
export const CUSTOMER_TOKEN_HEADER = 'Authorization: Bearer $CUSTOMER_TOKEN'

/**
 * A bash command that repeats the request against `origin`, with the credentials as variables: what
 * was sent, no more (a key sent without its customer token is repeated without one). `add`: credential
 * headers to send besides, for a command that shows a fix.
 */
export function curlCommand(origin: string, e: Pick<RequestDetail, 'method' | 'path' | 'query' | 'credential' | 'requestHeaders' | 'requestBody'>, add: string[] = []): string {
  const parts = [`curl -i -X ${e.method} ${quote(`${origin}${e.path}${e.query ? `?${e.query}` : ''}`)}`]
  const nameOf = (header: string) => header.slice(0, header.indexOf(':'))
  let credentials = [...CREDENTIAL[e.credential]]
  // A key sent with a token that is not the route's (kept redacted in the headers) is repeated with it.
  const sentBearer = Object.keys(e.requestHeaders).some((name) => name.toLowerCase() === 'authorization')
  if (sentBearer && !credentials.some((h) => nameOf(h) === 'Authorization')) credentials.push(OTHER_BEARER)
  // A fix replaces the header of its name.
  for (const header of add) credentials = [...credentials.filter((h) => nameOf(h) !== nameOf(header)), header]
  // Double quotes, so the shell puts the variable's value in.
  for (const header of credentials) parts.push(`-H "${header}"`)
  for (const [name, value] of Object.entries(e.requestHeaders)) {
    const lower = name.toLowerCase()
    if (!LEFT_OUT.has(lower) && !lower.startsWith('sec-')) parts.push(`-H ${quote(`${name}: ${value}`)}`)
  }
  if (e.requestBody !== null) parts.push(`--data-raw ${quote(e.requestBody)}`)
  return parts.join(' \\\n  ')
}

/** Methods whose request may carry a body. */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH'])

/**
 * What the command cannot repeat, said under it, or '' when it repeats everything: a successful call's
 * headers and body are not kept (a JSON body needs its Content-Type back too, or curl sends a form's),
 * a call refused before its body was read has none to repeat, and an older failure's may be let go.
 */
export function curlNote(e: Pick<RequestDetail, 'method' | 'status' | 'requestBody' | 'bodiesDropped'>): string {
  if (e.requestBody !== null || !BODY_METHODS.has(e.method)) return ''
  if (e.status < 400) {
    return "The headers and body of a successful request are not kept: if it sent a JSON body, add it with -H 'Content-Type: application/json' --data-raw '{…}'."
  }
  if (e.bodiesDropped) return "Its body was let go to keep the newer failures' bodies: if it sent one, add it with --data-raw '…'."
  return "It was refused before its body was read, so no body was kept: if it sent one, add it with --data-raw '…'."
}
