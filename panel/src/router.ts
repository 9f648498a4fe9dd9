import { useEffect, useState } from 'preact/hooks'

/**
 * Hash routes (`/panel#/store/orders`): the server serves one page, and a reload or a shared link
 * opens the same screen.
 */
const current = () => decodeURI(location.hash.replace(/^#/, '')) || '/'

export function useRoute(): string {
  const [route, setRoute] = useState(current)
  useEffect(() => {
    const update = () => setRoute(current())
    addEventListener('hashchange', update)
    return () => removeEventListener('hashchange', update)
  }, [])
  return route
}

/** Opens `path`; `replace` puts it in place of the address shown, so Back skips it (a filter being typed). */
export const navigate = (path: string, { replace = false } = {}) => {
  if (replace) location.replace(`#${path}`)
  else location.hash = path
}

/** Where each list was last shown, its filters and page included: its detail page's way back. */
const listsShown = new Map<string, string>()
export const rememberList = (path: string, query: URLSearchParams) => listsShown.set(path, `#${path}${query.size ? `?${query}` : ''}`)
export const listAddress = (path: string) => listsShown.get(path) ?? `#${path}`

/** Shows the list at `path` with these query parameters (empty ones left out), as an address a reload keeps. */
export function showList(path: string, params: Record<string, string | number>, options?: { replace?: boolean }) {
  const query = new URLSearchParams()
  for (const [name, value] of Object.entries(params)) if (value !== '' && !(name === 'page' && value === 1)) query.set(name, String(value))
  navigate(`${path}${query.size ? `?${query}` : ''}`, options)
}
