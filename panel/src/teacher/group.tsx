import { useState } from 'preact/hooks'
import { AddMemberForm, ConfirmButton, CopyButton, Done, ErrorNote, formValues, Loaded, Section, Table, useAction, useLoad, when } from '../ui'
import { ApiError } from '../api'
import { useTeacher } from './context'
import type { Group, Member, ResetAnswer, SeedAnswer } from './types'

/** One group: GET /v1/admin/groups/:id, its members, password resets and the store's seed and reset. */
export function GroupPage({ id }: { id: string }) {
  const { call } = useTeacher()
  const group = useLoad(() => call<Group>('GET', `/admin/groups/${encodeURIComponent(id)}`), [id])
  return (
    <>
      <p>
        <a href="#/teacher/groups">← All groups</a>
      </p>
      <Loaded state={group}>
        {(g) => (
          <>
            <h1>{g.name}</h1>
            <Rename group={g} onChange={group.reload} />
            <p>
              Store id <code>{g.storeId}</code> <CopyButton text={g.storeId} label="Copy store id" /> · created {when(g.createdAt)} ·{' '}
              <a href={`#/teacher/activity?group=${g.id}`}>Activity of {g.name}</a> · <a href={`#/teacher/groups/${g.id}/requests`}>Requests of {g.name}</a>
            </p>
            <Members group={g} onChange={group.reload} />
            <Store group={g} />
          </>
        )}
      </Loaded>
    </>
  )
}

function Members({ group, onChange }: { group: Group; onChange: () => void }) {
  const { call } = useTeacher()
  const action = useAction()
  const add = (event: Event) => {
    const form = event.currentTarget as HTMLFormElement
    const { rm = '', name = '' } = formValues(event)
    void action.run(async () => {
      const member = await call<Member>('POST', `/admin/groups/${group.id}/members`, { body: { rm, name } })
      form.reset()
      onChange()
      return member
    }, (m) => `${m.name} joined ${group.name}. Their first password is their RM (${m.rm}).`)
  }
  const reset = (m: Member) =>
    action.run(
      () => call('POST', `/admin/students/${encodeURIComponent(m.rm)}/reset-password`),
      `${m.name}'s password is their RM (${m.rm}) again, and every session of theirs has ended. They choose a new password at the next sign-in.`,
    )
  const remove = (m: Member) =>
    action.run(async () => {
      await call('DELETE', `/admin/groups/${group.id}/members/${encodeURIComponent(m.rm)}`)
      onChange()
    }, `${m.name} (${m.rm}) left ${group.name}: their sessions ended, and their calls stay counted for ${group.name} under their name. The RM may join another group.`)
  return (
    <Section title="Members">
      <ErrorNote error={action.error} />
      <Done message={action.done} />
      {group.members.length === 0 ? (
        <p>No members yet.</p>
      ) : (
        <Table columns={['RM', 'Name', 'Password', 'Membership']}>
          {group.members.map((m) => (
            <tr key={m.rm}>
              <td>{m.rm}</td>
              <th scope="row">{m.name}</th>
              <td>
                <ConfirmButton label="Reset password" question={`Reset ${m.name}'s password to the RM?`} onConfirm={() => reset(m)} disabled={action.busy} />
              </td>
              <td>
                <ConfirmButton label="Remove" question={`Remove ${m.name} from ${group.name}?`} onConfirm={() => remove(m)} disabled={action.busy} />
              </td>
            </tr>
          ))}
        </Table>
      )}
      <h3>Add a member</h3>
      <AddMemberForm onSubmit={add} busy={action.busy} />
    </Section>
  )
}

/** A new name for the group: PATCH /v1/admin/groups/:id. */
function Rename({ group, onChange }: { group: Group; onChange: () => void }) {
  const { call } = useTeacher()
  const action = useAction()
  const rename = (event: Event) => {
    const { name = '' } = formValues(event)
    void action.run(async () => {
      const renamed = await call<Group>('PATCH', `/admin/groups/${group.id}`, { body: { name } })
      onChange()
      return renamed
    }, (g) => `The group is named ${g.name} now. Its store keeps the name its students gave it.`)
  }
  return (
    <details class="t-details">
      <summary>Rename the group</summary>
      <form onSubmit={rename}>
        <label>
          New name <input name="name" required maxLength={80} defaultValue={group.name} />
        </label>{' '}
        <button type="submit" disabled={action.busy}>
          Rename
        </button>
      </form>
      <ErrorNote error={action.error} />
      <Done message={action.done} />
    </details>
  )
}

function Store({ group }: { group: Group }) {
  const { call } = useTeacher()
  const action = useAction()
  const [answer, setAnswer] = useState<{ what: 'seed'; body: SeedAnswer } | { what: 'reset'; body: ResetAnswer }>()
  const seed = () =>
    action.run(async () => {
      setAnswer(undefined)
      const body = await call<SeedAnswer>('POST', `/admin/groups/${group.id}/seed-demo`, { body: {} })
      setAnswer({ what: 'seed', body })
      return body
    }, (b) => `The store of ${group.name} now has ${b.products} products, ${b.customers.length} customers and ${b.orders} paid orders.`)
  const reset = () =>
    action.run(async () => {
      setAnswer(undefined)
      const body = await call<ResetAnswer>('POST', `/admin/groups/${group.id}/reset-store`)
      setAnswer({ what: 'reset', body })
      return body
    }, (b) => `The store of ${group.name} is empty again (${Object.values(b.removed).reduce((a, n) => a + n, 0)} rows removed). Members, API keys and settings stayed.`)
  return (
    <Section title="Store">
      <p>
        Seed fills an empty store with a demo catalog, customers and orders, so the group can start at once. Reset empties the store: catalog, media, customers, orders, reviews and
        webhooks. Members, API keys and settings stay.
      </p>
      <div class="actions">
        <button type="button" class="primary" onClick={seed} disabled={action.busy}>
          Seed demo data
        </button>
        <ConfirmButton label="Reset store" question={`Empty the store of ${group.name}? This cannot be undone.`} onConfirm={reset} disabled={action.busy} />
      </div>
      {action.busy && <p aria-busy="true">Working…</p>}
      <ErrorNote error={action.error} />
      {action.error instanceof ApiError && action.error.code === 'CONFLICT' && action.error.message.includes('/reset-store') && (
        <p class="muted">On this page: press Reset store above, then Seed demo data.</p>
      )}
      <Done message={action.done} />
      {answer?.what === 'seed' && answer.body.customers.length > 0 && (
        <Table caption={{ text: 'Demo customers the group can sign in as' }} columns={['E-mail', 'Password']}>
          {answer.body.customers.map((c) => (
            <tr key={c.email}>
              <td class="email">{c.email}</td>
              <td>
                <code>{c.password}</code>
              </td>
            </tr>
          ))}
        </Table>
      )}
      {answer && (
        <details class="t-details">
          <summary>The server's answer</summary>
          <pre>{JSON.stringify(answer.body, null, 2)}</pre>
        </details>
      )}
    </Section>
  )
}
