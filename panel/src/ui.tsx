import { cloneElement, isValidElement, type ComponentChildren } from 'preact'
import { useCallback, useEffect, useId, useLayoutEffect, useRef, useState } from 'preact/hooks'
import { ApiError, type Page } from './api'

/** Loads data on mount and when `deps` change; `reload` fetches again after a change. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = []) {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true })
  const [version, setVersion] = useState(0)
  useEffect(() => {
    let live = true
    setState((s) => ({ ...s, loading: true }))
    load().then(
      (data) => live && setState({ data, loading: false }),
      (error) => live && setState({ error, loading: false }),
    )
    return () => {
      live = false
    }
  }, [...deps, version])
  const reload = useCallback(() => setVersion((v) => v + 1), [])
  return { ...state, reload }
}

/**
 * Runs one user action at a time: `busy` disables its button, a failure is kept in `error` for an
 * ErrorNote, and `done` holds the last success message.
 */
export function useAction() {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>()
  const [done, setDone] = useState<string>()
  const run = async <T,>(action: () => Promise<T>, success?: string | ((value: T) => string)): Promise<T | undefined> => {
    setBusy(true)
    setError(undefined)
    setDone(undefined)
    try {
      const value = await action()
      if (success) setDone(typeof success === 'string' ? success : success(value))
      return value
    } catch (e) {
      setError(e)
      return undefined
    } finally {
      setBusy(false)
    }
  }
  return { busy, error, done, run, clear: () => (setError(undefined), setDone(undefined)) }
}

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null
  const e = error instanceof ApiError ? error : new ApiError(0, 'ERROR', String((error as Error)?.message ?? error))
  // Details the message already quotes are not repeated.
  const details = (e.details ?? []).filter(
    (d): d is { path?: string; message: string } => typeof (d as { message?: unknown })?.message === 'string' && !e.message.includes((d as { message: string }).message),
  )
  return (
    <div class="note error" role="alert">
      <strong>{e.message}</strong>
      {e.status > 0 && (
        <span class="code">
          {' '}
          {e.status} {e.code}
        </span>
      )}
      {details.length > 0 && (
        <ul>
          {details.map((d, i) => (
            <li key={i}>{d.path ? `${d.path}: ${d.message}` : d.message}</li>
          ))}
        </ul>
      )}
    </div>
  )
}

/**
 * What an action did. It takes the focus when it appears: the button that was pressed may be gone (a
 * revoked key's row), and a keyboard or screen-reader user would be left at the top of the page with
 * nothing said; from the message, Tab goes on from where the action was.
 */
export function Done({ message }: { message?: string }) {
  const note = useRef<HTMLParagraphElement>(null)
  useLayoutEffect(() => {
    if (message) note.current?.focus()
  }, [message])
  return message ? (
    <p class="note ok" role="status" tabIndex={-1} ref={note}>
      {message}
    </p>
  ) : null
}

/**
 * What a loaded screen shows while waiting or after failing (with Try again, for a server that was
 * restarted or a network that came back); the children once data is there.
 */
export function Loaded<T>({ state, children }: { state: { data?: T; error?: unknown; loading: boolean; reload?: () => void }; children: (data: T) => ComponentChildren }) {
  if (state.error)
    return (
      <>
        <ErrorNote error={state.error} />
        {state.reload && (
          <button type="button" onClick={state.reload} disabled={state.loading}>
            Try again
          </button>
        )}
      </>
    )
  if (state.data === undefined) return <p aria-busy="true">Loading…</p>
  return <>{children(state.data)}</>
}

/**
 * A labelled form control. The label and the hint are separate elements tied to the control by
 * `for` and `aria-describedby`, so a screen reader reads the label alone as the control's name.
 */
export function Field({ label, hint, children }: { label: string; hint?: string; children: ComponentChildren }) {
  const id = useId()
  const control =
    isValidElement(children) && typeof children.type === 'string' && ['input', 'select', 'textarea'].includes(children.type)
      ? cloneElement(children, { id, 'aria-describedby': hint ? `${id}-hint` : undefined })
      : children
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {control}
      {hint && <small id={`${id}-hint`}>{hint}</small>}
    </div>
  )
}

/**
 * Adding a member to a group, for the student's group page and the teacher's: RM and name with the
 * server's own rules (members/model.ts), so a wrong RM is caught before it is sent.
 */
