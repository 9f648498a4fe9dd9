import { Elysia } from 'elysia'
import { authMacro } from '../../kernel/auth/macro'
import type { Deps } from '../../kernel/deps'
import { ErrorEnvelope } from '../../kernel/errors'
import { NOT_INSPECTED_EXTENSION } from '../../kernel/http/inspection'
import { getGroup } from '../groups'
import { CAPACITY, MAX_STREAMS, MAX_TEACHER_STREAMS, SHOP_FRONT_CAPACITY, type InspectorDeps } from './log'
import { GroupParams, GroupRequestParams, RequestDetail, RequestList, RequestParams, RequestQuery, StreamQuery } from './model'
import { liveStream } from './stream'

const ABOUT = `The server keeps each store's last ${CAPACITY} entries of calls made with its secret key and its students' tokens and, apart, the last ${SHOP_FRONT_CAPACITY} of its shop front (the publishable key, alone or with a customer token: credential publishable, or customer with that key), in memory (a restart empties it), including calls it refused with 401, 403 or 429 when the credential still named the store (a revoked key, a publishable key on a secret route, the rate limit). Both are read as one list, newest first (total, pages, filters and the single entry alike): whoever copies the publishable key from the shop page pushes out only the shop front's older calls. A flood cannot push your app's calls out: the rate limit's 429s, and the 401s of a credential that named the store without passing (a publishable key on a buyer route with no valid customer token, a revoked key, an expired session), are kept as one entry per source and minute of the server's clock, whose \`count\` says how many calls it stands for, from \`createdAt\` to \`lastCreatedAt\`, with the first call's id, status, path, \`errorCode\` and \`errorMessage\` (the newest call's id finds it too). A source is the credential's kind, which credential (an API key's public prefix such as pk_1a2b3c4d, or a student's RM) and the client's address. Failed calls (status >= 400) also keep the headers (each cut at 1 KB) and both bodies (each cut at 8 KB); path and query are cut at 512 characters. Secrets become "[redacted]" wherever they are written, as they are or percent-encoded: keys (sk_, pk_), tokens (stu_, ctk_), signing secrets (whsec_) and the teacher's token in the path, the query, any header and both bodies, tokens written with JSON escapes (stu\\u005f...) too, and the value of any body field (at any depth), query parameter or header whose name contains pass, senha, pwd, secret, token, apikey, authorization, credential or cookie, is key, or has pw as a word (pw, newPw, user_pw), in any case. A body that is not JSON (a form, a JavaScript or Python literal) loses the values of its name=value and name: value pairs named so, however quoted, and an answer quoting such a value (a JSON parse error) has it hidden too. Reading the inspector is not itself kept.`

const STREAM_ABOUT = `Server-Sent Events: one \`event: request\` per new entry, its data a RequestEntry as JSON, and a \`: heartbeat\` comment every 15 s. A counted entry (count > 1, see the list) is sent again with the same id and its new count at most once a second of the server's clock while calls keep being counted, and once more when its second is over if calls were counted since: the stream ends a burst with the exact count the list has. A browser's EventSource cannot send X-API-Key or Authorization, so read it with fetch() and the body's stream reader (the panel's Requests page does). A stream whose reader falls 256 KB behind is closed: list the calls again, then reconnect.`

const STORE_SLOTS = `At most ${MAX_STREAMS} streams per store are open at once (409 LIMIT_REACHED beyond); the teacher's streams do not take these places.`

const TEACHER_SLOTS = `The teacher's streams of a group have ${MAX_TEACHER_STREAMS} places of their own: the group's ${MAX_STREAMS} streams never make this one a 409, and a ${MAX_TEACHER_STREAMS + 1}th stream of the teacher's on the same group is a 409 LIMIT_REACHED.`

const streamAnswer = {
  description: 'The live stream (text/event-stream); it stays open until the client closes it.',
  headers: { 'Cache-Control': { $ref: '#/components/headers/Cache-Control' } },
  content: { 'text/event-stream': { schema: { type: 'string', description: 'event: request / id: <request id> / data: <RequestEntry JSON>' } } },
}

const hooks = (summary: string, description: string, extra: Record<string, unknown> = {}) => ({
  tags: ['Request inspector'],
  summary,
  description,
  [NOT_INSPECTED_EXTENSION]: true,
  ...extra,
})

const storeOfGroup = (deps: Deps, id: string) => getGroup(deps, id).storeId

/** The request inspector: a store's recent calls for its students (or its secret key), and any group's for the teacher. */
export const inspectorRoutes = (deps: InspectorDeps, log = deps.requestLog) =>
  new Elysia()
    .use(authMacro)
    .get('/store/requests', ({ ctx, query }) => log.list(ctx.storeId, query), {
      auth: 'secret',
      query: RequestQuery,
      response: { 200: RequestList, 400: ErrorEnvelope },
      detail: hooks("The store's recent calls, newest first", `${ABOUT} Filters: status (2xx, 4xx, 5xx or an exact code), method, path (a prefix), rm, since.`),
    })
    .get('/store/requests/stream', ({ ctx, request, server, stillAdmits }) => liveStream(log, ctx.storeId, 'store', request, server, stillAdmits), {
      auth: 'secret',
      query: StreamQuery,
      response: { 400: ErrorEnvelope, 409: ErrorEnvelope },
      detail: hooks("The store's calls, live", `${STREAM_ABOUT} ${STORE_SLOTS}`, { responses: { 200: streamAnswer } }),
    })
    .get('/store/requests/:requestId', ({ ctx, params }) => log.find(ctx.storeId, params.requestId), {
      auth: 'secret',
      params: RequestParams,
      response: { 200: RequestDetail, 404: ErrorEnvelope },
      detail: hooks('One call, with its headers and bodies when it failed', `${ABOUT} The id is the X-Request-Id header of the answer; the newest call with that id is returned.`),
    })
    .get('/admin/groups/:id/requests', ({ params, query }) => log.list(storeOfGroup(deps, params.id), query), {
      admin: true,
      params: GroupParams,
      query: RequestQuery,
      response: { 200: RequestList, 400: ErrorEnvelope, 404: ErrorEnvelope },
      detail: hooks("A group's recent calls, newest first", `What the group sees in GET /v1/store/requests, with the same filters and the same counted entries. ${ABOUT}`, { tags: ['Admin'] }),
    })
    .get('/admin/groups/:id/requests/stream', ({ params, request, server, stillAdmits }) => liveStream(log, storeOfGroup(deps, params.id), 'teacher', request, server, stillAdmits), {
      admin: true,
      params: GroupParams,
      query: StreamQuery,
      response: { 400: ErrorEnvelope, 404: ErrorEnvelope, 409: ErrorEnvelope },
      detail: hooks("A group's calls, live", `What the group sees in GET /v1/store/requests/stream. ${STREAM_ABOUT} ${TEACHER_SLOTS}`, { tags: ['Admin'], responses: { 200: streamAnswer } }),
    })
    .get('/admin/groups/:id/requests/:requestId', ({ params }) => log.find(storeOfGroup(deps, params.id), params.requestId, `GET /v1/admin/groups/${params.id}/requests`), {
      admin: true,
      params: GroupRequestParams,
      response: { 200: RequestDetail, 404: ErrorEnvelope },
      detail: hooks("One call of a group's", 'What the group sees in GET /v1/store/requests/{requestId}.', { tags: ['Admin'] }),
    })
