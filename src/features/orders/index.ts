// The orders feature's door: what the rest of the app uses of it.
export { checkout } from './checkout'
export { OrderExpiry, type OrdersDeps } from './expiry'
export { idempotencyPruner } from './idempotency'
export { pay } from './payment'
export { orderRoutes, storeOrderRoutes } from './routes'
export { orderSummary } from './summary'
export { hasPaidOrderWith } from './views'