export const AddMemberForm = ({ onSubmit, busy }: { onSubmit: (event: Event) => void; busy: boolean }) => (
  <form class="inline" onSubmit={onSubmit}>
    <Field label="RM">
      <input name="rm" required maxLength={32} pattern="[A-Za-z0-9._\-]*[A-Za-z0-9][A-Za-z0-9._\-]*" title="letters, digits, dot, dash and underscore, with at least one letter or digit" />
    </Field>
    <Field label="Name">
      <input name="name" required maxLength={120} />
    </Field>
    <button class="primary" disabled={busy}>
      Add member
    </button>
  </form>
)

/**
 * A destructive action asks once more, in place: the first press shows "Yes, …" and "Cancel",
 * both reachable by keyboard, and Escape cancels.
 */
export function ConfirmButton({ label, question, onConfirm, disabled }: { label: string; question: string; onConfirm: () => void; disabled?: boolean }) {
  const [asking, setAsking] = useState(false)
  const yes = useRef<HTMLButtonElement>(null)
  const trigger = useRef<HTMLButtonElement>(null)
  const cancelled = useRef(false)
  // A layout effect moves the focus in the same turn as the render, so a quick second Enter confirms;
  // cancelled, the focus goes back to the button that asked (it would fall to the page's top).
  useLayoutEffect(() => {
    if (asking) yes.current?.focus()
    else if (cancelled.current) trigger.current?.focus()
    cancelled.current = false
  }, [asking])
  const cancel = () => {
    cancelled.current = true
    setAsking(false)
  }
  if (!asking)
    return (
      <button type="button" class="danger" ref={trigger} disabled={disabled} onClick={() => setAsking(true)}>
        {label}
      </button>
    )
  return (
    <span class="confirm" role="group" aria-label={question} onKeyDown={(e) => e.key === 'Escape' && cancel()}>
      <span>{question}</span>
      <button
        type="button"
        class="danger"
        ref={yes}
        onClick={() => {
          setAsking(false)
          onConfirm()
        }}
      >
        Yes, {label.toLowerCase()}
      </button>
      {/* Not "Cancel": beside "Yes, cancel order" it read as the same answer. */}
      <button type="button" onClick={cancel}>
        No, keep it
      </button>
    </span>
  )
}

/** Copies to the clipboard; on plain http over the LAN (no clipboard API) it selects the text instead. */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  // What was copied, and of which text: a new text to copy (the next key made) is not "Copied" yet.
  const [copied, setCopied] = useState<{ of: string; said: string }>()
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text)
      setCopied({ of: text, said: 'Copied' })
    } catch {
      const area = document.createElement('textarea')
      area.value = text
      document.body.append(area)
      area.select()
      const ok = document.execCommand('copy')
      area.remove()
      setCopied({ of: text, said: ok ? 'Copied' : 'Select the text and copy it by hand' })
    }
  }
  return (
    <>
      <button type="button" onClick={copy}>
        {label}
      </button>
      {copied?.of === text && <span role="status"> {copied.said}</span>}
    </>
  )
}

export function Pager({ page, pageSize, total, onPage }: { page: number; pageSize: number; total: number; onPage: (page: number) => void }) {
  const pages = Math.max(1, Math.ceil(total / pageSize))
  if (pages === 1) return <p class="muted">{total} in all</p>
  return (
    <nav class="pager" aria-label="pages">
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        ← Previous
      </button>
      <span>
        page {page} of {pages} ({total} in all)
      </span>
      <button type="button" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        Next →
      </button>
    </nav>
  )
}

/**
 * The locale every store starts with (the server's default store setting): the teacher's screens write
 * dates in it, so that the projector and the students' screens read alike whatever the lab browser's language.
 */
export const CLASS_LOCALE = 'pt-BR'

/**
 * The locale dates are written in: the store's own on the student's screens (set from its settings,
 * as money is), CLASS_LOCALE on the teacher's.
 */
let dateLocale: string | undefined
export const setDateLocale = (locale: string | undefined) => {
  dateLocale = locale
}

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString(dateLocale) : '—')
/** The time of day alone, in the same locale. */
export const timeOfDay = (t: string | number | Date, options?: Intl.DateTimeFormatOptions) => new Date(t).toLocaleTimeString(dateLocale, options)
/** The date alone, in the same locale. */
export const dateOnly = (t: string | number | Date, options?: Intl.DateTimeFormatOptions) => new Date(t).toLocaleDateString(dateLocale, options)

export const bytes = (n: number) =>
  n < 1024 ? `${n} B` : n < 1024 ** 2 ? `${(n / 1024).toFixed(1)} KB` : n < 1024 ** 3 ? `${(n / 1024 ** 2).toFixed(1)} MB` : `${(n / 1024 ** 3).toFixed(2)} GB`

