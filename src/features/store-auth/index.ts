// The store login feature's door: what the rest of the app uses of it.
export { CUSTOMER_HELP, LoginThrottle, MAX_FAILURES_PER_ACCOUNT, MAX_FAILURES_PER_ACCOUNT_AND_ADDRESS, MAX_FAILURES_PER_ADDRESS } from './login-throttle'
export { storeAuthRoutes } from './routes'
