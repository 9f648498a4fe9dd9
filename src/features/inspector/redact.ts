import { cut } from './cut'

// Secrets never reach the inspector: passwords, tokens, API keys and signing secrets become
// "[redacted]" in bodies, headers, queries and messages. The work is done on text, so a body keeps
// its exact shape (spacing, key order) and a body cut short, or not JSON at all, is redacted too.

export const REDACTED = '[redacted]'

/** A field or parameter name that holds a secret: password, currentPassword, token, apiKey, signingSecret, … */
const SECRET_NAME = /pass(word)?|token|secret|api[-_]?key|authorization|^key$/i

/** This server's credentials anywhere in a text: sk_/pk_ keys, stu_/ctk_ tokens, whsec_ signing secrets. */
const CREDENTIAL = /\b(?:sk|pk|stu|ctk|whsec)_[0-9A-Za-z_]{8,}/g

/**
 * A JSON member whose name holds a secret, with its value: a string (possibly cut off by the 8 KB
 * limit), a number or a literal. Objects and arrays under such a name keep their shape; credentials
 * inside them are caught by CREDENTIAL.
 */
const SECRET_MEMBER = /("((?:[^"\\]|\\.){0,200})"\s*:\s*)("(?:[^"\\]|\\.)*(?:"|$)|-?\d[\d.eE+-]*|true|false)/g

/** Headers that carry a credential: their whole value goes. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'x-api-key', 'x-admin-token', 'cookie', 'set-cookie'])

export const redactText = (text: string): string =>
  text
    .replace(SECRET_MEMBER, (member, head: string, name: string) => (SECRET_NAME.test(name) ? `${head}"${REDACTED}"` : member))
    .replace(CREDENTIAL, REDACTED)

/** Request headers as a record, each value cut at `limit` (a copy). */
export function redactHeaders(headers: Headers, limit: number): Record<string, string> {
  const kept: Record<string, string> = {}
  headers.forEach((value, name) => {
    kept[name] = CREDENTIAL_HEADERS.has(name) ? REDACTED : cut(value.replace(CREDENTIAL, REDACTED), limit)
  })
  return kept
}

/** A raw query string (`a=1&token=x`) with the values of secret-named parameters and any credential replaced. */
export const redactQuery = (query: string): string =>
  query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=')
      if (eq < 0) return pair
      let name = pair.slice(0, eq)
      try {
        name = decodeURIComponent(name)
      } catch {
        // a malformed escape: judged as sent
      }
      return SECRET_NAME.test(name) ? `${pair.slice(0, eq)}=${encodeURIComponent(REDACTED)}` : pair
    })
    .join('&')
    .replace(CREDENTIAL, REDACTED)
