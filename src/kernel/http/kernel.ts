import { createGate } from '../auth/gate'
import type { StillAdmits } from '../auth/macro'
import { BYTES_PER_TOKEN } from '../auth/rate-limiter'
import { groupOpen, groupsSettled } from '../db/database'
import type { Deps } from '../deps'
import { randomToken } from '../ids'
import { answerChecker } from './answer-check'
import type { AnswerSet, Call } from './call'
import { clientAddress, type AddressSource } from './client-address'
import { JSON_BLOCK, answerHeaders } from './answer-headers'
import { toAnswer, withoutBody } from './answers'
import { isPreflight, preflightResponse } from './cors'
import { errorAnswer, routeNotFound, toAppError, uncommittedAnswer } from './failures'
import { refusalSource, storeOfCall } from './inspection'
import { assertNoBody, isJsonType, parseJson, readLimitedText, wrongBodyType } from './json-body'
import type { JsonBody } from './json-response'
import type { RouteEntry, RouteTable } from './route-table'
import { TakeTurns } from './take-turns'
import { namesASecret, RememberedChecks } from './remembered'
import { pathStart } from './target'
import { readTextBody } from './text-body'
import { bodyIsNeverRead, carriesBody, closeAfter } from './unread-body'
import { checkPart, takesNoBody } from './validation'

// What every request goes through, compiled once per route when the app is made (docs/architecture.md,
// "The request path"): a request id, CORS, the route's credential and the store's rate limit, its body
// (JSON with the size and shape limits, a text file, or a stream the route reads itself), its query,
// path and headers checked once against the schemas it declared, the handler, and one builder of every
// answer. Around it: the waits that keep answers behind the commit of the writes they rest on
// (groupedWrite, kernel/db/database.ts), the activity count of failures and the request inspector.
// A request is one Call object (call.ts) from start to end; a step that need not wait does not.

const incomingRequestId = /^[\w.:-]{1,64}$/

/** A JSON body this long (no route needs one) is parsed in its turn (take-turns.ts); a small one at once. */
const LARGE_BODY = 64 * 1024

/** What a handler is given: the parts of the request, checked, and `ctx` for a store route. */
interface HandlerContext {
  request: Request
  server: AddressSource | null
  set: AnswerSet
  ctx: Call['ctx']
  stillAdmits: StillAdmits
  params: unknown
  query: unknown
  headers: unknown
  body: unknown
}

type Handler = (context: HandlerContext) => unknown

const admitsAnyone: StillAdmits = () => true

/** A route's whole path for one request (compile, in createKernel): its handler's value, or a promise of it. */
type CompiledRoute = (call: Call, params: Readonly<Record<string, string>>, queryAt: number) => unknown

export interface Kernel {
  /** Answers one request; `server` is the listening server, null in-process. Never throws. */
  fetch(request: Request, server: AddressSource | null): Response | Promise<Response>
}

