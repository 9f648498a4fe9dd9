import { cut } from './cut'

// Secrets never reach the inspector, which every member of a group reads (and the teacher): a
// teammate must not learn another's token from it. Passwords, tokens, API keys, signing secrets and
// the teacher's token become "[redacted]" in the path, the query, every header, both bodies and the
// error message. The work is done on text, so a body keeps its exact shape (spacing, key order) and a
// body cut short, or not JSON at all, is redacted too. It runs on a failed call when it is recorded,
// and on the path and query of every call when they are read: never on a call that passes.

export const REDACTED = '[redacted]'

/** A field, parameter or header name that holds a secret, in any case: password, passwd, senha, pwd, newPassword, apiToken, signingSecret, apiKey, … */
const SECRET_NAME = /pass|senha|pwd|secret|token|api[-_]?key|authorization|credential|cookie|^key$/i

/**
 * This server's credentials: sk_/pk_ keys, stu_/ctk_ tokens, whsec_ signing secrets, adm_ teacher
 * tokens. Found anywhere, even glued to a word before it (`Bearer%20stu_…`, a JSON `\nstu_…`): a word
 * that happens to end in one of these prefixes and go on with 8 letters or digits is hidden too.
 */
const CREDENTIAL = /(?:sk|pk|stu|ctk|whsec|adm)_[0-9A-Za-z]{8,}(?:_[0-9A-Za-z]+)*/g
const HOLDS_CREDENTIAL = new RegExp(CREDENTIAL.source)

/** A run of text that may be percent-encoded (a query value, a URL written in a body). */
const PERCENT_RUN = /(?:%[0-9A-Fa-f]{2}|[0-9A-Za-z_.~+!*'()-])+/g
const ESCAPE = /%[0-9A-Fa-f]{2}/

/** Headers that carry a credential whatever their value looks like. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'x-api-key', 'x-admin-token', 'cookie', 'set-cookie'])

/** A percent-encoded run decoded; escapes that are not UTF-8 are read one byte each, so nothing hides behind a bad one. */
function decode(run: string): string {
  try {
    return decodeURIComponent(run)
  } catch {
    return run.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
  }
}

/** Redaction that knows the teacher's token, which has no fixed shape. */
export class Redactor {
  private readonly adminToken: string | undefined

  constructor(adminToken: string) {
    // An empty token (a deps object made for the teacher's commands) names nothing to hide.
    this.adminToken = adminToken === '' ? undefined : adminToken
  }

  /** Credentials written as they are. */
  private plain(text: string): string {
    const replaced = text.replace(CREDENTIAL, REDACTED)
    return this.adminToken && replaced.includes(this.adminToken) ? replaced.replaceAll(this.adminToken, REDACTED) : replaced
  }

  /** Whether a text holds a credential as it is. */
  private holds(text: string): boolean {
    return HOLDS_CREDENTIAL.test(text) || (this.adminToken !== undefined && text.includes(this.adminToken))
  }

  /** Credentials written percent-encoded (`stu%5F…`, `Bearer%20stu_…`, twice encoded): the run is replaced, encoded again. */
  private encoded(text: string): string {
    if (!text.includes('%')) return text
    return text.replace(PERCENT_RUN, (run) => {
      // Decoded up to three times (an escape of an escape, %255F, is decoded too), looking at each step:
      // a further step may read letters that follow a % as one more escape (%adm_… is not %AD).
      let decoded = run
      for (let i = 0; i < 3 && ESCAPE.test(decoded); i++) {
        decoded = decode(decoded)
        if (this.holds(decoded)) return encodeURIComponent(this.plain(decoded))
      }
      return run
    })
  }

  /** Any text: a body (JSON members named like a secret lose their value), a header value, a path, an error message. */
  text(text: string): string {
    return this.plain(this.encoded(redactSecretMembers(text)))
  }

  /** Request headers as a record; a header named like a secret (X-Auth-Token, X-Webhook-Secret) loses its whole value. Each value is cut at `limit` (a copy). */
  headers(headers: Headers, limit: number): Record<string, string> {
    const kept: Record<string, string> = {}
    headers.forEach((value, name) => {
      kept[name] = CREDENTIAL_HEADERS.has(name) || SECRET_NAME.test(name) ? REDACTED : cut(this.text(value), limit)
    })
    return kept
  }

  /** A raw query string (`a=1&token=x`): secret-named parameters lose their value, credentials anywhere (encoded or not) go. */
  query(query: string): string {
    const named = query
      .split('&')
      .map((pair) => {
        const eq = pair.indexOf('=')
        if (eq < 0) return pair
        return SECRET_NAME.test(decode(pair.slice(0, eq))) ? `${pair.slice(0, eq)}=${encodeURIComponent(REDACTED)}` : pair
      })
      .join('&')
    return this.plain(this.encoded(named))
  }
}

const WHITESPACE = /\s/

/**
 * JSON members whose name holds a secret keep their name, and their value (a string, a number, a
 * literal, a whole object or array) becomes "[redacted]". A scan of the text, not a parse: a body cut
 * at its limit, or not quite JSON, is redacted as far as it goes, and the rest keeps its exact shape.
 */
export function redactSecretMembers(text: string): string {
  if (!text.includes('"')) return text
  let out = ''
  let copied = 0
  let i = 0
  while (i < text.length) {
    if (text[i] !== '"') {
      i++
      continue
    }
    const nameEnd = stringEnd(text, i)
    let j = nameEnd
    while (j < text.length && WHITESPACE.test(text[j]!)) j++
    if (text[j] !== ':' || !SECRET_NAME.test(memberName(text.slice(i, nameEnd)))) {
      i = nameEnd
      continue
    }
    j++
    while (j < text.length && WHITESPACE.test(text[j]!)) j++
    if (j >= text.length) break
    const valueEnd = jsonValueEnd(text, j)
    out += `${text.slice(copied, j)}"${REDACTED}"`
    copied = i = valueEnd
  }
  return copied === 0 ? text : out + text.slice(copied)
}

/** Where the JSON string starting at `start` (a quote) ends: after its closing quote, or the text's end. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++
    else if (text[i] === '"') return i + 1
  }
  return text.length
}

/** A member's name as JSON reads it (`"pass\u0077ord"` is password); as written when it is not valid. */
function memberName(quoted: string): string {
  try {
    return String(JSON.parse(quoted))
  } catch {
    return quoted
  }
}

/** Where the JSON value starting at `start` ends: a string, an object or array (to its matching bracket), or a literal. */
function jsonValueEnd(text: string, start: number): number {
  const first = text[start]
  if (first === '"') return stringEnd(text, start)
  if (first === '{' || first === '[') {
    let depth = 0
    for (let i = start; i < text.length; i++) {
      const c = text[i]
      if (c === '"') i = stringEnd(text, i) - 1
      else if (c === '{' || c === '[') depth++
      else if ((c === '}' || c === ']') && --depth === 0) return i + 1
    }
    return text.length
  }
  let i = start
  while (i < text.length && !/[,}\]\s]/.test(text[i]!)) i++
  return i
}
