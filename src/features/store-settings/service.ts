import { eq } from 'drizzle-orm'
import type { StoreCtx } from '../../kernel/auth/kinds'
import { stores } from '../../kernel/auth/tables'
import { writeTransaction } from '../../kernel/db/database'
import type { Deps } from '../../kernel/deps'
import type { Settings, SettingsUpdate } from './model'

export function getSettings(deps: Deps, ctx: StoreCtx): Settings {
  return deps.db
    .select({
      storeName: stores.storeName,
      primaryColor: stores.primaryColor,
      supportEmail: stores.supportEmail,
      locale: stores.locale,
      currency: stores.currency,
    })
    .from(stores)
    .where(eq(stores.id, ctx.storeId))
    .get()!
}

export function updateSettings(deps: Deps, ctx: StoreCtx, update: SettingsUpdate): Settings {
  if (Object.keys(update).length > 0) {
    writeTransaction(deps.db, (tx) => tx.update(stores).set({ ...update, updatedAt: deps.clock.now() }).where(eq(stores.id, ctx.storeId)).run())
  }
  return getSettings(deps, ctx)
}
