import { useState } from 'preact/hooks'
import { ConfirmButton, CopyButton, Done, ErrorNote, Field, formValues, Loaded, Paged, Reveal, Section, Table, useAction, useLoad, when } from '../ui'
import { useShownOnce } from '../shown-once'
import { useStudent } from './context'
import type { Delivery, EventTypeList, ListenerList, RegisteredWebhook, Webhook } from './types'
import type { Page } from '../api'

const TONE = { PENDING: 'warn', SUCCEEDED: 'good', FAILED: 'bad' }

/**
 * `storefront listen` for an app on the student's own machine: the command to paste, with this server's
 * address, and who is listening now (the listen secret is printed by the command, never shown here).
 */
function Listening() {
  const { call } = useStudent()
  const listeners = useLoad(() => call<ListenerList>('GET', '/webhooks/listeners'))
  const command = `storefront listen --server ${location.origin} --key sk_... --forward-to http://localhost:5173/webhooks`
  return (
    <Section
      title="Listening from your machine"
      actions={
        <button type="button" onClick={listeners.reload}>
          Refresh listeners
        </button>
      }
    >
      <p>
        While you develop, run this on the machine where your app runs (with your secret key, and your app's webhook URL): it forwards the store's events to your app, signed
        with the secret it prints. No certificate or firewall rule is needed. Add <code>--events order.paid,order.cancelled</code> to receive only those.{' '}
        <code>storefront</code> is the executable your teacher hands out; from a clone of the Storefront repository, run <code>npm start -- listen ...</code> with the same options.
      </p>
      <pre aria-label="listen command">{command}</pre>
      <CopyButton text={command} label="Copy command" />
      <Loaded state={listeners}>
        {({ data, limit }) =>
          data.length === 0 ? (
            <p class="muted">Nobody is listening now.</p>
          ) : (
            <Table columns={['Connected', 'Events', 'Opened with', 'Events sent']} caption={{ text: `${data.length} of ${limit} listening` }}>
              {data.map((l, i) => (
                <tr key={i}>
                  <td>{when(l.connectedAt)}</td>
                  <td>{l.events.join(', ')}</td>
                  <td>{l.credential === 'student' ? `student token${l.rm ? ` (${l.rm})` : ''}` : `secret key${l.rm ? ` (${l.rm})` : ''}`}</td>
                  <td>{l.forwarded}</td>
                </tr>
              ))}
            </Table>
          )
        }
      </Loaded>
    </Section>
  )
}

/** Listening from the student's machine, webhook endpoints (register, ping, remove) and every delivery attempt with what was signed. */
export function WebhooksPage() {
  const { call, rm } = useStudent()
  const endpoints = useLoad(() => call<Page<Webhook>>('GET', '/webhooks', { query: { pageSize: 100 } }))
  const events = useLoad(() => call<EventTypeList>('GET', '/webhooks/events'))
  const [registered, setRegistered] = useShownOnce<RegisteredWebhook>(`signing secret of ${rm}`)
  const [filter, setFilter] = useState({ webhookId: '', page: 1 })
  const deliveries = useLoad(() => call<Page<Delivery>>('GET', '/webhooks/deliveries', { query: { ...filter, pageSize: 20 } }), [filter])
  const action = useAction()
  const refresh = () => (endpoints.reload(), deliveries.reload())

  const register = (event: Event) => {
    const form = event.currentTarget as HTMLFormElement
    const { url = '', description } = formValues(event)
    const chosen = new FormData(form).getAll('events').map(String)
    void action.run(async () => {
      // Said in the form's words before the API's (which names the JSON list it takes).
      if (chosen.length === 0) throw new Error('Tick the events this endpoint receives, or "all events (*)".')
      const endpoint = await call<RegisteredWebhook>('POST', '/webhooks', { body: { url, events: chosen, ...(description ? { description } : {}) } })
      setRegistered(endpoint)
      form.reset()
      refresh()
    })
  }
  const ping = (w: Webhook) =>
    action.run(async () => {
      await call('POST', `/webhooks/${w.id}/ping`)
      deliveries.reload()
    }, `Ping queued for ${w.url}: its delivery appears below.`)
  const remove = (w: Webhook) =>
    action.run(async () => {
      await call('DELETE', `/webhooks/${w.id}`)
      refresh()
    }, `${w.url} removed: it gets no more events.`)
  const redeliver = (d: Delivery) =>
    action.run(async () => {
      await call('POST', `/webhooks/deliveries/${d.id}/redeliver`)
      deliveries.reload()
    }, `${d.eventType} sent again.`)

  return (
    <>
      <Listening />
      <Section title="Webhook endpoints">
        <form class="stack" onSubmit={register}>
          <Field label="URL" hint="https:// (http:// only when the teacher allows insecure webhooks on the LAN).">
            <input name="url" type="url" required placeholder="https://my-shop.example/webhooks" />
          </Field>
          <fieldset>
            <legend>Events</legend>
            <Loaded state={events}>
              {({ data }) => (
                <div class="actions">
                  <label>
                    <input type="checkbox" name="events" value="*" /> all events (*)
                  </label>
                  {data.map((e) => (
                    <label key={e.name} title={e.description}>
                      <input type="checkbox" name="events" value={e.name} /> {e.name}
                    </label>
                  ))}
                </div>
              )}
            </Loaded>
          </fieldset>
          <Field label="Description (optional)">
            <input name="description" maxLength={200} />
          </Field>
          <div class="actions">
            <button class="primary" disabled={action.busy}>
              Register endpoint
            </button>
          </div>
        </form>
        {registered && (
          <Reveal secret={registered.signingSecret} copyLabel="Copy secret" onDone={() => setRegistered(undefined)}>
            <strong>Copy the signing secret of {registered.url} now: it is shown only this once.</strong> Your receiver checks <code>X-Signature</code> with it.
          </Reveal>
        )}
        <ErrorNote error={action.error} />
        <Done message={action.done} />
        <Loaded state={endpoints}>
          {({ data }) =>
            data.length === 0 ? (
              <p class="muted">No endpoints yet.</p>
            ) : (
              <Table columns={['URL', 'Events', 'Actions']}>
                {data.map((w) => (
                  <tr key={w.id}>
                    <td>
                      {w.url}
                      {w.description && <small>{w.description}</small>}
                    </td>
                    <td>{w.events.join(', ')}</td>
                    <td>
                      <div class="actions">
                        <button type="button" disabled={action.busy} onClick={() => ping(w)}>
                          Ping
                        </button>
                        <button type="button" aria-label={`Deliveries to ${w.url}`} onClick={() => setFilter({ webhookId: w.id, page: 1 })}>
                          Its deliveries
                        </button>
                        <ConfirmButton label="Remove" question={`Remove ${w.url}?`} onConfirm={() => remove(w)} disabled={action.busy} />
                      </div>
                    </td>
                  </tr>
                ))}
              </Table>
            )
          }
        </Loaded>
      </Section>
      <Section
        title="Deliveries"
        actions={
          <div class="actions">
            {filter.webhookId && (
              <button type="button" onClick={() => setFilter({ webhookId: '', page: 1 })}>
                All endpoints
              </button>
            )}
            <button type="button" onClick={deliveries.reload}>
              Refresh
            </button>
          </div>
        }
      >
        {filter.webhookId && <p data-testid="deliveries-of">{`The deliveries to ${endpoints.data?.data.find((w) => w.id === filter.webhookId)?.url ?? filter.webhookId} only.`}</p>}
        <Paged state={deliveries} empty="No deliveries yet. Ping an endpoint, or pay an order, to see one." onPage={(page) => setFilter({ ...filter, page })}>
          {(rows) => (
            <>
              {rows.map((d) => (
                <details key={d.id} class="delivery">
                  <summary>
                    <span class={`badge ${TONE[d.status]}`}>{d.status}</span> {d.eventType} · attempt {d.attempt}
                    {d.redelivery && ' (redelivery)'} · {d.responseStatus ?? d.error ?? 'not sent yet'} · {when(d.sentAt ?? d.scheduledAt)}
                  </summary>
                  <dl>
                    <dt>Endpoint</dt>
                    <dd>
                      <code>{d.webhookId}</code>
                    </dd>
                    {d.durationMs !== null && (
                      <>
                        <dt>Took</dt>
                        <dd>{d.durationMs} ms</dd>
                      </>
                    )}
                    {d.error && (
                      <>
                        <dt>Error</dt>
                        <dd>{d.error}</dd>
                      </>
                    )}
                    {d.nextRetryAt && (
                      <>
                        <dt>Next retry</dt>
                        <dd>{when(d.nextRetryAt)}</dd>
                      </>
                    )}
                  </dl>
                  <h3>Signed text</h3>
                  <p class="muted">
                    <code>X-Signature</code> is <code>sha256=</code> + the hex HMAC-SHA256 of this text (<code>X-Timestamp</code>, a dot, the body) with your signing secret.
                  </p>
                  <pre>{d.signedPayload ?? '(not sent yet)'}</pre>
                  {d.requestHeaders && (
                    <>
                      <h3>Headers sent</h3>
                      <pre>{Object.entries(d.requestHeaders).map(([k, v]) => `${k}: ${v}`).join('\n')}</pre>
                    </>
                  )}
                  <h3>Response body</h3>
                  <pre>{d.responseBody ?? '(none)'}</pre>
                  <button type="button" disabled={action.busy} onClick={() => redeliver(d)}>
                    Redeliver
                  </button>
                </details>
              ))}
            </>
          )}
        </Paged>
      </Section>
    </>
  )
}
