import { useMemo, useState } from 'preact/hooks'
import { ApiError, call, openStream, signedOutNotice, type CallOptions } from '../api'
import { adminToken, saveAdmin, useSignOutNotice } from '../session'
import { Shell } from '../shell'
import { CLASS_LOCALE, Field, formValues, SignInForm, setDateLocale, useAction } from '../ui'
import { TeacherContext, type TeacherApi } from './context'
import { GroupsPage } from './groups'
import { GroupPage } from './group'
import { GroupRequestsPage } from './requests'
import { ImportPage } from './import'
import { ActivityPage } from './activity'
import { BoardPage } from './board'
import './teacher.css'

const NAV = [
  { path: '/teacher/board', label: 'Class board' },
  { path: '/teacher/groups', label: 'Groups' },
  { path: '/teacher/import', label: 'Import' },
  { path: '/teacher/activity', label: 'Activity' },
]

/** The teacher's side of the panel: groups, their stores and activity, through the admin routes (X-Admin-Token). */
export function TeacherApp({ route }: { route: string }) {
  // Set while rendering, before any screen below writes a date: the student's app sets its store's the same way.
  setDateLocale(CLASS_LOCALE)
  const [token, setToken] = useState(adminToken)
  const [notice, setNotice] = useSignOutNotice('teacher')
  const signOut = (why?: string) => {
    saveAdmin(null)
    setToken(null)
    setNotice(why)
  }
  const signIn = (t: string) => {
    saveAdmin(t)
    setToken(t)
    setNotice(undefined)
  }
  if (!token) return <Login onSignedIn={signIn} notice={notice} />
  return <SignedIn token={token} route={route} onSignOut={signOut} />
}

function SignedIn({ token, route, onSignOut }: { token: string; route: string; onSignOut: (why?: string) => void }) {
  const api = useMemo<TeacherApi>(
    () => ({
      async call<T>(method: string, path: string, options?: CallOptions) {
        try {
          return await call<T>({ admin: token }, method, path, options)
        } catch (e) {
          if (e instanceof ApiError && e.status === 401) onSignOut(signedOutNotice(e))
          throw e
        }
      },
      stream: (path, onEvent, onEnd) => openStream({ admin: token }, path, onEvent, (e) => (e.status === 401 ? onSignOut(signedOutNotice(e)) : onEnd(e))),
    }),
    [token],
  )
  const [, groupId, requests] = /^\/teacher\/groups\/([^/]+)(\/requests(?:\/.*)?)?/.exec(route) ?? []
  const page = groupId && requests ? (
    <GroupRequestsPage key={groupId} id={groupId} route={route} />
  ) : groupId ? (
    <GroupPage key={groupId} id={groupId} />
  ) : route.startsWith('/teacher/import') ? (
    <ImportPage />
  ) : route.startsWith('/teacher/board') ? (
    <BoardPage />
  ) : route.startsWith('/teacher/activity') ? (
    <ActivityPage route={route} />
  ) : (
    <GroupsPage />
  )
  return (
    <Shell title="Storefront · Teacher" who="Teacher" nav={NAV} route={route === '/teacher' ? '/teacher/groups' : route} onSignOut={() => onSignOut()}>
      <TeacherContext.Provider value={api}>{page}</TeacherContext.Provider>
    </Shell>
  )
}

function Login({ onSignedIn, notice }: { onSignedIn: (token: string) => void; notice?: string }) {
  const action = useAction()
  const submit = (event: Event) => {
    const { token = '' } = formValues(event)
    // Any admin route tells whether the token is right; the smallest one will do.
    void action.run(async () => {
      await call({ admin: token }, 'GET', '/admin/groups', { query: { pageSize: 1 } })
      onSignedIn(token)
    })
  }
  return (
    <SignInForm title="Teacher sign-in" notice={notice} busy={action.busy} error={action.error} onSubmit={submit}>
      <Field label="Admin token" hint="Printed by the server when it starts; also kept in <data>/admin-token.">
        <input name="token" type="password" autoComplete="off" spellcheck={false} required autoFocus />
      </Field>
    </SignInForm>
  )
}