export function createKernel(routes: RouteTable, deps: Deps): Kernel {
  const gate = createGate(deps)
  const largeBodies = new TakeTurns()
  const checkAnswer = answerChecker(deps.log)
  const remembered = new RememberedChecks()
  const compiled = new Map<RouteEntry, CompiledRoute>()
  for (const route of routes.all()) compiled.set(route, compile(route))

  /** One route's path, with what it declared bound now rather than looked up per request. */
  function compile(route: RouteEntry) {
    const handler = route.handler as Handler
    const { auth } = route
    const readBody = bodyReader(route)
    const { params: paramsSchema, query: querySchema } = route
    const checkParams = paramsSchema && remembered.of((params: Readonly<Record<string, string>>) => checkPart('params', paramsSchema, params), paramsKeyOf(route.paramNames))
    const checkQuery = querySchema && remembered.of((text: string) => checkPart('query', querySchema, parsedQuery(text)))
    const headerSchema = route.headers
    const stillAdmits: StillAdmits = auth ? (request) => gate.stillAdmits(auth, request) : admitsAnyone
    const run = (call: Call, body: unknown, params: Readonly<Record<string, string>>, queryAt: number) => {
      const request = call.request
      const headers = headerSchema ? checkPart('headers', headerSchema, Object.fromEntries(request.headers)) : undefined
      const decoded = checkParams ? checkParams(params) : { ...params }
      const queryText = queryAt < 0 ? '' : request.url.slice(queryAt + 1)
      const query = checkQuery ? checkQuery(queryText) : parsedQuery(queryText)
      const context: HandlerContext = { request, server: call.server, set: call.set, ctx: call.ctx, stillAdmits, params: decoded, query, headers, body }
      return handler(context)
    }
    return (call: Call, params: Readonly<Record<string, string>>, queryAt: number): unknown => {
      // Authentication comes first, before the body is read: an unknown caller learns nothing else.
      if (auth) gate.admit(auth, call)
      if (!readBody) return run(call, null, params, queryAt)
      return next(readBody(call), (body) => run(call, body, params, queryAt))
    }
  }

  /** How a route takes its body: a JSON one checked against its schema, a text file, or none (undefined). */
  function bodyReader(route: RouteEntry): ((call: Call) => unknown) | undefined {
    // Upload routes read the stream themselves; a GET's body is never read (unread-body.ts).
    if (route.upload || route.method === 'GET') return undefined
    const { textBody, body: schema } = route
    if (textBody) {
      return async (call) => {
        const text = await readTextBody(call.request, call.request.headers.get('content-type') ?? '', textBody)
        call.sentBody = text
        return text
      }
    }
    // A route without a body schema takes none: one that says something is refused (json-body.ts,
    // assertNoBody), read within the JSON limit like any other.
    if (!schema) {
      const name = `${route.method} ${route.path}`
      return (call) => {
        if (!carriesBody(call.request)) return null
        return readLimitedText(call.request).then((text) => {
          call.sentBody = text
          assertNoBody(name, text)
          return null
        })
      }
    }
    // A body with a password or a token in it is checked each time, never kept (remembered.ts). Which
    // routes take one is found at a route's first body, not when the app is made: it takes a while.
    // An empty JSON body is no body where the route's body is optional (curl -H 'Content-Type: application/json' without -d).
    const read = (text: string) => checkPart('body', schema, text.trim() === '' && takesNoBody(schema) ? undefined : parseJson(text))
    let chosen: ((text: string) => unknown) | undefined
    const check = (text: string) => (chosen ??= namesASecret(schema) ? read : remembered.of(read))(text)
    return (call) => {
      const request = call.request
      const type = request.headers.get('content-type') ?? ''
      if (isJsonType(type)) return readJson(call, check)
      if (type === '' && !request.body) return checkPart('body', schema, undefined)
      throw wrongBodyType(type)
    }
  }

  async function readJson(call: Call, check: (text: string) => unknown) {
    const text = await readLimitedText(call.request)
    call.sentBody = text
    return text.length > LARGE_BODY ? largeBodies.run(() => check(text)) : check(text)
  }

  function fetch(request: Request, server: AddressSource | null): Response | Promise<Response> {
    const started = performance.now()
    const given = request.headers.get('x-request-id')
    const requestId = given !== null && incomingRequestId.test(given) ? given : `req_${randomToken(16)}`
    const unread = bodyIsNeverRead(request)
    if (request.method === 'OPTIONS' && isPreflight(request)) return preflightResponse(request, requestId, unread)
    const call: Call = {
      request,
      server,
      requestId,
      started,
      set: { status: 200, headers: {} },
      ctx: undefined,
      refused: undefined,
      sentBody: undefined,
      source: undefined,
    }
    if (unread) closeAfter(call.set.headers)
    const url = request.url
    const start = pathStart(url)
    const queryAt = start < 0 ? -1 : url.indexOf('?', start)
    const path = start < 0 ? '/' : queryAt < 0 ? url.slice(start) : url.slice(start, queryAt)
    const found = routes.match(request.method, path)
    const route = found?.route
    let answer: Response | Promise<Response>
    try {
      if (!found) {
        admitToNoRoute(call)
        throw routeNotFound(request.method, path, routes)
      }
      const run = compiled.get(found.route)!
      // A request that does not join the open commit group starts once it has committed, so that it
      // reads nothing the group could still undo (groupedWrite, kernel/db/database.ts).
      answer = route!.groupedWrites || !groupOpen(deps.db) ? answerOf(call, run, found.params, queryAt) : groupsSettled(deps.db).then(() => answerOf(call, run, found.params, queryAt))
    } catch (error) {
      answer = failed(call, error)
    }
    return next(answer, (response) => answered(call, route, response))
  }

  /**
   * Runs the route and makes its answer in one step, charged for its size (`charge`) in the step that
   * admitted the call: requests that waited for the same commit are admitted one by one, each after
   * the one before was charged, never all before any.
   */
  function answerOf(call: Call, run: CompiledRoute, params: Readonly<Record<string, string>>, queryAt: number): Response | Promise<Response> {
    try {
      const result = run(call, params, queryAt)
      return result instanceof Promise ? result.then((value) => made(call, value), (error) => failed(call, error)) : made(call, result)
    } catch (error) {
      return failed(call, error)
    }
  }

  /**
   * A route's value as its answer. One that is an error without being thrown (an idempotent payment's
   * refusal replayed) counts as an error, as a thrown one does in `failed`.
   */
  function made(call: Call, value: unknown): Response {
    // The status as the route set it, or as the Response it made says: a plain field first, the
    // Response's (a native getter) only for a Response.
    if (call.ctx && (call.set.status >= 400 || (value instanceof Response && value.status >= 400))) deps.activity.countError(call.ctx)
    return toAnswer(call, value, charge)
  }

  /**
   * Charges the call's store for the size of its JSON answer (the gate's chargeAnswer), which only an
   * answer of BYTES_PER_TOKEN or more has to pay: a text is measured only when it could be that long
   * (a character is at most 3 bytes), and nearly every answer goes no further.
   */
  function charge(call: Call, body: JsonBody) {
    if (call.ctx === undefined) return
    const bytes = typeof body === 'string' ? (body.length * 3 < BYTES_PER_TOKEN ? 0 : Buffer.byteLength(body)) : body.byteLength
    if (bytes >= BYTES_PER_TOKEN) gate.chargeAnswer(call, bytes)
  }

  /**
   * A call to no route (a typo in the path, a wrong method) made with a store's credential is still one
   * of that store's calls: counted for it (an error), under its rate limit, and shown in its request
   * inspector, where a student looks for what their app got wrong. Its answer stays the 404 or 405
   * whatever the credential; only the store's spent rate limit answers 429 instead.
   */
  function admitToNoRoute(call: Call) {
    const headers = call.request.headers
    if (headers.has('x-api-key') || headers.has('authorization')) gate.admitKnown(call)
  }

  /** The error envelope for whatever was thrown, counted for the caller, and logged when it is the server's fault. */
  function failed(call: Call, error: unknown): Response {
    const { request, ctx } = call
    const appError = toAppError(error, request)
    if (ctx) deps.activity.countError(ctx)
    // The client's address is known here, on the failed path: a flood's refusals are counted per source.
    call.source = refusalSource(call, appError.status, () => clientAddress(call.server, request))
    if (appError.status >= 500) {
      const what = { requestId: call.requestId, method: request.method, path: request.url.slice(Math.max(0, pathStart(request.url))) }
      // A full disk is the teacher's to fix, not a fault of the server: said so, without a stack.
      if (appError.code === 'INSUFFICIENT_STORAGE') deps.log.error(`the disk holding ${deps.config.dataDir} is full: requests that write answer 507 until there is room on it`, what)
      else deps.log.error('request failed', { ...what, error: error instanceof Error ? (error.stack ?? error.message) : String(error) })
    }
    // A refusal may come before or while the body arrives (unread-body.ts).
    if (carriesBody(request)) closeAfter(call.set.headers)
    return errorAnswer(appError, call.requestId, answerHeaders(call, JSON_BLOCK))
  }

  /**
   * An answer made while a commit group is open may rest on what the group wrote (a read after an
   * await, a plain INSERT that joined its transaction): it leaves once the group has committed, and if
   * the group could not commit, as that failure. A route that groups its writes waits for its own.
   */
  function answered(call: Call, route: RouteEntry | undefined, response: Response): Response | Promise<Response> {
    // In the test suite, an answer that breaks its schema becomes the server's fault (answer-check.ts).
    const checked = checkAnswer ? Promise.resolve(checkAnswer(route, response)).catch((error) => failed(call, error)) : response
    const final = call.request.method === 'HEAD' ? next(checked, withoutBody) : checked
    return next(final, (answer) => settled(call, route, answer))
  }

  function settled(call: Call, route: RouteEntry | undefined, final: Response): Response | Promise<Response> {
    if (!groupOpen(deps.db) || route?.groupedWrites) return inspect(call, route, final)
    return groupsSettled(deps.db).then((failure) => inspect(call, route, failure === undefined ? final : uncommittedAnswer(failure, final, call.requestId, answerHeaders(call, JSON_BLOCK), deps.log)))
  }

  /**
   * Hands a store's answered call to the request inspector. An error's answer text is read from a
   * copy before the answer leaves, so a client that saw the error finds it in the inspector.
   */
  function inspect(call: Call, route: RouteEntry | undefined, response: Response): Response | Promise<Response> {
    const store = storeOfCall(call)
    if (!store || route?.notInspected) return response
    const record = { store, request: call.request, requestId: call.requestId, status: response.status, durationMs: performance.now() - call.started, sentBody: undefined, answerBody: undefined, source: undefined, routeAuth: undefined }
    if (response.status < 400) {
      deps.inspector.record(record)
      return response
    }
    return response
      .clone()
      .text()
      .then((answerBody) => {
        deps.inspector.record({ ...record, sentBody: call.sentBody, answerBody, source: call.source, routeAuth: route?.auth })
        return response
      })
  }

  return { fetch }
}

