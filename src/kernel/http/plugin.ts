import { Elysia } from 'elysia'
import { randomToken } from '../ids'
import type { Log } from '../log'
import { corsHeaders, isPreflight, preflightResponse } from './cors'
import { errorsPlugin } from './errors-plugin'
import { isJsonType, parseJson, readLimitedText, wrongBodyType } from './json-body'
import type { RouteTable } from './route-table'

const incomingRequestId = /^[\w.:-]{1,64}$/

/**
 * What every request goes through before any feature sees it: a request id, CORS, JSON body parsing
 * with the size limit and content-type check, and the error envelope.
 * (CORS and the request id are set in onRequest, so error responses carry them too.)
 */
export const httpKernel = (routes: RouteTable, log: Log) =>
  new Elysia()
    .onRequest(({ request, set }) => {
      const given = request.headers.get('x-request-id')
      const requestId = given && incomingRequestId.test(given) ? given : `req_${randomToken(16)}`
      if (isPreflight(request)) return preflightResponse(request, requestId)
      Object.assign(set.headers, corsHeaders)
      set.headers['x-request-id'] = requestId
    })
    .use(errorsPlugin(routes, log))
    .onParse({ as: 'global' }, async ({ request, contentType, route }) => {
      const entry = routes.get(request.method, route)
      // Routes without a body schema ignore whatever was sent.
      if (entry && !entry.takesBody) return null
      const type = contentType ?? ''
      if (isJsonType(type)) return parseJson(await readLimitedText(request))
      if (type.startsWith('multipart/form-data')) return undefined
      if (type === '' && !request.body) return undefined
      throw wrongBodyType(type)
    })
