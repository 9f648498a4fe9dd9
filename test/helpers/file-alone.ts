import { Database } from 'bun:sqlite'
import { copyFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { tempDir } from './temp'

/**
 * The rows `sql` reads from a database file without its log: from a copy of the file alone, so only
 * what checkpoints have written into the file is seen. Null when the copy was taken in the middle of a
 * checkpoint and does not open as a database: look again.
 */
export function readFileAlone<T>(file: string, sql: string): T[] | null {
  const dir = tempDir('alone')
  const copy = join(dir, 'storefront.db')
  copyFileSync(file, copy)
  const alone = new Database(copy, { readonly: true })
  try {
    return alone.query(sql).all() as T[]
  } catch {
    return null
  } finally {
    alone.close()
    // Polled many times over: each copy goes at once.
    rmSync(dir, { recursive: true, force: true })
  }
}
