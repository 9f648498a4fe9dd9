// The API keys feature's door: what the rest of the app uses of it.
export { apiKeyRoutes } from './routes'
export { listKeys } from './service'
