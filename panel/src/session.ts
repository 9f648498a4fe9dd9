import { useState } from 'preact/hooks'
import { forgetShownOnce } from './shown-once'

/**
 * Who is signed in, kept in sessionStorage: it ends when the tab closes, which suits a lab machine
 * that the next class will use.
 */
export interface StudentSession {
  token: string
  rm: string
  name: string
  group: string
  mustChangePassword: boolean
}

const STUDENT = 'storefront.student'
const ADMIN = 'storefront.admin'

const read = <T>(key: string): T | null => {
  try {
    return JSON.parse(sessionStorage.getItem(key) ?? 'null') as T | null
  } catch {
    return null
  }
}

export const studentSession = () => read<StudentSession>(STUDENT)
export const adminToken = () => read<string>(ADMIN)

export const saveStudent = (s: StudentSession | null) => {
  if (s) return sessionStorage.setItem(STUDENT, JSON.stringify(s))
  sessionStorage.removeItem(STUDENT)
  forgetShownOnce()
}
export const saveAdmin = (token: string | null) =>
  token ? sessionStorage.setItem(ADMIN, JSON.stringify(token)) : sessionStorage.removeItem(ADMIN)

/**
 * Why the last session of the student's or the teacher's side ended (the teacher reset the password, the
 * token changed), and how to set it: kept until the next sign-in there, so that a reload of the sign-in
 * page still says it, where a page that noticed the end just before the reload would leave a bare sign-in.
 */
export function useSignOutNotice(side: 'student' | 'teacher'): [string | undefined, (why: string | undefined) => void] {
  const key = `storefront.${side}.signed-out`
  const [notice, setNotice] = useState(() => read<string>(key) ?? undefined)
  const set = (why: string | undefined) => {
    if (why) sessionStorage.setItem(key, JSON.stringify(why))
    else sessionStorage.removeItem(key)
    setNotice(why)
  }
  return [notice, set]
}
