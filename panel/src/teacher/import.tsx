import { useState } from 'preact/hooks'
import { decodeTextFile } from '../../../src/kernel/text-file'
import { ApiError } from '../api'
import { Done, ErrorNote, Field, Section, useAction } from '../ui'
import { useTeacher } from './context'
import type { ImportSummary } from './types'

/** A problem of the class list as the server reports it: a plain line, or `{path?, message}`. */
function problemText(detail: unknown): string | undefined {
  if (typeof detail === 'string') return detail
  const { path, message } = (detail ?? {}) as { path?: unknown; message?: unknown }
  if (typeof message !== 'string') return undefined
  return typeof path === 'string' && path && !message.startsWith(path) ? `${path}: ${message}` : message
}

const EXAMPLE = 'group,rm,name\nAlpha,12345,Ana Souza\nAlpha,12346,Bruno Lima\nBeta,12347,Carla Dias'

/** POST /v1/admin/groups/import: the class list as CSV (`group,rm,name`); one bad row and nothing is imported. */
export function ImportPage() {
  const { call } = useTeacher()
  const action = useAction()
  const [text, setText] = useState('')
  const [answer, setAnswer] = useState<ImportSummary>()
  const pick = async (event: Event) => {
    const file = (event.currentTarget as HTMLInputElement).files?.[0]
    if (file) setText(decodeTextFile(new Uint8Array(await file.arrayBuffer())).text)
  }
  const send = (event: Event) => {
    event.preventDefault()
    setAnswer(undefined)
    void action.run(async () => {
      const body = await call<ImportSummary>('POST', '/admin/groups/import', { raw: { body: text, type: 'text/csv' } })
      setAnswer(body)
      return body
    }, summary)
  }
  const failed = action.error instanceof ApiError ? action.error : undefined
  const problems = (failed?.details ?? []).map(problemText).filter((p): p is string => !!p)
  const moved = answer?.moved ?? []
  const renamed = answer?.renamed ?? []
  const emptied = answer?.groupsLeftEmpty ?? []
  return (
    <>
      <h1>Import the class list</h1>
      <p>
        A CSV file with one student a line: <code>group,rm,name</code> (or separated by semicolons, as a spreadsheet in Portuguese saves it; a header line is optional). Missing groups are created; students already in their group are left as they
        are, but for their name, which the list corrects. A student another group holds is moved to the group the list names: their sessions end and their password is the RM again. If any line has a problem,
        nothing is imported: fix the lines listed and send again.
      </p>
      <Section title="Class list">
        <form class="stack" onSubmit={send}>
          <Field label="CSV file" hint="Or paste the list in the box below.">
            <input type="file" accept=".csv,text/csv,text/plain" onChange={pick} />
          </Field>
          <Field label="Class list (CSV)">
            <textarea name="csv" rows={10} spellcheck={false} placeholder={EXAMPLE} value={text} onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)} required />
          </Field>
          <div class="actions">
            <button class="primary" disabled={action.busy || text.trim() === ''}>
              Import
            </button>
          </div>
        </form>
        {failed ? (
          <div>
            {/* The server's message is written for an API call ("what details lists"); here the list is below it. */}
            <ErrorNote
              error={
                new ApiError(
                  failed.status,
                  failed.code,
                  problems.length > 0
                    ? `${problems.length === 1 ? 'A problem' : `${problems.length} problems`} in the class list: nothing was imported. Fix what is listed below and import the whole list again.`
                    : failed.message,
                )
              }
            />
            {problems.length > 0 && (
              <>
                <h3>Problems, by line</h3>
                <ul class="problems">
                  {problems.map((p) => (
                    <li key={p}>{p}</li>
                  ))}
                </ul>
              </>
            )}
          </div>
        ) : (
          <ErrorNote error={action.error} />
        )}
        <Done message={action.done} />
        {moved.length > 0 && (
          <>
            <h3>Moved from another group</h3>
            <p>Their sessions ended and their password is the RM again.</p>
            <ul class="problems">
              {moved.map((m) => (
                <li key={m.rm}>
                  line {m.line}: RM {m.rm} from {m.from} to {m.to}
                  {m.renamedFrom !== undefined && `, renamed from ${m.renamedFrom}`}
                </li>
              ))}
            </ul>
          </>
        )}
        {renamed.length > 0 && (
          <>
            <h3>Renamed as the list writes them</h3>
            <ul class="problems">
              {renamed.map((r) => (
                <li key={r.rm}>
                  line {r.line}: RM {r.rm} from {r.from} to {r.to}
                </li>
              ))}
            </ul>
          </>
        )}
        {emptied.length > 0 && <p>Left with no members (kept, with their store): {emptied.join(', ')}.</p>}
        {answer !== undefined && (
          <details class="t-details">
            <summary>The server's answer</summary>
            <pre>{JSON.stringify(answer, null, 2)}</pre>
          </details>
        )}
        {answer !== undefined && (
          <p>
            <a href="#/teacher/groups">See the groups</a>
          </p>
        )}
      </Section>
    </>
  )
}

/** Counts whose key alone says too little: a student moved may be renamed too, and is counted as moved. */
const LABELS: Record<string, string> = { studentsRenamed: 'students renamed in their own group' }

/** One sentence from the import summary, whatever counts it carries. */
function summary(body: ImportSummary): string {
  const counts = Object.entries(body).filter((e): e is [string, number] => typeof e[1] === 'number')
  if (counts.length === 0) return 'The class list was imported.'
  const words = (key: string) => LABELS[key] ?? key.replace(/([A-Z])/g, ' $1').toLowerCase()
  return `The class list was imported: ${counts.map(([k, n]) => `${words(k)} ${n}`).join(', ')}.`
}
