import { and, asc, eq } from 'drizzle-orm'
import type { StoreCtx } from '../../kernel/auth/kinds'
import { writeTransaction, type Sql } from '../../kernel/db/database'
import type { Deps } from '../../kernel/deps'
import { AppError, assertBelowLimit, notFound } from '../../kernel/errors'
import { findProduct, liveProducts, toImage } from '../catalog'
import { discardUpload, findMedia, libraryPath, linksAsMediaUser, type MediaRow, renumber, type UploadDeps, uploadMedia } from '../media'
import type { ImageRow } from './images'
import { productImages } from './tables'

// A product's images: positions stay 0..n-1 without gaps and exactly one image is the
// cover, whatever sequence of links, changes and unlinks happened. Unlinking never deletes the library file.

/** Images a product may have: more than a product page shows, and a bound on what every read of the product lists. */
export const MAX_IMAGES_PER_PRODUCT = 20

/** 409 LIMIT_REACHED when the product has no room for one more image. */
const assertRoomForImage = (productId: string, current: number) =>
  assertBelowLimit(current, MAX_IMAGES_PER_PRODUCT, {
    who: `Product ${productId}`,
    things: 'images',
    owner: 'a product',
    fix: 'Unlink one first (DELETE /v1/images/:id; GET /v1/products/:id lists them).',
  })

const imagesOf = (tx: Sql, productId: string) =>
  tx.select().from(productImages).where(eq(productImages.productId, productId)).orderBy(asc(productImages.position), asc(productImages.createdAt)).all()

/** Rewrites positions and the cover of a product from the wanted order. */
function settle(tx: Sql, order: ImageRow[], primaryId?: string) {
  const primary = primaryId ?? order.find((i) => i.isPrimary)?.id ?? order[0]?.id
  renumber(
    order,
    (image, position) => ({ position, isPrimary: image.id === primary }),
    (image, set) => tx.update(productImages).set(set).where(eq(productImages.id, image.id)).run(),
  )
}

function findImage(tx: Sql, ctx: StoreCtx, id: string): ImageRow {
  const row = tx.select().from(productImages).where(and(eq(productImages.id, id), eq(productImages.storeId, ctx.storeId))).get()
  if (!row || !liveProducts(tx, [row.productId]).has(row.productId)) throw notFound('product image', id, "a product's images are listed in GET /v1/products/:id")
  return row
}

function link(deps: Deps, tx: Sql, ctx: StoreCtx, productId: string, source: { mediaId: string; url: string } | { mediaId: null; url: string }, urlBase: string, isPrimary?: boolean) {
  findProduct(tx, ctx, productId)
  const id = deps.ids.next('img')
  const existing = imagesOf(tx, productId)
  // The same picture twice (a button clicked twice) would show twice in the gallery: said so, with the image it already is.
  const already = existing.find((i) => i.url === source.url)
  if (already) {
    throw new AppError(
      'CONFLICT',
      `That picture is already image ${already.id} of product ${productId}. To make it the cover or move it, PATCH /v1/images/${already.id} {"isPrimary": true} or {"position": n}.`,
      [{ imageId: already.id, ...(source.mediaId ? { mediaId: source.mediaId } : { url: source.url }) }],
    )
  }
  assertRoomForImage(productId, existing.length)
  tx.insert(productImages)
    .values({ id, storeId: ctx.storeId, productId, mediaId: source.mediaId, url: source.url, isPrimary: false, position: existing.length, createdAt: deps.clock.now() })
    .run()
  const all = imagesOf(tx, productId)
  settle(tx, all, isPrimary ? id : undefined)
  return toImage(urlBase, imagesOf(tx, productId).find((i) => i.id === id)!)
}

