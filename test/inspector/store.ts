import { createTestApp } from '../helpers/app'
import { bearer, createKey, expectOk, oneStore } from '../helpers/world'

/** 10:00:00.000 UTC of the test clock's day (the student's session lasts): a minute's first millisecond. */
export const TEN = Date.UTC(2026, 0, 1, 10, 0, 0)

/**
 * A store with a student, a secret key, a revoked key and a publishable key (its shop page's), the
 * clock at TEN and the default rate limit; `list` reads the store's inspector (as the student, or `who`).
 */
export async function storeWithShopPage() {
  const t = createTestApp()
  const w = await oneStore(t.call, t.deps, 'a')
  const pk = (await createKey(t.call, w.student, 'shop page', 'publishable')).apiKey
  t.clock.set(TEN)
  const list = async (query = '', who: Record<string, string> = bearer(w.student)) => expectOk(t.call('GET', `/v1/store/requests${query}`, { headers: who }))
  return { ...t, w, pk, list }
}
