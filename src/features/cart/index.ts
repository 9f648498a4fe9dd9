// The cart's door: what the rest of the app uses of it.
export { cartRoutes } from './routes'
export { addItem, cartToBuy, emptyCart } from './service'
