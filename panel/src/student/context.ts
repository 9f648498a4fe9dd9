import { createContext } from 'preact'
import { useContext } from 'preact/hooks'
import type { ApiError, CallOptions } from '../api'
import type { Settings } from './types'

export interface StudentApi {
  /** Calls the API with the student's token; a 401 signs the student out. */
  call<T = unknown>(method: string, path: string, options?: CallOptions): Promise<T>
  /** Reads a Server-Sent Events route (see api.ts openStream); returns the function that closes it. */
  stream(path: string, onEvent: (event: string, data: string) => void, onEnd: (error: ApiError) => void): () => void
  settings: Settings
  /** After a save, so the colour and the money format follow at once. */
  setSettings(settings: Settings): void
  money(amount: number): string
  /** The signed-in student's RM. */
  rm: string
}

export const StudentContext = createContext<StudentApi | null>(null)
export const useStudent = () => useContext(StudentContext)!
