import type { Sql } from '../../kernel/db/database'
import type { Deps } from '../../kernel/deps'

/**
 * A product body shows the product's images, which the product-images feature keeps: it depends on
 * the catalog (its images belong to products), so the catalog cannot depend on it in turn. The catalog
 * names what it reads here, and src/wiring.ts plugs that feature's reader in.
 */

/** One image of a product as stored: `url` is a library file's path (/v1/files/...) or an external URL. */
export interface StoredImage {
  id: string
  productId: string
  mediaId: string | null
  url: string
  isPrimary: boolean
  position: number
}

/** The images of these products, each product's in position order, read on `db` (a transaction's handle too). */
export type ProductImageReader = (db: Sql, productIds: string[]) => StoredImage[]

/** What the catalog's reads and writes need: the kernel's deps and the reader of product images. */
export type CatalogDeps = Deps & { productImages: ProductImageReader }

/** What building a product body needs: the handle to read on and the reader of product images. */
export interface ProductReading {
  db: Sql
  productImages: ProductImageReader
}

/**
 * Images of library files are stored as their path (/v1/files/...) and shown on `urlBase`, which differs
 * from one answer to the next (kernel/http/url-base.ts); external URLs are kept as given.
 */
export const imageUrl = (urlBase: string, stored: string) => (stored.startsWith('/') ? `${urlBase}${stored}` : stored)

export const toImage = (urlBase: string, i: StoredImage) => ({
  id: i.id,
  productId: i.productId,
  mediaId: i.mediaId,
  url: imageUrl(urlBase, i.url),
  isPrimary: i.isPrimary,
  position: i.position,
})
