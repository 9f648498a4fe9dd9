import { and, count, desc, eq, sql } from 'drizzle-orm'
import { lstat, mkdir, rename, rm } from 'node:fs/promises'
import { renameSync } from 'node:fs'
import { removeLink, removeTree } from '../../kernel/platform'
import { join } from 'node:path'
import type { StoreCtx } from '../../kernel/auth/kinds'
import { isoTime } from '../../kernel/clock'
import { dataPath } from '../../kernel/data-dir'
import { randomToken } from '../../kernel/ids'
import { writeTransaction, type Sql } from '../../kernel/db/database'
import { inJsonIds } from '../../kernel/db/json-ids'
import { perHandle } from '../../kernel/db/per-handle'
import type { Deps } from '../../kernel/deps'
import { AppError, notFound } from '../../kernel/errors'
import { pageWindow, toPage, type PageQuery } from '../../kernel/pagination'
import { FORMATS, MIME_BY_EXTENSION, MiB, type MediaKind } from './formats'
import { IMAGE_HEAD_BYTES, imageSize } from './image-size'
import type { Media } from './model'
import type { Upload, UploadDeps } from './in-flight'
import { receiveFile, type ReceivedFile } from './receive'
import { media } from './tables'
import type { MediaDeps } from './users'

export type MediaRow = typeof media.$inferSelect

export const mediaRoot = (deps: Deps) => dataPath(deps.config.dataDir, 'media')
/** A store's folder moved aside by a reset, in the media folder until it is removed. */
export const ASIDE_PREFIX = '.tmp-reset-'

/**
 * The names the media folder holds: a folder per store, named by the store's id, holding a file per
 * library file, named by its id and the extension of its format. Nothing else is served, and a backup
 * packs and restores nothing else.
 */
const STORE_FOLDER = /^str_[0-9a-z]{1,64}$/
const FILE_NAME = /^(med_[0-9a-z]{1,64})\.([a-z0-9]{1,8})$/
export const isStoreFolder = (name: string) => STORE_FOLDER.test(name)
export function libraryFileName(name: string): { id: string; extension: string } | undefined {
  const m = FILE_NAME.exec(name)
  return m && Object.hasOwn(MIME_BY_EXTENSION, m[2]!) ? { id: m[1]!, extension: m[2]! } : undefined
}

export const filePath = (deps: Deps, row: Pick<MediaRow, 'storeId' | 'id' | 'extension'>) =>
  join(mediaRoot(deps), row.storeId, `${row.id}.${row.extension}`)

/** Where a library file is served (files.ts), without the URL base: what a product image stores. */
export const libraryPath = (row: Pick<MediaRow, 'storeId' | 'id' | 'extension'>) => `/v1/files/${row.storeId}/${row.id}.${row.extension}`

/** `urlBase`: where the answer's file URLs start (kernel/http/url-base.ts). */
export const toMedia = (urlBase: string, row: MediaRow): Media => ({
  id: row.id,
  kind: row.kind,
  url: `${urlBase}${libraryPath(row)}`,
  mimeType: row.mimeType,
  sizeBytes: row.sizeBytes,
  filename: row.filename,
  ...(row.width !== null && row.height !== null ? { width: row.width, height: row.height } : {}),
  createdAt: isoTime(row.createdAt),
})

const quotaBytes = (deps: Deps) => deps.config.mediaQuotaMb * MiB

const usedBytes = (db: Sql, storeId: string) =>
  db.select({ n: sql<number>`coalesce(sum(${media.sizeBytes}), 0)` }).from(media).where(eq(media.storeId, storeId)).get()!.n

/**
 * An image's width and height. An image read whole without them is no picture (a file cut short, a
 * header alone): refused, rather than kept for a shop to show as a broken picture. A larger one is
 * kept when they are not in its first bytes, as a camera's long metadata may push them past.
 */
async function dimensions(path: string, file: ReceivedFile) {
  if (file.kind !== 'IMAGE') return { width: null, height: null }
  const size = await imageSize(await Bun.file(path).slice(0, IMAGE_HEAD_BYTES).bytes(), file.mime)
  if (size.width === null && file.sizeBytes <= IMAGE_HEAD_BYTES) {
    throw new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      `The file starts like a ${FORMATS[file.mime].name} image but holds no whole picture: its width and height are not in it, so it is cut short or damaged (nothing was kept). Open it in an image editor, save it again, and upload that.`,
    )
  }
  return size
}

