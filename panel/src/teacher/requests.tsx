import { useMemo } from 'preact/hooks'
import { RequestList, RequestView, type Inspector } from '../requests'
import { Loaded, useLoad } from '../ui'
import { useTeacher } from './context'
import type { Group } from './types'

/** A group's request inspector, as its students see it: #/teacher/groups/<id>/requests[/<request id>]. */
export function GroupRequestsPage({ id, route }: { id: string; route: string }) {
  const { call, stream } = useTeacher()
  const base = `/teacher/groups/${id}/requests`
  const inspector = useMemo<Inspector>(() => ({ call, stream, api: `/admin/groups/${encodeURIComponent(id)}/requests`, route: base }), [call, stream, id])
  const group = useLoad(() => call<Group>('GET', `/admin/groups/${encodeURIComponent(id)}`), [id])
  const [path, query = ''] = route.split('?')
  const requestId = path!.slice(base.length + 1)
  return (
    <>
      <p>
        <a href={`#/teacher/groups/${id}`}>← Group</a>
      </p>
      <Loaded state={group}>{(g) => <h1>{g.name}</h1>}</Loaded>
      {requestId ? <RequestView inspector={inspector} id={decodeURIComponent(requestId)} /> : <RequestList inspector={inspector} query={new URLSearchParams(query)} />}
    </>
  )
}
