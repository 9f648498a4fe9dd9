// The product images feature's door: what the rest of the app uses of it.
export { imagesOfProducts } from './images'
export { productImageRoutes } from './routes'
export { linkImage, productImageUsers } from './service'
