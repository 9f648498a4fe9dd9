import { asc } from 'drizzle-orm'
import type { Sql } from '../../kernel/db/database'
import { inJsonIds } from '../../kernel/db/json-ids'
import { perHandle } from '../../kernel/db/per-handle'
import type { ProductImageReader } from '../catalog'
import { productImages } from './tables'

// How the images are read for the catalog's product bodies (their images and cover); the catalog
// shapes them (catalog/images.ts).

export type ImageRow = typeof productImages.$inferSelect

// Built once per database handle: drizzle builds a statement's SQL text on every call.
const ofProducts = perHandle((db: Sql) => db.select().from(productImages).where(inJsonIds(productImages.productId)).orderBy(asc(productImages.position)).prepare())

/** The images of these products, each product's in position order. */
export const imagesOfProducts: ProductImageReader = (db, productIds) => ofProducts(db).all({ ids: JSON.stringify(productIds) })
