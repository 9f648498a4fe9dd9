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

export const navigate = (path: string) => {
  location.hash = path
}
