// The overview feature's door: what the rest of the app uses of it.
export { overviewRoutes } from './routes'
