import { isSecretName } from '../../kernel/secret-names'
import { cut } from './cut'

// Secrets never reach the inspector, which every member of a group reads (and the teacher): a
// teammate must not learn another's token from it. Passwords, tokens, API keys, signing secrets and
// the teacher's token become "[redacted]" in the path, the query, every header, both bodies and the
// error message. The work is done on text, so a body keeps its exact shape (spacing, key order) and a
// body cut short, or not JSON at all (a form, `password: …`, `{'password': …}`), is redacted too; a
// value a body lost is hidden from the answer that quotes it. It runs on a failed call when it is
// recorded, and on the path and query of every call when they are read: never on a call that passes.

export const REDACTED = '[redacted]'

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

/** A run of text that may hold JSON escapes (`stu\u005f…`). */
const ESCAPED_RUN = /(?:\\u[0-9A-Fa-f]{4}|[0-9A-Za-z_.~-])+/g
const JSON_ESCAPE = /\\u([0-9A-Fa-f]{4})/g

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

  /**
   * Credentials written with JSON escapes (`stu\u005f…`, `Bearer\u0020stu_…`): the run is replaced,
   * as a JSON string's content, so that the text keeps its shape.
   */
  private escaped(text: string): string {
    if (!text.includes('\\u')) return text
    return text.replace(ESCAPED_RUN, (run) => {
      if (!run.includes('\\u')) return run
      const decoded = run.replace(JSON_ESCAPE, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
      return this.holds(decoded) ? JSON.stringify(this.plain(decoded)).slice(1, -1) : run
    })
  }

  /** Any text: a header value, a path, an error message (JSON members named like a secret lose their value). */
  text(text: string): string {
    return this.plain(this.encoded(this.escaped(redactSecretMembers(text))))
  }

  /**
   * A body, sent or answered: as `text`, and when it is not JSON (a form, a JS or Python literal, a
   * body cut at its limit), every `name=value` and `name: value` whose name says secret loses its value
   * too, however the name and the value are quoted.
   */
  body(text: string, hidden?: string[]): string {
    const members = redactSecretMembers(text, hidden)
    return this.plain(this.encoded(this.escaped(isJson(text) ? members : redactSecretPairs(members, hidden))))
  }

  /**
   * `text` (an answer's body or error message) without the values hidden from the request's body: an
   * answer may quote what it was sent (a JSON parser naming the word it could not read). A value
   * shorter than 4 characters, or a JSON literal, is left: it would hide too much of the rest.
   */
  echoes(text: string, hidden: readonly string[]): string {
    let shown = text
    for (const value of hidden) {
      if (value.length < 4 || value === 'true' || value === 'false' || value === 'null') continue
      // As written, and as a JSON string's content (the answer's body is JSON).
      shown = shown.replaceAll(value, REDACTED)
      const escaped = JSON.stringify(value).slice(1, -1)
      if (escaped !== value) shown = shown.replaceAll(escaped, REDACTED)
    }
    return shown
  }

  /** Request headers as a record; a header named like a secret (X-Auth-Token, X-Webhook-Secret) loses its whole value. Each value is cut at `limit` (a copy). */
  headers(headers: Headers, limit: number): Record<string, string> {
    const kept: Record<string, string> = {}
    headers.forEach((value, name) => {
      kept[name] = CREDENTIAL_HEADERS.has(name) || isSecretName(name) ? REDACTED : cut(this.text(value), limit)
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
        return isSecretName(decode(pair.slice(0, eq))) ? `${pair.slice(0, eq)}=${encodeURIComponent(REDACTED)}` : pair
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
export function redactSecretMembers(text: string, hidden?: string[]): string {
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
    if (text[j] !== ':' || !isSecretName(memberName(text.slice(i, nameEnd)))) {
      i = nameEnd
      continue
    }
    j++
    while (j < text.length && WHITESPACE.test(text[j]!)) j++
    if (j >= text.length) break
    const valueEnd = jsonValueEnd(text, j)
    hidden?.push(...valueTexts(text.slice(j, valueEnd)))
    out += `${text.slice(copied, j)}"${REDACTED}"`
    copied = i = valueEnd
  }
  return copied === 0 ? text : out + text.slice(copied)
}

const isQuote = (c: string | undefined) => c === '"' || c === "'" || c === '`'

/** Where the string starting at `start` (its quote: ", ' or `) ends: after the same quote, unescaped, or at the text's end. */
function stringEnd(text: string, start: number): number {
  const quote = text[start]
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++
    else if (text[i] === quote) return i + 1
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

function isJson(text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

/**
 * A name, quoted (", ' or `) or bare, then `=` or `:`: a form's `password=…` (pairs separated by &, ;
 * or a line break), a `password: …` line, a JS or Python literal's `'password': …`, a broken JSON's
 * `"password": …`. A bare name starts after a delimiter, and a name is at most 128 characters, so the
 * scan of a long text without one stays linear.
 */
const PAIR = /("(?:[^"\\\n]|\\.){0,128}"|'(?:[^'\\\n]|\\.){0,128}'|`(?:[^`\\\n]|\\.){0,128}`|(?<![^\s"'`=:&;,?/{}()[\]<>])[^\s"'`=:&;,?/{}()[\]<>]{1,128})[ \t]*[:=][ \t]*/g
/** Where a value that is not quoted ends: the next pair of a form, or the line's end. */
const BARE_VALUE_END = /[&;\r\n]/g

/**
 * In a text that is not JSON, every `name=value` or `name: value` whose name (unquoted, percent-decoded)
 * says secret keeps its name and loses its value: a quoted value to its closing quote (or the text's
 * end), any other to the next &, ; or line break. Erring on the side of hiding: a value that goes on
 * past a comma or a brace is hidden to the line's end.
 */
export function redactSecretPairs(text: string, hidden?: string[]): string {
  let out = ''
  let copied = 0
  PAIR.lastIndex = 0
  for (let m = PAIR.exec(text); m; m = PAIR.exec(text)) {
    const raw = m[1]!
    const quoted = isQuote(raw[0])
    const name = decode((quoted ? raw.slice(1, -1) : raw).replace(/\+/g, ' '))
    if (!isSecretName(name)) {
      // The value may itself read as a pair (`note=password=…`): the scan goes on right after the separator.
      continue
    }
    const start = PAIR.lastIndex
    const end = valueEnd(text, start)
    const q = text[start]!
    hidden?.push(...valueTexts(text.slice(start, end)))
    out += `${text.slice(copied, start)}${isQuote(q) ? `${q}${REDACTED}${q}` : REDACTED}`
    copied = PAIR.lastIndex = end
    if (end >= text.length) break
  }
  return copied === 0 ? text : out + text.slice(copied)
}

/** Where the value starting at `start` ends: after its closing quote when quoted, else at the next &, ; or line break. */
function valueEnd(text: string, start: number): number {
  if (isQuote(text[start])) return stringEnd(text, start)
  BARE_VALUE_END.lastIndex = start
  return BARE_VALUE_END.exec(text)?.index ?? text.length
}

/** A hidden value as an answer may quote it: as written, without its quotes, read as JSON, percent-decoded. */
function valueTexts(raw: string): string[] {
  const texts = new Set([raw.trim()])
  const q = raw[0]
  if (isQuote(q) && raw.length >= 2 && raw.endsWith(q!)) texts.add(raw.slice(1, -1))
  if (q === '"') {
    try {
      texts.add(String(JSON.parse(raw)))
    } catch {
      // not a whole JSON string
    }
  }
  for (const text of [...texts]) if (text.includes('%') || text.includes('+')) texts.add(decode(text.replace(/\+/g, ' ')))
  return [...texts]
}
