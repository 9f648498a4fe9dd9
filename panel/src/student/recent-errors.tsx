import type { Page } from '../api'
import type { RequestEntry } from '../request-types'
import { statusTone } from '../requests'
import { Loaded, useLoad, when } from '../ui'
import { useStudent } from './context'

const SHOWN = 5

/** The app's latest refused or failed calls, from the request inspector, each a link to the whole request. */
export function RecentErrors() {
  const { call } = useStudent()
  const errors = useLoad(async () => {
    // 4xx and 5xx are two filters; the newest of both together. The app's calls only, not the panel's own.
    const pages = await Promise.all(['4xx', '5xx'].map((status) => call<Page<RequestEntry>>('GET', '/store/requests', { query: { status, client: 'app', pageSize: SHOWN } })))
    return pages
      .flatMap((p) => p.data)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
      .slice(0, SHOWN)
  })
  return (
    <section aria-labelledby="recent-errors">
      <h3 id="recent-errors">Your app's recent errors</h3>
      <Loaded state={errors}>
        {(rows) =>
          rows.length === 0 ? (
            <p class="muted">No failed requests since the server started.</p>
          ) : (
            <ul class="plain">
              {rows.map((e) => (
                <li key={e.id}>
                  <span class={`badge ${statusTone(e.status)}`}>{e.status}</span>{' '}
                  <a href={`#/store/requests/${encodeURIComponent(e.id)}`}>
                    {e.method} {e.path}
                  </a>{' '}
                  <small>
                    {when(e.createdAt)} · {e.errorCode}: {e.errorMessage}
                  </small>
                </li>
              ))}
            </ul>
          )
        }
      </Loaded>
      <p>
        <a href="#/store/requests">All requests</a>
      </p>
    </section>
  )
}
