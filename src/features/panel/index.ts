// The panel feature's door: what the rest of the app uses of it.
export { panelRoutes } from './routes'
