import { useMemo } from 'preact/hooks'
import { useRoute } from '../router'
import { RequestList, RequestView, type Inspector } from '../requests'
import { useStudent } from './context'

const ROUTE = '/store/requests'

/** The store's request inspector: the list at #/store/requests (its filters after a `?`), one request at #/store/requests/<id>. */
export function RequestsPage() {
  const { call, stream } = useStudent()
  const inspector = useMemo<Inspector>(() => ({ call, stream, api: '/store/requests', route: ROUTE }), [call, stream])
  const [path, query = ''] = useRoute().split('?')
  const id = path!.slice(ROUTE.length + 1)
  return id ? <RequestView inspector={inspector} id={decodeURIComponent(id)} /> : <RequestList inspector={inspector} query={new URLSearchParams(query)} />
}