/** The form's fields by name, as strings (empty ones left out). */
export function formValues(event: Event): Record<string, string> {
  event.preventDefault()
  const data = new FormData(event.currentTarget as HTMLFormElement)
  const values: Record<string, string> = {}
  for (const [k, v] of data) if (typeof v === 'string' && v.trim() !== '') values[k] = v.trim()
  return values
}

/** A titled part of a screen: a landmark named by its heading, so a screen reader can jump to it. */
export function Section({ title, children, actions }: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  const id = useId()
  return (
    <section aria-labelledby={id}>
      <header class="section-head">
        <h2 id={id}>{title}</h2>
        {actions}
      </header>
      {children}
    </section>
  )
}

/** A column heading: a string, or `{ label, num }` for a right-aligned number, `{ label, hidden }` for a screen-reader-only one. */
export type Column = string | { label: string; num?: boolean; hidden?: boolean }

/** A table caption: `hidden` keeps it for screen readers only, otherwise it shows above the table. */
export type Caption = { text: ComponentChildren; hidden?: boolean }

/** A table that scrolls sideways on a narrow screen instead of squeezing its columns. */
/**
 * Whether the box scrolls sideways and has more to its right: a phone shows a wide table in a box of
 * its own, and says so, since a scroll bar on a touch screen appears only while scrolling.
 */
function useMoreToTheRight() {
  const box = useRef<HTMLDivElement>(null)
  const [more, setMore] = useState(false)
  useLayoutEffect(() => {
    const e = box.current
    if (!e) return
    const check = () => setMore(e.scrollLeft + e.clientWidth < e.scrollWidth - 1)
    check()
    const watch = new ResizeObserver(check)
    watch.observe(e)
    e.addEventListener('scroll', check, { passive: true })
    return () => {
      watch.disconnect()
      e.removeEventListener('scroll', check)
    }
  }, [])
  return { box, more }
}

export const Table = ({ columns, caption, children }: { columns: Column[]; caption?: Caption; children: ComponentChildren }) => {
  const { box, more } = useMoreToTheRight()
  return (
    <>
      <div class={more ? 'table more' : 'table'} ref={box}>
        <table>
          {caption && <caption class={caption.hidden ? 'sr-only' : 't-caption'}>{caption.text}</caption>}
          <thead>
            <tr>
              {columns.map((c, i) => {
                const { label, num, hidden } = typeof c === 'string' ? { label: c } : c
                return (
                  <th key={i} scope="col" class={num ? 'num' : undefined}>
                    {hidden ? <span class="sr-only">{label}</span> : label}
                  </th>
                )
              })}
            </tr>
          </thead>
          <tbody>{children}</tbody>
        </table>
      </div>
      {more && (
        <p class="scroll-cue" aria-hidden="true">
          Swipe or scroll sideways for more columns →
        </p>
      )}
    </>
  )
}

/** A page of a list route: its rows, a message when there are none, and the pager. */
export function Paged<T>({ state, empty, onPage, children }: { state: { data?: Page<T>; error?: unknown; loading: boolean }; empty: string; onPage: (page: number) => void; children: (rows: T[]) => ComponentChildren }) {
  return (
    <Loaded state={state}>
      {(page) =>
        page.total === 0 ? (
          <p class="muted">{empty}</p>
        ) : (
          <>
            {children(page.data)}
            <Pager page={page.page} pageSize={page.pageSize} total={page.total} onPage={onPage} />
          </>
        )
      }
    </Loaded>
  )
}

/** The frame of a sign-in screen: the title, why the last session ended, the fields, Sign in and Back, and the failure. */
export function SignInForm({ title, notice, busy, error, onSubmit, children }: { title: string; notice?: string; busy: boolean; error: unknown; onSubmit: (event: Event) => void; children: ComponentChildren }) {
  return (
    <main id="main" class="narrow">
      <h1>{title}</h1>
      {notice && (
        <p class="note error" role="alert">
          {notice}
        </p>
      )}
      <form class="stack" onSubmit={onSubmit}>
        {children}
        <div class="actions">
          <button class="primary" disabled={busy}>
            Sign in
          </button>
          <a href="#/">Back</a>
        </div>
        <ErrorNote error={error} />
      </form>
    </main>
  )
}

/** A secret the API shows only once (an API key, a signing secret), with a copy button. */
export function Reveal({ secret, copyLabel, onDone, children }: { secret: string; copyLabel: string; onDone: () => void; children: ComponentChildren }) {
  return (
    <div class="reveal" role="status">
      <p>{children}</p>
      <p class="actions">
        <code data-testid="secret">{secret}</code>
        <CopyButton text={secret} label={copyLabel} />
        <button type="button" onClick={onDone}>
          I have copied it
        </button>
      </p>
    </div>
  )
}
