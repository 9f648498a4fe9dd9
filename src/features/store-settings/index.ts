// The store settings feature's door: what the rest of the app uses of it.
export { storeSettingsRoutes } from './routes'
export { getSettings } from './service'
export { currencyOfStore } from './currency'