/** `uploaded`: the file came with this request, and a refused one is not kept (uploadAndLink). */
function requireImage(m: MediaRow, uploaded = false) {
  if (m.kind !== 'IMAGE') {
    const next = uploaded
      ? 'The file is a video; product images take pictures only, so it was not kept. A video goes to the library with POST /v1/uploads, where GET /v1/media lists its URL.'
      : `Media ${m.id} is a video; product images take pictures only. Videos stay in the library, where GET /v1/media lists their URLs.`
    throw new AppError('VALIDATION_ERROR', next, [{ path: uploaded ? 'file' : 'mediaId', message: 'must be an image' }])
  }
}

export function linkImage(deps: Deps, ctx: StoreCtx, productId: string, body: { mediaId?: string; url?: string; isPrimary?: boolean }, urlBase: string) {
  return writeTransaction(deps.db, (tx) => {
    if (body.mediaId !== undefined) {
      const m = findMedia(tx, ctx, body.mediaId)
      requireImage(m)
      return link(deps, tx, ctx, productId, { mediaId: m.id, url: libraryPath(m) }, urlBase, body.isPrimary)
    }
    return link(deps, tx, ctx, productId, { mediaId: null, url: body.url! }, urlBase, body.isPrimary)
  })
}

/** Upload and link in one call; if the link cannot be made, the uploaded file does not stay. */
export async function uploadAndLink(deps: UploadDeps, ctx: StoreCtx, productId: string, request: Request) {
  findProduct(deps.db, ctx, productId)
  // Refused before the file is received; link() checks again in its transaction.
  assertRoomForImage(productId, imagesOf(deps.db, productId).length)
  const { media: uploaded, fields } = await uploadMedia(deps, ctx, request)
  try {
    const isPrimary = parseFlag(fields.isPrimary)
    const image = writeTransaction(deps.db, (tx) => {
      const m = findMedia(tx, ctx, uploaded.id)
      requireImage(m, true)
      return link(deps, tx, ctx, productId, { mediaId: m.id, url: libraryPath(m) }, deps.publicUrl.for(request), isPrimary)
    })
    return { image, media: uploaded }
  } catch (e) {
    await discardUpload(deps, uploaded.id)
    throw e
  }
}

function parseFlag(value: string | undefined): boolean | undefined {
  if (value === undefined || value === '') return undefined
  if (value === 'true') return true
  if (value === 'false') return false
  throw new AppError('VALIDATION_ERROR', `The form field isPrimary must be true or false, not '${value}'.`, [{ path: 'isPrimary', message: 'must be true or false' }])
}

export function updateImage(deps: Deps, ctx: StoreCtx, id: string, body: { isPrimary?: true; position?: number }, urlBase: string) {
  return writeTransaction(deps.db, (tx) => {
    const image = findImage(tx, ctx, id)
    const order = imagesOf(tx, image.productId).filter((i) => i.id !== id)
    const at = body.position === undefined ? image.position : Math.min(body.position, order.length)
    order.splice(at, 0, image)
    settle(tx, order, body.isPrimary ? id : undefined)
    return toImage(urlBase, imagesOf(tx, image.productId).find((i) => i.id === id)!)
  })
}

/** Unlinks; the next image becomes the cover when the cover goes. The library file stays. */
export function unlinkImage(deps: Deps, ctx: StoreCtx, id: string) {
  writeTransaction(deps.db, (tx) => {
    const image = findImage(tx, ctx, id)
    tx.delete(productImages).where(eq(productImages.id, id)).run()
    settle(tx, imagesOf(tx, image.productId))
  })
}

/** Product images as users of library files, for DELETE /v1/media/:id; a deleted product's do not count. */
export const productImageUsers = linksAsMediaUser({
  usedBy: 'productImage',
  table: productImages,
  storeId: productImages.storeId,
  mediaId: productImages.mediaId,
  owner: productImages.productId,
  uses: (tx, where) => {
    const uses = tx.select({ productId: productImages.productId, imageId: productImages.id }).from(productImages).where(where).all()
    const live = liveProducts(tx, uses.map((u) => u.productId))
    return uses.filter((u) => live.has(u.productId))
  },
  renumber: (tx, productId) => settle(tx, imagesOf(tx, productId)),
})
