// The classroom feature's door: what the rest of the app uses of it.
export { classroomRoutes } from './routes'
