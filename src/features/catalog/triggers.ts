/**
 * The triggers on other owners' tables that write the catalog's: each raises a store's
 * `catalog_versions`, which cached reads are keyed by (versions.ts), when a row another feature keeps
 * changes what a cached read shows. The catalog owns the versions, so it declares who may raise them;
 * test/system/table-owners.test.ts fails on a trigger in migrations/ that writes a feature's table from
 * another owner's without being named here. Triggers on the catalog's own tables need no declaration.
 *
 * The SQL in migrations/ is what runs. A migration that rebuilds one of these tables drops its
 * triggers, so it writes them again (docs/developers.md); this list names what it must write.
 */
export const triggersFromOtherTables = {
  // A product body shows its images and cover (views.ts): `version`.
  product_images: ['product_images_version_insert', 'product_images_version_update', 'product_images_version_delete'],
  // A product's review page (reviews/page-cache.ts) shows its reviews and their photos: `reviews`.
  reviews: ['reviews_reviews_version_insert', 'reviews_reviews_version_update', 'reviews_reviews_version_delete'],
  review_media: ['review_media_reviews_version_insert', 'review_media_reviews_version_update', 'review_media_reviews_version_delete'],
  // ... the reviewers' names: `reviews`.
  customers: ['customers_reviews_version_update', 'customers_reviews_version_delete'],
  // ... and the photos' files: `reviews`.
  media: ['media_reviews_version_update', 'media_reviews_version_delete'],
} as const satisfies Record<string, readonly string[]>
