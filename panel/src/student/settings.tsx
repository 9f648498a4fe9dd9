import { useEffect, useRef, useState } from 'preact/hooks'
import { Done, ErrorNote, Field, Section, useAction } from '../ui'
import { applyColor, textOn } from './color'
import { useStudent } from './context'
import type { Settings } from './types'

/** GET and PUT /v1/store/settings, with the colour previewed live before it is saved. */
export function SettingsPage() {
  const { call, settings, setSettings } = useStudent()
  const [draft, setDraft] = useState<Settings>(settings)
  const action = useAction()
  const set = (field: keyof Settings) => (event: Event) => setDraft({ ...draft, [field]: (event.currentTarget as HTMLInputElement).value })
  const colorOk = /^#[0-9a-fA-F]{6}$/.test(draft.primaryColor)
  const preview = colorOk ? draft.primaryColor : settings.primaryColor
  // The whole panel previews the colour; leaving the page without saving puts the saved one back.
  const saved = useRef(settings)
  saved.current = settings
  useEffect(() => applyColor(preview), [preview])
  useEffect(() => () => applyColor(saved.current.primaryColor), [])
  const save = (event: Event) => {
    event.preventDefault()
    const changes = Object.fromEntries(
      Object.entries(draft)
        .filter(([k, v]) => v !== settings[k as keyof Settings])
        .map(([k, v]) => [k, k === 'supportEmail' && v === '' ? null : v]),
    )
    void action.run(async () => {
      const saved = await call<Settings>('PUT', '/store/settings', { body: changes })
      setSettings(saved)
      setDraft(saved)
      return saved
    }, Object.keys(changes).length ? 'Settings saved.' : 'Nothing changed.')
  }
  return (
    <Section title="Store settings">
      <div class="split">
        <form class="stack" onSubmit={save}>
          <Field label="Store name">
            <input value={draft.storeName} onInput={set('storeName')} required maxLength={80} />
          </Field>
          <Field label="Primary colour" hint="#rrggbb. The panel and your shop app can use it.">
            <span class="actions">
              <input type="color" aria-label="Pick the primary colour" value={preview} onInput={set('primaryColor')} />
              <input value={draft.primaryColor} onInput={set('primaryColor')} aria-label="Primary colour" aria-invalid={!colorOk} size={9} />
            </span>
          </Field>
          <Field label="Support e-mail" hint="Leave empty for none.">
            <input type="email" value={draft.supportEmail ?? ''} onInput={set('supportEmail')} />
          </Field>
          <Field label="Locale" hint="A BCP 47 tag, e.g. pt-BR or en-US.">
            <input value={draft.locale} onInput={set('locale')} required />
          </Field>
          <Field label="Currency" hint="An ISO 4217 code, e.g. BRL.">
            <input value={draft.currency} onInput={set('currency')} required maxLength={3} />
          </Field>
          <div class="actions">
            <button class="primary" disabled={action.busy}>
              Save settings
            </button>
            <button type="button" onClick={() => setDraft(settings)}>
              Undo changes
            </button>
          </div>
          <ErrorNote error={action.error} />
          <Done message={action.done} />
        </form>
        <figure class="preview" style={{ '--preview': preview }} aria-label="Preview of the primary colour">
          <div class="bar" style={{ color: textOn(preview) }}>{draft.storeName || 'Your store'}</div>
          <div class="body">
            <span>Tênis de corrida</span>
            <button type="button" class="buy" style={{ color: textOn(preview) }} tabIndex={-1}>
              Add to cart
            </button>
            <small>Preview: {preview}</small>
          </div>
        </figure>
      </div>
    </Section>
  )
}
