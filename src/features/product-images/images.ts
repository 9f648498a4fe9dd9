import { asc } from 'drizzle-orm'
import type { Sql } from '../../kernel/db/database'
import { inJsonIds } from '../../kernel/db/json-ids'
import { perHandle } from '../../kernel/db/per-handle'
import { productImages } from './tables'

/** How a product's images are shown, here and in the catalog's product bodies (their images and cover). */

export type ImageRow = typeof productImages.$inferSelect

/**
 * Images of library files are stored as their path (/v1/files/...) and shown on `urlBase`, which differs
 * from one answer to the next (kernel/http/url-base.ts); external URLs are kept as given.
 */
export const imageUrl = (urlBase: string, stored: string) => (stored.startsWith('/') ? `${urlBase}${stored}` : stored)

export const toImage = (urlBase: string, i: ImageRow) => ({
  id: i.id,
  productId: i.productId,
  mediaId: i.mediaId,
  url: imageUrl(urlBase, i.url),
  isPrimary: i.isPrimary,
  position: i.position,
})

// Built once per database handle: drizzle builds a statement's SQL text on every call.
const ofProducts = perHandle((db: Sql) => db.select().from(productImages).where(inJsonIds(productImages.productId)).orderBy(asc(productImages.position)).prepare())

/** The images of these products, each product's in position order. */
export const imagesOfProducts = (db: Sql, productIds: string[]): ImageRow[] => ofProducts(db).all({ ids: JSON.stringify(productIds) })
