import type { Database } from 'bun:sqlite'

/**
 * Every row that belongs to one store, from every table that names its store or its group: taken
 * before and after an attack, two snapshots must be equal. Tables are found from the schema, so a
 * table added later (carts, orders, reviews) is covered without editing this file.
 */
export function storeSnapshot(sqlite: Database, store: { storeId: string; groupId: string }): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  const tables = sqlite.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all()
  for (const { name } of tables) {
    const columns = sqlite.query<{ name: string }, []>(`PRAGMA table_info("${name}")`).all().map((c) => c.name)
    const where = [
      columns.includes('store_id') ? `store_id = $store` : null,
      columns.includes('group_id') ? `group_id = $group` : null,
    ].filter(Boolean)
    if (where.length === 0) continue
    // Only what the store's own calls would change: nothing it did not do may move.
    const rows = sqlite.query(`SELECT * FROM "${name}" WHERE ${where.join(' OR ')}`).all({ store: store.storeId, group: store.groupId } as any)
    out[name] = rows.map((r) => JSON.stringify(r)).sort()
  }
  return out
}
