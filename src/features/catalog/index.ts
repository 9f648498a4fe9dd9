// The catalog's door: what the rest of the app uses of it. Its tables are reached from another
// feature's tables.ts only, to name a foreign key (test/system/table-owners.test.ts).
export { joinVariantLine, lineOfVariant, VARIANT_LINE_FIELDS, variantLine, type LineOfVariant, type VariantLineValues } from './buyable'
export { toImage, type CatalogDeps, type ProductImageReader } from './images'
export { countLiveProducts, findProduct, liveProducts, productsHint, shopFrontProducts, shopFrontSees, variantsForSale, variantsHint, visibilityOf } from './find'
export { LOW_STOCK_COUNTED, ProductImage } from './model'
export { createProduct } from './products'
export { ratingOfCounts, setProductRating, shownProductRating } from './ratings'
export { productRoutes, variantRoutes } from './routes'
export { moveStock } from './stock'
export { lowStock, productNames, productsByState } from './summary'
export { storeVersions } from './versions'
