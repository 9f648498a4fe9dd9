// The inspector's door: what the rest of the app uses of it.
export { RequestLog, type InspectorDeps } from './log'
export { inspectorRoutes } from './routes'
