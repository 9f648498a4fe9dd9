import { Elysia } from 'elysia'
import { randomToken } from '../ids'
import { createGate } from '../auth/gate'
import { callerOf } from '../auth/macro'
import { groupOpen, groupsSettled } from '../db/database'
import type { Deps } from '../deps'
import { corsHeaders, isPreflight, preflightResponse } from './cors'
import { errorsPlugin, uncommittedAnswer } from './errors-plugin'
import { namedStoreOf, refusalSource, refusedStoreOf, rememberSentBody, rememberSource, sentBodyOf, sourceOf } from './inspection'
import { targetOf } from './target'
import { isJsonType, parseJson, readLimitedText, wrongBodyType } from './json-body'
import { clientAddress, type AddressSource } from './client-address'
import type { RouteEntry, RouteTable } from './route-table'
import { readTextBody } from './text-body'
import { TakeTurns } from './take-turns'
import { bodyIsNeverRead, carriesBody, closeAfter } from './unread-body'
import { checkBody } from './validation'

const incomingRequestId = /^[\w.:-]{1,64}$/

const pathOf = (request: Request) => targetOf(request.url).path

/** A JSON body this long (no route needs one) is parsed in its turn (take-turns.ts); a small one at once. */
const LARGE_BODY = 64 * 1024

/**
 * What every request goes through before any feature sees it: a request id, CORS, authentication and
 * the store's rate limit (from the route's declared auth kind), JSON body parsing with the size limit
 * and content-type check (text-body routes take their one text type instead), the error envelope, and counting the call for the teacher's activity report,
 * and the waits that keep answers behind the commit of the writes they rest on (groupedWrite, kernel/db/database.ts).
 * (CORS and the request id are set in onRequest, so error responses carry them too.)
 */
export const httpKernel = (routes: RouteTable, deps: Deps) => {
  const gate = createGate(deps)
  const largeBodies = new TakeTurns()
  // Authentication comes first, before the body is read: an unknown caller learns nothing else.
  const admit = (route: RouteEntry | undefined, request: Request, server: AddressSource | null, headers: Record<string, unknown>) => {
    if (route?.auth) gate.admit(route.auth, request, server, headers)
  }
  /**
   * An answer made while a commit group is open may rest on what the group wrote (a read after an
   * await, a plain INSERT that joined its transaction): it leaves once the group has committed, and if
   * the group could not commit, as that failure. A route that groups its writes waits for its own.
   */
  const afterGroups = (request: Request, response: Response) => {
    if (!groupOpen(deps.db) || routes.match(request.method, pathOf(request))?.groupedWrites) return response
    return groupsSettled(deps.db).then((failure) => (failure === undefined ? response : uncommittedAnswer(failure, response, deps.log)))
  }
  // Calls of the routes that read the inspector, which must not fill it.
  const uninspected = new WeakSet<Request>()
  /**
   * Hands a store's answered call to the request inspector. An error's answer text is read from a
   * copy before the answer leaves, so a client that saw the error finds it in the inspector.
   */
  const inspect = (request: Request, response: Response, started: number): Response | Promise<Response> => {
    const caller = callerOf(request)
    const store = caller ? namedStoreOf(caller) : refusedStoreOf(request)
    if (!store || uninspected.has(request)) return response
    const call = { store, request, requestId: response.headers.get('x-request-id') ?? '', status: response.status, durationMs: performance.now() - started, sentBody: undefined, answerBody: undefined, source: undefined, routeAuth: undefined }
    if (response.status < 400) {
      deps.inspector.record(call)
      return response
    }
    return response
      .clone()
      .text()
      .then((answerBody) => {
        deps.inspector.record({ ...call, sentBody: sentBodyOf(request), answerBody, source: sourceOf(request), routeAuth: routes.match(request.method, pathOf(request))?.auth })
        return response
      })
  }
  const answered = (request: Request, response: Response, started: number) => {
    const final = afterGroups(request, response)
    return final instanceof Promise ? final.then((r) => inspect(request, r, started)) : inspect(request, final, started)
  }
  return new Elysia()
    .wrap((handle) => (request: Request) => {
      const started = performance.now()
      const answer = handle(request) as unknown as Response | Promise<Response>
      return answer instanceof Promise ? answer.then((response) => answered(request, response, started)) : answered(request, answer, started)
    })
    .onRequest(({ request, set, server }) => {
      const given = request.headers.get('x-request-id')
      const requestId = given && incomingRequestId.test(given) ? given : `req_${randomToken(16)}`
      const unread = bodyIsNeverRead(request)
      if (isPreflight(request)) return preflightResponse(request, requestId, unread)
      Object.assign(set.headers, corsHeaders)
      set.headers['x-request-id'] = requestId
      if (unread) closeAfter(set.headers)
      const route = routes.match(request.method, pathOf(request))
      if (route?.notInspected) uninspected.add(request)
      // A request that does not join the open commit group starts once it has committed, so that it
      // reads nothing the group could still undo (groupedWrite, kernel/db/database.ts).
      if (!route?.groupedWrites && groupOpen(deps.db)) return groupsSettled(deps.db).then(() => admit(route, request, server, set.headers))
      admit(route, request, server, set.headers)
    })
    .use(errorsPlugin(routes, deps.log, (request, status, server) => {
      const caller = callerOf(request)
      if (caller) deps.activity.countError(caller)
      // The client's address is known here, on the failed path: a flood's refusals are counted per source.
      const source = refusalSource(request, status, caller, () => clientAddress(server, request))
      if (source) rememberSource(request, source)
    }))
    .onParse({ as: 'global' }, async ({ request, contentType, route, set }) => {
      const entry = routes.get(request.method, route)
      const type = contentType ?? ''
      // A route declared with textBodyDetail() takes its one text type instead of JSON.
      if (entry?.textBody) return readTextBody(request, type, entry.textBody).then((text) => (rememberSentBody(request, text), text))
      // Upload routes read the stream themselves.
      if (entry?.upload) return null
      // A route without a body schema ignores what was sent (unread-body.ts).
      if (entry && !entry.body) {
        if (carriesBody(request)) closeAfter(set.headers)
        return null
      }
      if (isJsonType(type)) {
        const text = await readLimitedText(request)
        rememberSentBody(request, text)
        const read = () => {
          const body = parseJson(text)
          return entry?.body ? checkBody(entry.body, body) : body
        }
        return text.length > LARGE_BODY ? largeBodies.run(read) : read()
      }
      if (type === '' && !request.body) return undefined
      throw wrongBodyType(type)
    })
}
