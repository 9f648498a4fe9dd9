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
