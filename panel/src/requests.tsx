import { useEffect, useRef, useState } from 'preact/hooks'
import type { ApiError, CallOptions, Page } from './api'
import { CopyButton, ErrorNote, Field, Loaded, Pager, Section, Table, useLoad, when } from './ui'
import type { RequestDetail, RequestEntry } from './request-types'
import { CUSTOMER_TOKEN_HEADER, curlCommand, curlNote } from './curl'
import { listAddress, rememberList, showList } from './router'

/**
 * The request inspector: the calls made with one store's credentials, newest first, live, and each
 * one whole with both bodies and a curl command that repeats it. The student reads their own store
 * (/v1/store/requests), the teacher any group's (/v1/admin/groups/:id/requests); the screens are the same.
 */
export interface Inspector {
  call<T>(method: string, path: string, options?: CallOptions): Promise<T>
  stream(path: string, onEvent: (event: string, data: string) => void, onEnd: (error: ApiError) => void): () => void
  /** The API path of the inspector: `/store/requests` or `/admin/groups/<id>/requests`. */
  api: string
  /** The panel route of the list; an entry opens at `<route>/<id>`. */
  route: string
}

interface Filters {
  status: string
  method: string
  path: string
  rm: string
  /** Who called (the X-Storefront-Client the inspector recorded): app, panel, teacher, or '' for everyone. */
  client: string
}

/** Whose calls the list shows at first: the app's. The panel's own calls (this page's among them) would crowd it. */
const FIRST_FILTERS: Filters = { status: '', method: '', path: '', rm: '', client: 'app' }

const PAGE_SIZE = 25
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']

/** Whether a live entry belongs on the page the filters ask for (the same rules the server applies). */
function matches(entry: RequestEntry, f: Filters): boolean {
  const status = !f.status || (/^\dxx$/.test(f.status) ? String(entry.status)[0] === f.status[0] : String(entry.status) === f.status)
  return status && (!f.method || entry.method === f.method) && entry.path.startsWith(f.path) && (!f.rm || entry.rm === f.rm) && (!f.client || entry.client === f.client)
}

interface Streamed {
  after?: Page<RequestEntry>
  rows: RequestEntry[]
  updated: Record<string, RequestEntry>
}

/** What the stream brought, with one more entry: a counted entry that comes again replaces its row, where the page shows it. */
function withStreamed(s: Streamed, page: Page<RequestEntry> | undefined, entry: RequestEntry): Streamed {
  if (s.rows.some((r) => r.id === entry.id)) return { after: page, rows: s.rows.map((r) => (r.id === entry.id ? entry : r)), updated: s.updated }
  if (page?.data.some((r) => r.id === entry.id)) return { after: page, rows: s.rows, updated: { ...s.updated, [entry.id]: entry } }
  return { after: page, rows: [entry, ...s.rows].slice(0, PAGE_SIZE), updated: s.updated }
}

export const statusTone = (status: number) => (status >= 500 ? 'bad' : status >= 400 ? 'warn' : 'good')

const who = (e: RequestEntry) => `${e.credential}${e.rm ? ` · ${e.rm}` : ''}`

const CLIENT_NAMES: Record<RequestEntry['client'], string> = { app: 'the app', panel: 'the panel', teacher: 'the teacher' }

/** How the RM came to be counted: a student token is the student's; beside a key, X-Student-RM named them. */
const rmSource = (e: RequestEntry) => (e.credential === 'student' ? 'their student token' : 'X-Student-RM')

/**
 * The list's filters and page, read from its address (`#/store/requests?status=4xx&path=/v1/orders&page=2`):
 * a reload keeps them, and a request's page goes back to the list as it was left. "Who called" is the
 * app's unless the address says otherwise (`client=all` for everyone).
 */
function filtersOf(query: URLSearchParams): Filters {
  const client = query.get('client') ?? FIRST_FILTERS.client
  return { status: query.get('status') ?? '', method: query.get('method') ?? '', path: query.get('path') ?? '', rm: query.get('rm') ?? '', client: client === 'all' ? '' : client }
}

const inAddress = (f: Filters) => ({ ...f, client: f.client === FIRST_FILTERS.client ? '' : f.client || 'all' })

