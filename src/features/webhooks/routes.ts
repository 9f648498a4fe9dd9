import { Elysia } from 'elysia'
import { authMacro } from '../../kernel/auth/macro'
import { ErrorEnvelope } from '../../kernel/errors'
import { pageOfAll, PageQuery, ShortListQuery } from '../../kernel/pagination'
import {
  DeliveryList,
  DeliveryQuery,
  DeliveryQueued,
  EventTypeList,
  IdParams,
  ListenerList,
  ListenQuery,
  RegisteredWebhook,
  RegisterWebhookBody,
  SignBody,
  Signed,
  WebhookList,
} from './model'
import { deleteWebhook, listDeliveries, listEventTypes, listWebhooks, MAX_ENDPOINTS_PER_STORE, pingWebhook, redeliver, registerWebhook, signForEndpoint } from './service'
import { noContent } from '../../kernel/http/no-content'
import { MAX_WAITING_PER_ENDPOINT } from './deliveries'
import { TRIM_EVERY, type WebhooksDeps } from './dispatcher'
import { DELIVERY_LOG_KEEP } from './retention'
import { BEFORE_FIRST_EVENT, LISTEN_HEARTBEAT_MS, MAX_LISTENERS, MAX_REPLAY, REPLAY_WINDOW } from './listen'

const tags = ['Webhooks']

const LISTEN_ABOUT =
  'Your store\'s events over a connection your machine opens: what `storefront listen --server <this server> --key <sk_... or stu_...> --forward-to http://localhost:<port>/webhooks` reads and forwards to your app, so an app on a laptop gets its events with no certificate, firewall rule or fixed address. ' +
  'Server-Sent Events (text/event-stream), read with fetch() (an EventSource cannot send X-API-Key). ' +
  '`event: ready` comes first: its data `{signingSecret, events}` holds the store\'s listen secret (whsec_..., the same on every connection and after restarts: forwarded events are signed with it exactly as deliveries are with an endpoint\'s secret), and its `id` is where the stream starts. ' +
  '`event: webhook` is one event: `id` the event id, data `{type, body}`, where `body` is the exact text a delivery would POST (`{id, type, createdAt, data}`). ' +
  `Events come in the order they were written, never twice on one stream; \`ping\` never comes (it is for one registered endpoint). A \`: heartbeat\` comment comes every ${LISTEN_HEARTBEAT_MS / 1000} s. ` +
  `Reconnect with the header Last-Event-ID set to the last id received (the ready message's when no event came, ${BEFORE_FIRST_EVENT} when it said so) and the events written meanwhile come first, in order: those the server still keeps (RETENTION_DAYS; events of a store with registered endpoints also go when its deliveries log is trimmed past them), at most the newest ${MAX_REPLAY}, looked for among the store's newest ${REPLAY_WINDOW} events (of every type). ` +
  'When some cannot be sent, an `event: gap` says so in its data `{message}`. ' +
  `At most ${MAX_LISTENERS} listen streams per store are open at once (409 LIMIT_REACHED beyond); each counts as one call when it opens, and the events missed that a reconnection is sent count as an answer of their size (one more call for every full 64 KiB). A publishable key gets 403 SECRET_KEY_REQUIRED: whoever holds the listen secret can forge your events.`