/**
 * Receives an upload into the store's library. The upload takes one of the store's slots first (409
 * LIMIT_REACHED when it has none left), then its file is streamed to a temp name, each chunk reserved
 * against the quota before it is written, renamed, then recorded. The slot and the reservation are
 * given back on every way out: recorded, refused, failed or abandoned by the client.
 */
export async function uploadMedia(deps: UploadDeps, ctx: StoreCtx, request: Request): Promise<{ media: Media; fields: Record<string, string> }> {
  const upload = deps.uploads.begin(ctx.storeId, quotaBytes(deps), () => usedBytes(deps.db, ctx.storeId))
  try {
    return await receiveIntoLibrary(deps, ctx, request, upload)
  } finally {
    upload.end()
  }
}

/** An upload whose store the teacher reset while it ran: its file went with the store's others. */
const resetMeanwhile = () => new AppError('CONFLICT', 'The store was reset while this file was uploading, so it was not kept. Send it again.')

async function receiveIntoLibrary(deps: Deps, ctx: StoreCtx, request: Request, upload: Upload) {
  try {
    return await receiveAndRecord(deps, ctx, request, upload)
  } catch (e) {
    // Its folder was moved away under it (removeStoreMedia): whatever failed, that is why.
    throw upload.forgotten ? resetMeanwhile() : e
  }
}

async function receiveAndRecord(deps: Deps, ctx: StoreCtx, request: Request, upload: Upload) {
  const id = deps.ids.next('med')
  const dir = await storeFolder(deps, ctx.storeId)
  const temp = join(dir, `.tmp-${id}`)
  const file = await receiveFile(request, temp, upload)
  // The temp file goes with a refusal here, as receiveFile's own refusals take it.
  const size = await dimensions(temp, file).catch(async (e) => {
    await rm(temp, { force: true })
    throw e
  })
  const row: MediaRow = {
    id,
    storeId: ctx.storeId,
    kind: file.kind,
    mimeType: file.mime,
    extension: file.extension,
    sizeBytes: file.sizeBytes,
    filename: file.filename,
    ...size,
    createdAt: deps.clock.now(),
  }
  const final = filePath(deps, row)
  await rename(temp, final)
  try {
    // The reservations keep the library within the quota; the check here holds it for files recorded
    // by other means too (a restored database).
    writeTransaction(deps.db, (tx) => {
      if (upload.forgotten) throw resetMeanwhile()
      if (usedBytes(tx, ctx.storeId) + row.sizeBytes > quotaBytes(deps)) {
        throw new AppError('QUOTA_EXCEEDED', "Another upload used the store's remaining media quota first. Delete files you no longer use and try again.")
      }
      tx.insert(media).values(row).run()
    })
    upload.landed()
  } catch (e) {
    await removeLibraryFile(deps, row)
    throw e
  }
  return { media: toMedia(deps.publicUrl.for(request), row), fields: file.fields }
}

/** An upload its caller could not use after all (uploadAndLink): its record and its file go. */
export async function discardUpload(deps: Deps, id: string) {
  const row = deps.db.select().from(media).where(eq(media.id, id)).get()
  if (!row) return
  writeTransaction(deps.db, (tx) => tx.delete(media).where(eq(media.id, row.id)).run())
  await removeLibraryFile(deps, row)
}

/** `hint`: where the caller finds the ids it may send (GET /v1/media needs the secret key, which a shop front has not). */
export function findMedia(db: Sql, ctx: StoreCtx, id: string, hint = 'GET /v1/media lists the library'): MediaRow {
  const row = db.select().from(media).where(and(eq(media.id, id), eq(media.storeId, ctx.storeId))).get()
  if (!row) throw notFound('media file', id, hint)
  return row
}

// Built once per database handle: drizzle builds a statement's SQL text on every call.
const byIds = perHandle((db: Sql) => db.select().from(media).where(inJsonIds(media.id)).prepare())

/** The library files with these ids, by id, for a feature that shows the files it links (review photos). */
export function mediaByIds(db: Sql, ids: string[]): Map<string, MediaRow> {
  if (ids.length === 0) return new Map()
  return new Map(byIds(db).all({ ids: JSON.stringify(ids) }).map((m) => [m.id, m]))
}

