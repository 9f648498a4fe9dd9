// The webhooks feature's door: what the rest of the app uses of it.
export { hasSubscriber } from './deliveries'
export { WebhookDispatcher, type WebhooksDeps } from './dispatcher'
export { ListenHub } from './listen'
export { webhookPruners } from './retention'
export { webhookRoutes } from './routes'
export { attempt } from './send'
export { signedHeaders } from './signature'
export { failingEndpoints } from './summary'
