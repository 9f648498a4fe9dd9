import { createContext } from 'preact'
import { useContext } from 'preact/hooks'
import type { CallOptions } from '../api'

export interface TeacherApi {
  /** Calls the API with the admin token (X-Admin-Token); a 401 signs the teacher out. */
  call<T = unknown>(method: string, path: string, options?: CallOptions): Promise<T>
}

export const TeacherContext = createContext<TeacherApi | null>(null)
export const useTeacher = () => useContext(TeacherContext)!
