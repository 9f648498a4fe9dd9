import { inArray } from 'drizzle-orm'
import { readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { Deps } from '../../kernel/deps'
import { mediaRoot } from './service'
import { media } from './tables'

/**
 * At start: removes what a crash can leave in the media folder, half-received uploads (.tmp-*) and
 * files whose record was never written or already deleted, so the folder matches the library.
 */
export async function sweepMediaFolder(deps: Deps): Promise<number> {
  const root = mediaRoot(deps)
  let removed = 0
  for (const store of await readdir(root).catch(() => [] as string[])) {
    const dir = join(root, store)
    const names = await readdir(dir).catch(() => [] as string[])
    const ids = names.map((n) => n.split('.')[0]!).filter((id) => id.startsWith('med_'))
    const known = new Set(
      ids.length ? deps.db.select({ id: media.id }).from(media).where(inArray(media.id, ids)).all().map((r) => r.id) : [],
    )
    for (const name of names) {
      if (name.startsWith('.tmp-') || !known.has(name.split('.')[0]!)) {
        await rm(join(dir, name), { force: true, recursive: true })
        removed++
      }
    }
  }
  return removed
}
