import { createContext } from 'preact'
import { useContext } from 'preact/hooks'
import type { ApiError, CallOptions } from '../api'

export interface TeacherApi {
  /** Calls the API with the admin token (X-Admin-Token); a 401 signs the teacher out. */
  call<T = unknown>(method: string, path: string, options?: CallOptions): Promise<T>
  /** Reads a Server-Sent Events route (see api.ts openStream); returns the function that closes it. */
  stream(path: string, onEvent: (event: string, data: string) => void, onEnd: (error: ApiError) => void): () => void
}

export const TeacherContext = createContext<TeacherApi | null>(null)
export const useTeacher = () => useContext(TeacherContext)!