/** `step` of `value` at once, or once it has settled when it is a promise: a step that need not wait does not. */
const next = <T, U>(value: T | Promise<T>, step: (value: T) => U | Promise<U>): U | Promise<U> => (value instanceof Promise ? value.then(step) : step(value))

/**
 * The query string as an object: a parameter sent once is its text, one sent more than once the list of
 * its texts (which a route's schema refuses, saying to send it once, unless it takes a list). A comma is
 * part of a value: search=camiseta, azul is one search (Elysia's parser made it a list of two).
 */
function parsedQuery(text: string): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = Object.create(null)
  if (text === '') return query
  for (const [name, value] of new URLSearchParams(text)) {
    // A parameter sent empty is one not sent: a shop's "All categories" option sends categoryId=, which
    // matched no product, and minPrice= read as 0. And `_` is the time jQuery's cache: false adds to
    // every GET so that no cache answers it: never a parameter.
    if (value === '' || name === '_') continue
    const seen = query[name]
    query[name] = seen === undefined ? value : [...[seen].flat(), value]
  }
  return query
}

/** The values of a path's parameters as one string (a line break is in no path); a path's one parameter is its own key. */
function paramsKeyOf(names: readonly string[]): (params: Readonly<Record<string, string>>) => string {
  const only = names.length === 1 ? names[0]! : undefined
  if (only !== undefined) return (params) => params[only]!
  return (params) => {
    let key = ''
    for (const name in params) key += `${params[name]}\n`
    return key
  }
}
