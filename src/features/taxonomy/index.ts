// The taxonomy feature's door: what the rest of the app uses of it.
export { taxonomyRoutes } from './routes'
export { createTerm, requireTerms } from './service'