/**
 * A text filter as it is typed: shown at once, put in the address once typing pauses (a load and a
 * render from the address at every keystroke would undo letters typed meanwhile). The address changed
 * otherwise (Back, a link) shows what it says.
 */
function useTyped(value: string, commit: (typed: string) => void) {
  const [typed, setTyped] = useState(value)
  const committed = useRef(value)
  const latest = useRef(commit)
  latest.current = commit
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined)
  useEffect(() => {
    if (value === committed.current) return
    committed.current = value
    setTyped(value)
  }, [value])
  useEffect(() => () => clearTimeout(timer.current), [])
  const onInput = (e: Event) => {
    const text = (e.currentTarget as HTMLInputElement).value
    setTyped(text)
    clearTimeout(timer.current)
    timer.current = setTimeout(() => {
      committed.current = text.trim()
      latest.current(committed.current)
    }, 300)
  }
  return { value: typed, onInput }
}

/**
 * `query` is the list's address after its `?`, given by the page that read the route: read here, the
 * route could be a request's already (this list's last render before it goes) and be remembered as
 * the list's, without its filters.
 */
export function RequestList({ inspector, query }: { inspector: Inspector; query: URLSearchParams }) {
  const filters = filtersOf(query)
  const page = Math.max(1, Number(query.get('page')) || 1)
  rememberList(inspector.route, query)
  const show = (next: Filters, nextPage: number, replace = false) => showList(inspector.route, { ...inAddress(next), page: nextPage }, { replace })
  const setPage = (n: number) => show(filters, n)
  const [live, setLive] = useState(true)
  // What the stream brought since the page shown loaded, kept with that page: a new load already has
  // it, so rows kept for an older page are never shown (decided in render, not cleared after it).
  // `updated`: counted entries of the loaded page that came again with a higher count.
  const [streamed, setStreamed] = useState<Streamed>({ rows: [], updated: {} })
  const [streamError, setStreamError] = useState<ApiError>()
  const list = useLoad(
    () => inspector.call<Page<RequestEntry>>('GET', inspector.api, { query: { ...filters, page, pageSize: PAGE_SIZE } }),
    [inspector.api, filters.status, filters.method, filters.path, filters.rm, filters.client, page],
  )
  const shown = useRef(list.data)
  shown.current = list.data
  const current = streamed.after === list.data
  const fresh = current ? streamed.rows : []
  const updated = current ? streamed.updated : {}
  const following = live && page === 1
  useEffect(() => {
    if (!following) return
    setStreamError(undefined)
    return inspector.stream(
      `${inspector.api}/stream`,
      (event, data) => {
        if (event !== 'request') return
        const entry = JSON.parse(data) as RequestEntry
        if (!matches(entry, filters)) return
        setStreamed((s) => withStreamed(s.after === shown.current ? s : { rows: [], updated: {} }, shown.current, entry))
      },
      setStreamError,
    )
  }, [following, inspector.api, filters.status, filters.method, filters.path, filters.rm, filters.client])
  // A filter changed takes the place of the address shown (Back leaves the list); a page turned is a step of its own.
  const set = (name: keyof Filters) => (value: string) => show({ ...filters, [name]: value }, 1, true)
  const choose = (name: keyof Filters) => (e: Event) => set(name)((e.currentTarget as HTMLSelectElement).value)
  const path = useTyped(filters.path, set('path'))
  const rm = useTyped(filters.rm, set('rm'))
  return (
    <Section title="Requests">
      <p>
        Every call made with this store's keys and tokens, newest first, including the ones the server refused. Open one to see what the app sent and what came back. Failed requests keep
        both bodies; passwords, tokens and keys show as <code>[redacted]</code>. The server keeps the last 1,000 entries in memory, so a restart empties this list. Calls refused by the rate
        limit, or for a key or token that did not pass, are one entry per sender and minute, with how many there were.
      </p>
      <form class="inline" onSubmit={(e) => e.preventDefault()} aria-label="filters">
        <Field label="Status">
          <select value={filters.status} onChange={choose('status')}>
            <option value="">all</option>
            <option value="2xx">2xx success</option>
            <option value="4xx">4xx refused</option>
            <option value="5xx">5xx server error</option>
          </select>
        </Field>
        <Field label="Method">
          <select value={filters.method} onChange={choose('method')}>
            <option value="">all</option>
            {METHODS.map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>
        </Field>
        <Field label="Path starts with">
          <input {...path} placeholder="/v1/orders" spellcheck={false} />
        </Field>
        <Field label="RM">
          <input {...rm} spellcheck={false} size={10} />
        </Field>
        <Field label="Who called">
          <select value={filters.client} onChange={choose('client')}>
            <option value="app">the app</option>
            <option value="panel">the panel</option>
            <option value="teacher">the teacher</option>
            <option value="">everyone</option>
          </select>
        </Field>
        <label>
          <input type="checkbox" checked={live} onChange={(e) => setLive(e.currentTarget.checked)} />
          Live
        </label>
      </form>
      <p class="muted" role="status">
        {!live ? 'Live view paused.' : page > 1 ? 'Live view follows the first page.' : streamError ? '' : 'New requests appear at the top as they happen.'}
      </p>
      <ErrorNote error={streamError} />
      <Loaded state={list}>
        {(loaded) => {
          const rows = [...fresh, ...loaded.data.map((e) => updated[e.id] ?? e)].slice(0, PAGE_SIZE)
          if (rows.length === 0) return <p class="muted">No requests{filters.status || filters.method || filters.path || filters.rm || filters.client !== 'app' ? ' match these filters' : ' yet: they appear here as soon as an app calls the API with this store\'s key'}.</p>
          return (
            <>
              <Table columns={['Time', 'Method', 'Path', 'Status', { label: 'ms', num: true }, 'Who']} caption={{ text: 'Requests, newest first', hidden: true }}>
                {rows.map((e, i) => (
                  <tr key={`${e.id}-${i}`} class={e.status >= 400 ? 'failed' : undefined}>
                    <td>{when(e.createdAt)}</td>
                    <td>{e.method}</td>
                    <td>
                      <a href={`#${inspector.route}/${encodeURIComponent(e.id)}`}>
                        {e.path}
                        {e.query && `?${e.query}`}
                      </a>
                    </td>
                    <td>
                      <span class={`badge ${statusTone(e.status)}`}>{e.status}</span>
                      {e.errorCode && <small>{e.errorCode}</small>}
                      {e.count > 1 && <small>{`${e.count} calls, the last ${when(e.lastCreatedAt)}`}</small>}
                    </td>
                    <td class="num">{e.durationMs}</td>
                    <td>
                      {who(e)}
                      {e.fromPage !== null && <small class="warn-text">secret key in a web page</small>}
                    </td>
                  </tr>
                ))}
              </Table>
              <Pager page={loaded.page} pageSize={loaded.pageSize} total={loaded.total + fresh.length} onPage={setPage} />
            </>
          )
        }}
      </Loaded>
    </Section>
  )
}

export function RequestView({ inspector, id }: { inspector: Inspector; id: string }) {
  const entry = useLoad(() => inspector.call<RequestDetail>('GET', `${inspector.api}/${encodeURIComponent(id)}`), [inspector.api, id])
  return (
    <>
      <p>
        <a href={listAddress(inspector.route)}>← All requests</a>
      </p>
      <Loaded state={entry}>
        {(e) => (
          <Section title={`${e.method} ${e.path}`}>
            <dl>
              <dt>Status</dt>
              <dd>
                <span class={`badge ${statusTone(e.status)}`}>{e.status}</span> {e.errorCode}
              </dd>
              <dt>Time</dt>
              <dd>{when(e.createdAt)}</dd>
              {e.count > 1 && (
                <>
                  <dt>Calls</dt>
                  <dd>
                    {`${e.count} like this one from the same sender within the minute, the last ${when(e.lastCreatedAt)}. What follows is the first one.`}
                  </dd>
                </>
              )}
              <dt>Duration</dt>
              <dd>{e.durationMs} ms</dd>
              <dt>Credential</dt>
              <dd>{e.credential}</dd>
              {e.rm && (
                <>
                  <dt>RM</dt>
                  <dd>{`${e.rm} (from ${rmSource(e)})`}</dd>
                </>
              )}
              <dt>Called by</dt>
              <dd>{CLIENT_NAMES[e.client]}</dd>
              {e.fromPage !== null && (
                <>
                  <dt>From a web page</dt>
                  <dd class="note error">
                    {`This call used the store's secret key from a page at ${e.fromPage} (its browser sent that Origin). Anyone who opens the page can read the key there and manage the store with it. A page takes the publishable key (pk_...); keep the secret key on your app's server, and replace this one (revoke it on the API keys page, make a new one).`}
                  </dd>
                </>
              )}
              <dt>Query</dt>
              <dd>{e.query ? <code>?{e.query}</code> : 'none'}</dd>
              <dt>Request id</dt>
              <dd>
                <code>{e.id}</code> (the <code>X-Request-Id</code> header of the answer)
              </dd>
            </dl>
            {e.errorMessage && (
              <div class="note error">
                <strong>{e.errorMessage}</strong>
              </div>
            )}
            <h3>What the app sent</h3>
            {Object.keys(e.requestHeaders).length === 0 ? (
              <p class="muted">Request headers: {e.status < 400 ? 'not kept: headers are kept for failed requests only.' : 'none kept.'}</p>
            ) : (
              <Table columns={['Header', 'Value']} caption={{ text: 'Request headers', hidden: true }}>
                {Object.entries(e.requestHeaders).map(([name, value]) => (
                  <tr key={name}>
                    <th scope="row">{name}</th>
                    <td>
                      <code>{value}</code>
                    </td>
                  </tr>
                ))}
              </Table>
            )}
            <Body label="Request body" text={e.requestBody} truncated={e.requestBodyTruncated} entry={e} />
            <h3>What came back</h3>
            <Body label="Response body" text={e.responseBody} truncated={e.responseBodyTruncated} entry={e} />
            <h3>Repeat it with curl</h3>
            <Curl entry={e} />
            <Fix entry={e} />
          </Section>
        )}
      </Loaded>
    </>
  )
}

function Body({ label, text, truncated, entry }: { label: string; text: string | null; truncated: boolean; entry: RequestDetail }) {
  if (text === null) {
    const why =
      entry.status < 400
        ? 'not kept: bodies are kept for failed requests only.'
        : entry.bodiesDropped
          ? "let go to keep the newer failures' bodies (each store keeps 512 KB of them)."
          : 'none (a call refused before its body was read has none).'
    return <p class="muted">{`${label}: ${why}`}</p>
  }
  return (
    <figure>
      <figcaption>
        {label}
        {truncated && ' (cut at 8 KB)'}
      </figcaption>
      <pre>{pretty(text)}</pre>
    </figure>
  )
}

/** JSON indented for reading; anything else as it came. */
function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2)
  } catch {
    return text
  }
}

