import { AddMemberForm, ConfirmButton, Done, ErrorNote, formValues, Loaded, Section, Table, useAction, useLoad } from '../ui'
import { useStudent } from './context'
import type { Member, MemberList } from './types'

/** GET, POST and DELETE /v1/store/members: the group the teacher grades. */
export function MembersPage() {
  const { call, rm: me } = useStudent()
  const members = useLoad(() => call<MemberList>('GET', '/store/members'))
  const action = useAction()
  const add = (event: Event) => {
    const form = event.currentTarget as HTMLFormElement
    const { rm = '', name = '' } = formValues(event)
    void action.run(async () => {
      const member = await call<Member>('POST', '/store/members', { body: { rm, name } })
      form.reset()
      members.reload()
      return member
    }, (m) => `${m.name} joined the group. Their first password is their RM (${m.rm}).`)
  }
  const remove = (m: Member) =>
    action.run(async () => {
      await call('DELETE', `/store/members/${encodeURIComponent(m.rm)}`)
      members.reload()
    }, `${m.name} left the group.`)
  return (
    <Section title="Members">
      <p>The teacher counts each member's API calls. Send <code>X-Student-RM</code> with your RM beside the secret key so your calls count for you; calls with the publishable key count for the group's shop front.</p>
      <AddMemberForm onSubmit={add} busy={action.busy} />
      <ErrorNote error={action.error} />
      <Done message={action.done} />
      <Loaded state={members}>
        {({ data }) => (
          <Table columns={['RM', 'Name', { label: 'Actions', hidden: true }]}>
            {data.map((m) => (
              <tr key={m.rm}>
                <td>{m.rm}</td>
                <td>{m.name}</td>
                <td>
                  {/* The API refuses removing oneself (409 CANNOT_REMOVE_SELF): no button to find that out with. */}
                  {m.rm === me ? (
                    <span class="muted">you</span>
                  ) : (
                    <ConfirmButton label="Remove" question={`Remove ${m.name} from the group?`} onConfirm={() => remove(m)} disabled={action.busy} />
                  )}
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Loaded>
    </Section>
  )
}
