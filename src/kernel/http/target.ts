/**
 * Where the request's path starts in request.url, as the router reads it. Bun builds request.url
 * from the Host header: a valid host gives an absolute URL, already normalized, but any other leaves
 * the URL as sent (`Host: x:99999`) or the path alone (`Host: a b`), which `new URL` refuses.
 */
export const pathStart = (url: string) => (url.startsWith('/') ? 0 : url.indexOf('/', url.indexOf('://') + 3))

/** The path and the query string (without "?", "" for none) of a request.url. */
export function targetOf(url: string) {
  const start = pathStart(url)
  if (start < 0) return { path: '/', query: '' }
  const query = url.indexOf('?', start)
  return query < 0 ? { path: url.slice(start), query: '' } : { path: url.slice(start, query), query: url.slice(query + 1) }
}
