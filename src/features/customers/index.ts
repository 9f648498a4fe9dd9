// The customers feature's door: what the rest of the app uses of it.
export { customerRoutes } from './routes'
export { register, takenEmails } from './service'
