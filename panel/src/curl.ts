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

/** A bash command that repeats the request against `origin`, with the credentials as variables. */
export function curlCommand(origin: string, e: Pick<RequestDetail, 'method' | 'path' | 'query' | 'credential' | 'requestHeaders' | 'requestBody'>): string {
  const parts = [`curl -i -X ${e.method} ${quote(`${origin}${e.path}${e.query ? `?${e.query}` : ''}`)}`]
  // Double quotes, so the shell puts the variable's value in.
  for (const header of CREDENTIAL[e.credential]) parts.push(`-H "${header}"`)
  for (const [name, value] of Object.entries(e.requestHeaders)) {
    const lower = name.toLowerCase()
    if (!LEFT_OUT.has(lower) && !lower.startsWith('sec-')) parts.push(`-H ${quote(`${name}: ${value}`)}`)
  }
  if (e.requestBody !== null) parts.push(`--data-raw ${quote(e.requestBody)}`)
  return parts.join(' \\\n  ')
}
