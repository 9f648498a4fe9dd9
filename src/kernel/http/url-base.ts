/**
 * The base of the file URLs an answer carries (media, product images, review photos).
 *
 * With --public-url it is that URL. Without it, it is the origin the request was sent to, so a page
 * opened at http://127.0.0.1:3000 gets pictures it can load, where the machine's guessed LAN address
 * may be another network's (Docker, a VPN) or one the caller cannot reach. What is sent without a
 * request, a webhook, keeps the configured or guessed address (`PublicUrl` below, `deps.publicUrl`).
 *
 * The origin is the request URL's, which the server builds from the Host header, and a client writes
 * that as it likes: only a plain host[:port] (a name, an IPv4 address or a bracketed IPv6 address) is
 * taken, lowercased, so nothing but such an origin ever reaches an answer; any other falls back.
 * Answers kept in a cache are kept per base (catalog/read-cache.ts, reviews/page-cache.ts), so one
 * Host's URLs never reach another.
 */

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?'
const AUTHORITY = new RegExp(`^(?:${LABEL}(?:\\.${LABEL})*|\\[[0-9a-f:.]{2,45}\\])(?::(\\d{1,5}))?$`)

/** Addresses a server listens on, never one a client can send to. */
const WILDCARDS = new Set(['0.0.0.0', '[::]'])

/**
 * The last URL's `scheme://authority/` and its answer. A class's requests come through one or two
 * addresses, and every answer with a file URL needs its origin: a repeat is one string comparison
 * instead of a parse.
 */
let last: { prefix: string; origin: string | undefined } = { prefix: '', origin: undefined }

/** `http(s)://host[:port]` of a request URL, or undefined when its host is not a plain one. */
export function requestOrigin(url: string): string | undefined {
  if (last.prefix !== '' && url.startsWith(last.prefix)) return last.origin
  const scheme = url.startsWith('http://') ? 'http://' : url.startsWith('https://') ? 'https://' : undefined
  if (scheme === undefined) return undefined
  const end = url.indexOf('/', scheme.length)
  const origin = checkedOrigin(scheme, url.slice(scheme.length, end < 0 ? url.length : end).toLowerCase())
  if (end >= 0) last = { prefix: url.slice(0, end + 1), origin }
  return origin
}

function checkedOrigin(scheme: string, authority: string): string | undefined {
  if (authority.length > 260) return undefined
  const match = AUTHORITY.exec(authority)
  if (!match || (match[1] !== undefined && Number(match[1]) > 65535)) return undefined
  const host = match[1] === undefined ? authority : authority.slice(0, -match[1].length - 1)
  if (WILDCARDS.has(host)) return undefined
  return scheme + authority
}

/**
 * The one source of the server's public address: `--public-url` when given; else, for an answer, the
 * origin its request was sent to, and without a request (a webhook, the banner, seeded data) the
 * machine's guessed LAN address, known once the server listens (see above).
 */
export class PublicUrl {
  constructor(
    private readonly configured: string | undefined,
    private guessed = configured ?? '',
  ) {}

  /** The address guessed once the server listens (--port 0 picks the port then); --public-url stays. */
  listening(guessed: string) {
    if (this.configured === undefined) this.guessed = guessed
  }

  /** The base of the file URLs in the answer to `request`, or without one, the configured or guessed address. */
  for(request?: Request): string {
    return this.configured ?? (request ? requestOrigin(request.url) : undefined) ?? this.guessed
  }
}
