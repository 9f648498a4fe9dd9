import { createContext } from 'preact'
import { useContext } from 'preact/hooks'
import type { CallOptions } from '../api'
import type { Settings } from './types'

export interface StudentApi {
  /** Calls the API with the student's token; a 401 signs the student out. */
  call<T = unknown>(method: string, path: string, options?: CallOptions): Promise<T>
  settings: Settings
  /** After a save, so the colour and the money format follow at once. */
  setSettings(settings: Settings): void
  money(amount: number): string
}

export const StudentContext = createContext<StudentApi | null>(null)
export const useStudent = () => useContext(StudentContext)!