function Curl({ entry }: { entry: RequestDetail }) {
  const command = curlCommand(location.origin, entry)
  const note = curlNote(entry)
  return (
    <>
      <p>
        For a terminal with bash (macOS, Linux, Git Bash on Windows). Set the variables first, e.g. <code>export API_KEY={entry.credential === 'publishable' ? 'pk_…' : 'sk_…'}</code> (the kind of key this call sent); redacted values show as <code>[redacted]</code>: put
        the real ones back before running it.
        {note && ` ${note}`}
      </p>
      <pre data-testid="curl">{command}</pre>
      <CopyButton text={command} label="Copy curl command" />
    </>
  )
}

/** The credential headers a refused call lacked, when the route says which: a buyer route called without its customer token. */
function missingCredential(e: RequestDetail): string[] {
  return e.routeAuth === 'customer' && e.credential !== 'customer' ? [CUSTOMER_TOKEN_HEADER] : []
}

/** The fix, apart from the repeat of what was sent: what the route also needs, and the command with it. */
function Fix({ entry }: { entry: RequestDetail }) {
  const add = missingCredential(entry)
  if (add.length === 0) return null
  const command = curlCommand(location.origin, entry, add)
  return (
    <section aria-label="How to fix it">
      <h3>How to fix it</h3>
      <p>
        This route also needs <code>Authorization: Bearer &lt;customer token&gt;</code>, the token <code>POST /v1/customers/login</code> answers, beside the store's key. The call
        above was sent without it; with it, the command is:
      </p>
      <pre data-testid="curl-fixed">{command}</pre>
      <CopyButton text={command} label="Copy fixed curl command" />
    </section>
  )
}
