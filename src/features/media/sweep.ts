import { inArray } from 'drizzle-orm'
import { lstat, mkdir, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { Deps } from '../../kernel/deps'
import { removeLink, removeTree } from '../../kernel/platform'
import { ASIDE_PREFIX, isLink, libraryFileName, mediaRoot } from './service'
import { media } from './tables'

export interface Swept {
  /** Files (or folders) in a store's folder that no record names: an interrupted upload or deletion. */
  files: number
  /** Links anywhere in the media folder, the folder itself included, removed as links. */
  links: number
}

/**
 * At start: removes what a crash can leave in the media folder, half-received uploads (.tmp-*), a
 * reset store's folder moved aside, and files whose record was never written or already deleted, so
 * the folder matches the library.
 *
 * Nothing here follows a link. A link is not something the server makes (a restored archive from an
 * older build could hold one, or a hand made it): wherever it is, it is removed as a link, and what it
 * points to is never listed, removed or served. Every entry is looked at with lstat first, and a plain
 * folder is removed with removeTree (kernel/platform.ts), which removes the links inside it without following them.
 */
export async function sweepMediaFolder(deps: Deps): Promise<Swept> {
  const root = mediaRoot(deps)
  const swept: Swept = { files: 0, links: 0 }
  if (await isLink(root)) {
    await removeLink(root)
    await mkdir(root)
    swept.links++
  }
  for (const store of await readdir(root).catch(() => [] as string[])) {
    const dir = join(root, store)
    const stat = await lstat(dir).catch(() => undefined)
    if (stat?.isSymbolicLink()) {
      await removeLink(dir)
      swept.links++
    }
    if (stat?.isDirectory() && store.startsWith(ASIDE_PREFIX)) {
      // A reset's folder moved aside (removeStoreMedia) that a crash kept from being removed.
      await removeTree(dir)
      swept.files++
    } else if (stat?.isDirectory()) await sweepStoreFolder(deps, store, dir, swept)
  }
  return swept
}

/** A store's folder keeps the plain files named after a record of that store, under its extension. */
async function sweepStoreFolder(deps: Deps, storeId: string, dir: string, swept: Swept) {
  const names = await readdir(dir).catch(() => [] as string[])
  const ids = names.flatMap((n) => libraryFileName(n)?.id ?? [])
  const kept = new Set(
    ids.length
      ? deps.db
          .select({ id: media.id, storeId: media.storeId, extension: media.extension })
          .from(media)
          .where(inArray(media.id, ids))
          .all()
          .filter((r) => r.storeId === storeId)
          .map((r) => `${r.id}.${r.extension}`)
      : [],
  )
  for (const name of names) {
    const path = join(dir, name)
    const stat = await lstat(path).catch(() => undefined)
    if (!stat) continue
    if (stat.isSymbolicLink()) {
      await removeLink(path)
      swept.links++
    } else if (!stat.isFile() || !kept.has(name)) {
      await removeTree(path)
      swept.files++
    }
  }
}
