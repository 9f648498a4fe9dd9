import { ConfirmButton, Done, ErrorNote, Field, formValues, Loaded, Reveal, Section, Table, useAction, useLoad, when } from '../ui'
import { useShownOnce } from '../shown-once'
import { useStudent } from './context'
import type { ApiKey, CreatedKey, KeyList } from './types'

/** GET, POST and DELETE /v1/store/api-keys: the full key is shown once, right after creation. */
export function ApiKeysPage() {
  const { call, rm } = useStudent()
  const keys = useLoad(() => call<KeyList>('GET', '/store/api-keys'))
  const [created, setCreated] = useShownOnce<CreatedKey>(`api key of ${rm}`)
  const action = useAction()
  const create = (event: Event) => {
    const form = event.currentTarget as HTMLFormElement
    const { name = '', kind = 'secret' } = formValues(event)
    void action.run(async () => {
      const key = await call<CreatedKey>('POST', '/store/api-keys', { body: { name, kind } })
      setCreated(key)
      form.reset()
      keys.reload()
    })
  }
  const revoke = (key: ApiKey) =>
    action.run(async () => {
      await call('DELETE', `/store/api-keys/${key.id}`)
      if (created?.id === key.id) setCreated(undefined)
      keys.reload()
    }, `Key "${key.name}" revoked: apps using it get 401 from now on.`)
  return (
    <Section title="API keys">
      <p>Your shop app sends a key in the <code>X-API-Key</code> header. Create one per app or per person, and revoke a key that leaked.</p>
      <p>
        <strong>Which key goes where:</strong> a <em>publishable</em> key (<code>pk_</code>) goes in the browser app, where anyone can read it, and opens only
        the shop front (catalog, customers, cart, checkout); a <em>secret</em> key (<code>sk_</code>) opens everything and stays on your server only.
      </p>
      <form class="inline" onSubmit={create}>
        <Field label="Name of the new key">
          <input name="name" required maxLength={80} placeholder="e.g. mobile app" />
        </Field>
        <Field label="Kind">
          <select name="kind">
            <option value="secret">Secret (sk_): server only</option>
            <option value="publishable">Publishable (pk_): browser app</option>
          </select>
        </Field>
        <button class="primary" disabled={action.busy}>
          Create key
        </button>
      </form>
      {created && (
        <Reveal secret={created.apiKey} copyLabel="Copy key" onDone={() => setCreated(undefined)}>
          <strong>Copy the {created.kind} key "{created.name}" now: it is shown only this once.</strong> Afterwards only its prefix is visible. It stays here, even if you open another page of the panel, until you say you have copied it.
        </Reveal>
      )}
      <ErrorNote error={action.error} />
      <Done message={action.done} />
      <Loaded state={keys}>
        {({ data }) =>
          data.length === 0 ? (
            <p class="muted">No keys yet.</p>
          ) : (
            <Table columns={['Name', 'Kind', 'Prefix', 'Created', 'Last used', { label: 'Actions', hidden: true }]}>
              {data.map((key) => (
                <tr key={key.id}>
                  <td>{key.name}</td>
                  <td>{key.kind === 'publishable' ? 'Publishable (browser)' : 'Secret (server)'}</td>
                  <td>
                    <code>{key.prefix}…</code>
                  </td>
                  <td>
                    {when(key.createdAt)}
                    {key.createdBy && <small>by {key.createdBy}</small>}
                  </td>
                  <td>{when(key.lastUsedAt)}</td>
                  <td>
                    <ConfirmButton label="Revoke" question={`Revoke "${key.name}"?`} onConfirm={() => revoke(key)} disabled={action.busy} />
                  </td>
                </tr>
              ))}
            </Table>
          )
        }
      </Loaded>
    </Section>
  )
}
