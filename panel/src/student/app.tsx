import { useEffect, useMemo, useState } from 'preact/hooks'
import { ApiError, call, openStream, signedOutNotice } from '../api'
import { saveStudent, studentSession, useSignOutNotice, type StudentSession } from '../session'
import { Shell } from '../shell'
import { ErrorNote, Field, formValues, setDateLocale, useAction, useLoad, Loaded, SignInForm } from '../ui'
import { StudentContext, type StudentApi } from './context'
import type { LoginAnswer, PasswordChanged, Settings } from './types'
import { applyColor, resetColor } from './color'
import { SettingsPage } from './settings'
import { ApiKeysPage } from './api-keys'
import { MembersPage } from './members'
import { CatalogPage } from './catalog'
import { OrdersPage } from './orders'
import { ReviewsPage } from './reviews'
import { WebhooksPage } from './webhooks'
import { MediaPage } from './media'
import { RequestsPage } from './requests'
import { OverviewPage } from './overview'

const PAGES = [
  { path: '/store/overview', label: 'Overview', Page: OverviewPage },
  { path: '/store/keys', label: 'API keys', Page: ApiKeysPage },
  { path: '/store/catalog', label: 'Catalog', Page: CatalogPage },
  { path: '/store/orders', label: 'Orders', Page: OrdersPage },
  { path: '/store/reviews', label: 'Reviews', Page: ReviewsPage },
  { path: '/store/media', label: 'Media', Page: MediaPage },
  { path: '/store/webhooks', label: 'Webhooks', Page: WebhooksPage },
  { path: '/store/requests', label: 'Requests', Page: RequestsPage },
  { path: '/store/members', label: 'Members', Page: MembersPage },
  { path: '/store/settings', label: 'Settings', Page: SettingsPage },
]

export function StudentApp({ route }: { route: string }) {
  const [session, setSession] = useState(studentSession)
  const [notice, setNotice] = useSignOutNotice('student')
  const signOut = (why?: string) => {
    saveStudent(null)
    setSession(null)
    setNotice(why)
    resetColor()
    setDateLocale(undefined)
  }
  const update = (s: StudentSession) => {
    saveStudent(s)
    setNotice(undefined)
    setSession(s)
  }
  if (!session) return <Login onSignedIn={update} notice={notice} />
  if (session.mustChangePassword) return <ChangePassword session={session} onChanged={update} onSignOut={() => signOut()} />
  return <SignedIn session={session} route={route} onSignOut={signOut} />
}

function SignedIn({ session, route, onSignOut }: { session: StudentSession; route: string; onSignOut: (why?: string) => void }) {
  const request = async <T,>(method: string, path: string, options?: Parameters<typeof call>[3]) => {
    try {
      return await call<T>({ student: session.token }, method, path, options)
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) onSignOut(signedOutNotice(e))
      throw e
    }
  }
  const loaded = useLoad(() => request<Settings>('GET', '/store/settings'), [session.token])
  // Who the student is now: the teacher may have renamed the group, or the student, since the sign-in.
  const me = useLoad(() => request<{ student: { name: string; group: string } }>('GET', '/store/auth/me'), [session.token])
  const who = me.data?.student ?? session
  const [settings, setSettings] = useState<Settings>()
  const current = settings ?? loaded.data
  useEffect(() => {
    if (current) applyColor(current.primaryColor)
  }, [current?.primaryColor])
  const api = useMemo<StudentApi | null>(() => {
    if (!current) return null
    const format = new Intl.NumberFormat(current.locale, { style: 'currency', currency: current.currency })
    setDateLocale(current.locale)
    const stream: StudentApi['stream'] = (path, onEvent, onEnd) =>
      openStream({ student: session.token }, path, onEvent, (e) => (e.status === 401 ? onSignOut(signedOutNotice(e)) : onEnd(e)))
    return { call: request, stream, settings: current, setSettings, money: (n) => format.format(n), rm: session.rm }
  }, [current, session.token])
  const page = PAGES.find((p) => route.startsWith(p.path)) ?? PAGES[0]!
  return (
    <Shell title={current?.storeName ?? 'Storefront'} who={`${who.name} (${session.rm}) · ${who.group}`} nav={PAGES} route={page.path} onSignOut={() => onSignOut()}>
      <Loaded state={{ ...loaded, data: api ?? undefined }}>
        {(value) => (
          <StudentContext.Provider value={value}>
            <page.Page />
          </StudentContext.Provider>
        )}
      </Loaded>
    </Shell>
  )
}

function Login({ onSignedIn, notice }: { onSignedIn: (s: StudentSession) => void; notice?: string }) {
  const action = useAction()
  const submit = (event: Event) => {
    const { rm = '', password = '' } = formValues(event)
    void action.run(async () => {
      const answer = await call<LoginAnswer>(null, 'POST', '/store/auth/login', { body: { rm, password } })
      onSignedIn({ token: answer.token, ...answer.student, mustChangePassword: answer.mustChangePassword })
    })
  }
  return (
    <SignInForm title="Student sign-in" notice={notice} busy={action.busy} error={action.error} onSubmit={submit}>
      <Field label="RM" hint="Your student number. The first password is the RM itself.">
        <input name="rm" autoComplete="username" required autoFocus />
      </Field>
      <Field label="Password">
        <input name="password" type="password" autoComplete="current-password" required />
      </Field>
    </SignInForm>
  )
}

function ChangePassword({ session, onChanged, onSignOut }: { session: StudentSession; onChanged: (s: StudentSession) => void; onSignOut: () => void }) {
  const action = useAction()
  const [mismatch, setMismatch] = useState(false)
  const submit = (event: Event) => {
    const { currentPassword = '', newPassword = '', repeat = '' } = formValues(event)
    setMismatch(newPassword !== repeat)
    if (newPassword !== repeat) return
    void action.run(async () => {
      const answer = await call<PasswordChanged>({ student: session.token }, 'POST', '/store/auth/change-password', { body: { currentPassword, newPassword } })
      onChanged({ ...session, token: answer.token, mustChangePassword: false })
    })
  }
  return (
    <main id="main" class="narrow">
      <h1>Choose your own password</h1>
      <p>
        Welcome, {session.name}. Your first password was your RM, which your classmates know: choose a new one before going on.
      </p>
      <form class="stack" onSubmit={submit}>
        <Field label="Current password">
          <input name="currentPassword" type="password" autoComplete="current-password" required autoFocus />
        </Field>
        <Field label="New password" hint="At least 8 characters.">
          <input name="newPassword" type="password" autoComplete="new-password" required minLength={8} />
        </Field>
        <Field label="Repeat the new password">
          <input name="repeat" type="password" autoComplete="new-password" required />
        </Field>
        {mismatch && (
          <p class="note error" role="alert">
            The two new passwords differ. Type the same password twice.
          </p>
        )}
        <div class="actions">
          <button class="primary" disabled={action.busy}>
            Change password
          </button>
          <button type="button" onClick={onSignOut}>
            Sign out
          </button>
        </div>
        <ErrorNote error={action.error} />
      </form>
    </main>
  )
}
