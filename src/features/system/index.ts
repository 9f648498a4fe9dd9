// The system feature's door: what the rest of the app uses of it.
export { docsRoutes } from './docs'
export { healthRoutes } from './health'
