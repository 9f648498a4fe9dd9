// The activity feature's door: what the rest of the app uses of it.
export { ActivityQuery } from './model'
export { ActivityRecorder } from './recorder'
export { activityCsv, activityReport } from './report'
export { activityRoutes } from './routes'