export const webhookRoutes = (deps: WebhooksDeps) =>
  new Elysia({ prefix: '/webhooks' })
    .use(authMacro)
    .get('/events', ({ query }) => pageOfAll(listEventTypes(), query), {
      auth: 'secret',
      query: ShortListQuery,
      response: { 200: EventTypeList },
      detail: { tags, summary: 'Event names you can subscribe to', description: 'The authoritative list, with what each event means. It is short, and a page is 100 unless `pageSize` says otherwise: without `page` and `pageSize` it comes whole.' },
    })
    .get(
      '/listen',
      ({ ctx, query, request, server, stillAdmits }) =>
        deps.listeners.open(ctx, { events: query.events, lastEventId: request.headers.get('last-event-id') ?? query.lastEventId ?? null, request, server, stillAdmits }),
      {
        auth: 'secret',
        query: ListenQuery,
        response: { 400: ErrorEnvelope, 409: ErrorEnvelope },
        detail: {
          tags,
          summary: "Listen to the store's events (storefront listen)",
          description: `${LISTEN_ABOUT} Query \`events\`: a comma-separated list of event names (all of them when left out); an unknown name is a 400 listing the valid ones.`,
          responses: {
            200: {
              description: 'The stream (text/event-stream); it stays open until the client closes it.',
              headers: { 'Cache-Control': { $ref: '#/components/headers/Cache-Control' } },
              content: { 'text/event-stream': { schema: { type: 'string', description: 'event: ready / event: webhook (id: <event id>, data: {type, body}) / event: gap' } } },
            },
          },
        },
      },
    )
    .get('/listeners', ({ ctx }) => deps.listeners.list(ctx.storeId), {
      auth: 'secret',
      response: { 200: ListenerList },
      detail: {
        tags,
        summary: 'Who is listening now',
        description: `The store's open listen streams (GET /v1/webhooks/listen, storefront listen), oldest first: when each connected, the events it takes, who opened it and how many events it was sent. At most ${MAX_LISTENERS} are open at once. The listen secret is never shown here.`,
      },
    })
    .post(
      '',
      async ({ ctx, body, set }) => {
        set.status = 201
        return registerWebhook(deps, ctx, body)
      },
      {
        auth: 'secret',
        body: RegisterWebhookBody,
        response: { 201: RegisteredWebhook, 400: ErrorEnvelope, 409: ErrorEnvelope },
        detail: {
          tags,
          summary: 'Register an endpoint',
          description: `The response carries \`signingSecret\` this once: keep it to verify signatures. The endpoint gets the events written after it is registered. A store has at most ${MAX_ENDPOINTS_PER_STORE} endpoints (409 LIMIT_REACHED beyond). The URL must be https://; http:// to LAN addresses only when the server runs with --allow-insecure-webhooks, loopback only with --allow-loopback-webhooks (on by default when the server listens on loopback). Link-local and cloud metadata addresses, IPv6 forms that carry a refused IPv4 address, and this server's own address are refused. A host name that does not resolve yet is accepted (the deliveries log shows the resolution error), but not over http:// where only loopback takes http://: that is 400. Every attempt resolves the name again, checks the addresses and connects to a checked one.`,
        },
      },
    )
    .get('', ({ ctx, query }) => listWebhooks(deps, ctx, query), {
      auth: 'secret',
      query: PageQuery,
      response: { 200: WebhookList },
      detail: { tags, summary: "The store's endpoints", description: 'Oldest first. The signing secret is never shown again.' },
    })
    .delete(
      '/:id',
      ({ ctx, params }) => {
        deleteWebhook(deps, ctx, params.id)
        return noContent()
      },
      {
        auth: 'secret',
        params: IdParams,
        response: { 404: ErrorEnvelope },
        detail: { tags, summary: 'Remove an endpoint', description: 'Its deliveries log goes with it; pending attempts are dropped. 204 with no body.' },
      },
    )
    .post(
      '/:id/ping',
      ({ ctx, params, set }) => {
        set.status = 202
        return pingWebhook(deps, ctx, params.id)
      },
      {
        auth: 'secret',
        params: IdParams,
        response: { 202: DeliveryQueued, 404: ErrorEnvelope },
        detail: { tags, summary: 'Send a test event', description: 'A `ping` event to this endpoint only, signed like any other. Follow it in the deliveries log.' },
      },
    )
    .post('/:id/sign', ({ ctx, params, body }) => signForEndpoint(deps, ctx, params.id, body), {
      auth: 'secret',
      params: IdParams,
      body: SignBody,
      response: { 200: Signed, 400: ErrorEnvelope, 404: ErrorEnvelope },
      detail: {
        tags,
        summary: 'Sign a body with this endpoint\'s secret',
        description:
          'Returns what X-Signature would be for that X-Timestamp and raw body: compare it with what your verification code computes. ' +
          'Needs the secret key (or a student token): whoever can sign can forge your webhooks, so a publishable key gets 403 SECRET_KEY_REQUIRED.',
      },
    })
    .get('/deliveries', ({ ctx, query }) => listDeliveries(deps, ctx, query), {
      auth: 'secret',
      query: DeliveryQuery,
      response: { 200: DeliveryList, 400: ErrorEnvelope },
      detail: {
        tags,
        summary: 'Deliveries log',
        description: `Every attempt, newest first, with the answer (status, first 2 KB of the body), the error, the duration, the headers sent and the exact signed text. Filter by webhookId, eventType, status. The log is bounded: it keeps the store's newest ${DELIVERY_LOG_KEEP} finished attempts (trimmed back to that after every ${TRIM_EVERY} new ones, so at most ${DELIVERY_LOG_KEEP + TRIM_EVERY - 1}) and none older than the server's RETENTION_DAYS (30 by default); attempts still PENDING are always kept until sent. An endpoint with ${MAX_WAITING_PER_ENDPOINT} attempts PENDING queues no new one: a new event, ping or redelivery for it is logged FAILED at once with a \`backlog:\` error.`,
      },
    })
    .post(
      '/deliveries/:id/redeliver',
      ({ ctx, params, set }) => {
        set.status = 202
        return redeliver(deps, ctx, params.id)
      },
      {
        auth: 'secret',
        params: IdParams,
        response: { 202: DeliveryQueued, 404: ErrorEnvelope },
        detail: { tags, summary: 'Send an event again', description: 'The same event (same id and body), signed afresh, once, now. It is not retried if it fails.' },
      },
    )
