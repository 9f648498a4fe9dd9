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
 * token changed), kept until the next sign-in there: a reload of the sign-in page still says it, where a
 * page that noticed the end just before the reload would leave a bare sign-in.
 */
export const signOutNotice = (side: 'student' | 'teacher') => read<string>(`storefront.${side}.signed-out`) ?? undefined
export const saveSignOutNotice = (side: 'student' | 'teacher', why: string | undefined) =>
  why ? sessionStorage.setItem(`storefront.${side}.signed-out`, JSON.stringify(why)) : sessionStorage.removeItem(`storefront.${side}.signed-out`)
