import { useState } from 'preact/hooks'

/**
 * Secrets shown once (a new API key, a webhook's signing secret), by slot: kept in this page's memory
 * until the student says they copied it, so that a visit to another screen and back shows the secret
 * again instead of losing it for good. A reload, a closed tab or signing out loses it; while one is
 * kept, the browser asks before a reload or a close. Never written to storage.
 */
const shownOnce = new Map<string, unknown>()
let warnsBeforeLeaving = false
const beforeLeaving = (event: BeforeUnloadEvent) => {
  if (shownOnce.size === 0) return
  event.preventDefault()
  event.returnValue = ''
}

/** A secret shown once, kept under `slot` (name the signed-in student in it) until set to undefined. */
export function useShownOnce<T>(slot: string): [T | undefined, (value: T | undefined) => void] {
  const [value, setValue] = useState(shownOnce.get(slot) as T | undefined)
  const set = (next: T | undefined) => {
    if (next === undefined) shownOnce.delete(slot)
    else shownOnce.set(slot, next)
    if (!warnsBeforeLeaving) addEventListener('beforeunload', beforeLeaving)
    warnsBeforeLeaving = true
    setValue(next)
  }
  return [value, set]
}

/** Forgets every secret kept (signing out: the next person at this browser sees none). */
export const forgetShownOnce = () => shownOnce.clear()
