// The reviews feature's door: what the rest of the app uses of it.
export { reviewRoutes, storeReviewRoutes } from './routes'
export { createReview, reviewPhotoUsers } from './service'
