import { useState } from 'preact/hooks'
import { ApiError, type Page } from '../api'
import { Done, ErrorNote, Field, formValues, Loaded, Pager, Section, Table, useAction, useLoad, when } from '../ui'
import { useTeacher } from './context'
import { createdMessage, parseMembers, problemsByLine } from './members-text'
import type { Group } from './types'

const PAGE_SIZE = 50

/** GET and POST /v1/admin/groups: every group gets its own store. */
export function GroupsPage() {
  const { call } = useTeacher()
  const [page, setPage] = useState(1)
  const groups = useLoad(() => call<Page<Group>>('GET', '/admin/groups', { query: { page, pageSize: PAGE_SIZE } }), [page])
  return (
    <>
      <h1>Groups</h1>
      <CreateGroup onCreated={groups.reload} />
      <Section title="All groups">
        <Loaded state={groups}>
          {(list) =>
            list.total === 0 ? (
              <p>No groups yet. Create one above, or import the class list.</p>
            ) : (
              <>
                <Table columns={['Group', { label: 'Members', num: true }, 'Store id', 'Created']}>
                  {list.data.map((g) => (
                    <tr key={g.id}>
                      <th scope="row">
                        <a href={`#/teacher/groups/${g.id}`}>{g.name}</a>
                      </th>
                      <td class="num">{g.members.length}</td>
                      <td>
                        <code>{g.storeId}</code>
                      </td>
                      <td>{when(g.createdAt)}</td>
                    </tr>
                  ))}
                </Table>
                <Pager page={list.page} pageSize={list.pageSize} total={list.total} onPage={setPage} />
              </>
            )
          }
        </Loaded>
      </Section>
    </>
  )
}

function CreateGroup({ onCreated }: { onCreated: () => void }) {
  const { call } = useTeacher()
  const action = useAction()
  const [problems, setProblems] = useState<string[]>([])
  const [created, setCreated] = useState<Group>()
  /** The lines of the members last sent, to say the server's refusal of one by its line. */
  const [sentLines, setSentLines] = useState<number[]>([])
  const refusedByLine = action.error instanceof ApiError && action.error.status === 400 ? problemsByLine(action.error.details, sentLines) : undefined
  const shown = refusedByLine ?? problems
  const submit = (event: Event) => {
    const form = event.currentTarget as HTMLFormElement
    const { name = '', members: text = '' } = formValues(event)
    const parsed = parseMembers(text)
    setProblems(parsed.problems)
    setCreated(undefined)
    // What the server said of the last try is not about this one: only the list's problems are shown.
    action.clear()
    if (parsed.problems.length) return
    setSentLines(parsed.lines)
    void action.run(async () => {
      const group = await call<Group>('POST', '/admin/groups', { body: { name, members: parsed.members } })
      form.reset()
      setCreated(group)
      onCreated()
      return group
    }, createdMessage)
  }
  return (
    <Section title="Create a group">
      <form class="stack" onSubmit={submit}>
        <Field label="Group name">
          <input name="name" required maxLength={80} />
        </Field>
        <Field label="Members (optional)" hint="One student a line: RM, a comma, the name. Example: 12345,Ana Souza">
          <textarea name="members" rows={4} spellcheck={false} />
        </Field>
        {shown.length > 0 && (
          <div class="note error" role="alert">
            <strong>Fix the members list first.</strong>
            <ul>
              {shown.map((p) => (
                <li key={p}>{p}</li>
              ))}
            </ul>
          </div>
        )}
        <div class="actions">
          <button class="primary" disabled={action.busy}>
            Create group
          </button>
        </div>
        {!refusedByLine && <ErrorNote error={action.error} />}
        <Done message={action.done} />
        {created && (
          <p>
            <a href={`#/teacher/groups/${created.id}`}>Open {created.name}</a>
          </p>
        )}
      </form>
    </Section>
  )
}
