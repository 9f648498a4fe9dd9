import type { Database } from 'bun:sqlite'
import { writeTransaction } from '../../kernel/db/database'
import { removeStoreMedia, type UploadDeps } from '../media'
import { getGroup } from '../groups'
import { KEPT_BY_RESET } from '../webhooks'
import { AppError } from '../../kernel/errors'
import { seeding } from './seed'

/**
 * Store tables a reset keeps: the group's API keys stay. `catalog_versions` only ever grows: cached
 * product reads are keyed by it, so a version that went back could serve a read from before the reset.
 */
const KEEP = new Set(['api_keys', 'catalog_versions'])

/** Every table with a store_id column: the store's data, whichever feature added it. */
export function storeTables(sqlite: Database): string[] {
  const tables = sqlite.query("select name from sqlite_master where type = 'table' and name not like 'sqlite_%'").all() as { name: string }[]
  return tables
    .map((t) => t.name)
    .filter((name) => !KEEP.has(name))
    .filter((name) => (sqlite.query('select name from pragma_table_info(?)').all(name) as { name: string }[]).some((c) => c.name === 'store_id'))
}

/**
 * Empties a group's store: catalog, media (files too), customers, carts, orders, reviews, webhooks and
 * their events, in one transaction. Members, API keys, settings, the activity counts and the listen
 * secret (webhooks' KEPT_BY_RESET) stay.
 */
export async function resetStore(deps: UploadDeps, groupId: string) {
  const group = getGroup(deps, groupId)
  if (seeding(deps).has(group.storeId)) {
    throw new AppError('CONFLICT', `seed-demo is filling the store of '${group.name}' now; reset it once seed-demo has answered.`)
  }
  const removed: Record<string, number> = {}
  writeTransaction(deps.db, (tx) => {
    const sqlite = tx.$client
    // Rows refer to each other across tables; the checks run at commit, when all of them are gone.
    sqlite.exec('PRAGMA defer_foreign_keys = ON')
    const tables = storeTables(sqlite)
    // Counted first: deleting one table's rows removes others' by cascade (a customer's orders).
    const ofStore = (table: string) => `"${table}" where store_id = ?${KEPT_BY_RESET[table] ? ` and not (${KEPT_BY_RESET[table]})` : ''}`
    for (const table of tables) {
      const { n } = sqlite.query(`select count(*) as n from ${ofStore(table)}`).get(group.storeId) as { n: number }
      if (n > 0) removed[table] = n
    }
    for (const table of tables) sqlite.query(`delete from ${ofStore(table)}`).run(group.storeId)
  })
  await removeStoreMedia(deps, group.storeId)
  return { groupId: group.id, storeId: group.storeId, removed }
}