export function listMedia(deps: Deps, ctx: StoreCtx, query: PageQuery & { kind?: MediaKind }, urlBase: string) {
  const where = and(eq(media.storeId, ctx.storeId), query.kind ? eq(media.kind, query.kind) : undefined)
  const { limit, offset } = pageWindow(query)
  const rows = deps.db.select().from(media).where(where).orderBy(desc(media.createdAt), desc(media.id)).limit(limit).offset(offset).all()
  const total = deps.db.select({ n: count() }).from(media).where(where).get()!.n
  return toPage(rows.map((r) => toMedia(urlBase, r)), total, query)
}

export function mediaUsage(deps: Deps, ctx: StoreCtx) {
  const rows = deps.db
    .select({ kind: media.kind, files: count(), bytes: sql<number>`coalesce(sum(${media.sizeBytes}), 0)` })
    .from(media)
    .where(eq(media.storeId, ctx.storeId))
    .groupBy(media.kind)
    .all()
  const byKind = { IMAGE: { files: 0, bytes: 0 }, VIDEO: { files: 0, bytes: 0 } }
  for (const r of rows) byKind[r.kind] = { files: r.files, bytes: r.bytes }
  return {
    usedBytes: byKind.IMAGE.bytes + byKind.VIDEO.bytes,
    quotaBytes: quotaBytes(deps),
    files: byKind.IMAGE.files + byKind.VIDEO.files,
    byKind,
  }
}

/**
 * Removes a library file for good. A file in use is a 409 listing its users, unless `force`: then it is
 * unlinked everywhere in the same transaction that deletes its record, and the file goes after commit.
 */
export async function deleteMedia(deps: MediaDeps, ctx: StoreCtx, id: string, force: boolean) {
  const row = writeTransaction(deps.db, (tx) => {
    const found = findMedia(tx, ctx, id)
    const users = deps.mediaUsers.flatMap((u) => u.find(tx, ctx.storeId, id))
    if (users.length > 0 && !force) {
      throw new AppError(
        'MEDIA_IN_USE',
        `The file is used in ${users.length} place${users.length > 1 ? 's' : ''} (see details). Remove it there first, or delete with ?force=true to unlink it everywhere.`,
        users,
      )
    }
    for (const u of deps.mediaUsers) u.unlink(tx, ctx.storeId, id)
    tx.delete(media).where(eq(media.id, id)).run()
    return found
  })
  await removeLibraryFile(deps, row)
}

/** Whether `path` is a link (not what it points to); false when nothing is there. */
export const isLink = async (path: string) => (await lstat(path).catch(() => undefined))?.isSymbolicLink() === true

/**
 * The store's folder of the library, made when missing. The server makes no links: one in the place of
 * the media folder or the store's (a hand put it there) is removed as a link first, as the sweep at
 * start does, so a file is never written where it points.
 */
async function storeFolder(deps: Deps, storeId: string): Promise<string> {
  const root = mediaRoot(deps)
  const dir = join(root, storeId)
  for (const path of [root, dir]) if (await isLink(path)) await removeLink(path)
  await mkdir(dir, { recursive: true })
  return dir
}

/**
 * A store's files, once a reset has removed their records: the uploads running for it record nothing
 * (UploadsInFlight.forget), and its folder is moved aside at once, in the reset's turn, then removed,
 * so that an upload starting meanwhile makes a new folder rather than write into one being removed.
 * A folder left aside by a crash goes at the next start (sweep.ts).
 */
export async function removeStoreMedia(deps: UploadDeps, storeId: string) {
  deps.uploads.forget(storeId)
  const root = mediaRoot(deps)
  const folder = join(root, storeId)
  const aside = join(root, `${ASIDE_PREFIX}${storeId}-${randomToken(8)}`)
  let removing = aside
  try {
    renameSync(folder, aside)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return
    // Windows refuses to move a folder that holds a file open (an upload's): it is removed in place.
    removing = folder
  }
  // The records are gone already: a file that cannot be removed now has none, and the next start's sweep removes it.
  await removeTree(removing).catch((e: unknown) => deps.log.error("a reset store's media files could not all be removed; the next start removes them", { storeId, error: String(e) }))
}

/** Removes a library file, unless the media folder or the store's is a link: nothing is removed through one (the sweep at start removes the link). */
async function removeLibraryFile(deps: Deps, row: Pick<MediaRow, 'storeId' | 'id' | 'extension'>) {
  const root = mediaRoot(deps)
  if ((await isLink(root)) || (await isLink(join(root, row.storeId)))) return
  await rm(filePath(deps, row), { force: true })
}
