import { z } from 'zod'
import { INSTANT_FORMS, instantQuery } from '../../kernel/instant-query'
import { Page, PageQuery } from '../../kernel/pagination'

const STATUS_FILTER = /^(?:[1-5]xx|[1-5]\d\d)$/

/**
 * Who made a call, as the caller says in the X-Storefront-Client header: `panel` (the store panel's own
 * screens), `teacher` (the teacher's screens), anything else or none is `app`. A view filter, not a check:
 * an app may send it too, and then its calls are filed under that name.
 */
export const CLIENT_HEADER = 'x-storefront-client'
export const CLIENTS = ['app', 'panel', 'teacher'] as const
export type Client = (typeof CLIENTS)[number]
export const clientOf = (header: string | null): Client => (header === 'panel' || header === 'teacher' ? header : 'app')

/** The credential a route takes, as the inspector names it (a student's own routes are student routes). */
export const ROUTE_AUTH = ['shop', 'secret', 'student', 'customer', 'admin'] as const

export const RequestQuery = PageQuery.extend({
  status: z
    .string()
    .regex(STATUS_FILTER, 'status must be 2xx, 4xx, 5xx (a class) or an exact code such as 404')
    .optional()
    .describe('a class (2xx, 4xx, 5xx) or an exact status code (404)'),
  method: z
    .string()
    .regex(/^[A-Za-z]{1,10}$/, 'method must be an HTTP method such as GET or POST')
    .transform((m) => m.toUpperCase())
    .optional()
    .describe('GET, POST, PUT, PATCH or DELETE (any case)'),
  path: z.string().max(512, 'path is a prefix of at most 512 characters, e.g. /v1/orders').optional().describe('only paths starting with this, e.g. /v1/orders'),
  rm: z.string().max(32, 'rm is a student number of at most 32 characters').optional().describe('only calls counted for this student (their token, or X-Student-RM with the secret key)'),
  client: z
    .enum(CLIENTS, 'client must be app, panel or teacher')
    .optional()
    .describe('only calls of this client, by its X-Storefront-Client header: panel (the store panel), teacher (the teacher\u2019s screens), app (any other call)'),
  since: instantQuery('since')
    .optional()
    .describe(`only entries answered at or after this time: createdAt, or a counted entry\u2019s newest call (lastCreatedAt). ${INSTANT_FORMS}`),
})
export type RequestQuery = z.infer<typeof RequestQuery>

/** A live stream's query: what an EventSource polyfill adds when it reconnects, read and left (the stream sends the calls made from then on). */
export const StreamQuery = z.strictObject({
  lastEventId: z.string().max(200).optional().describe('Added by EventSource polyfills when they reconnect; taken and ignored: the stream sends the calls made from the moment it opens.'),
})

export const RequestEntry = z
  .object({
    id: z.string().describe('the X-Request-Id of the answer (your own, if the request sent one); of a counted entry, its first call\u2019s'),
    createdAt: z.string().describe('when the answer was made (ISO 8601, the server\u2019s clock); of a counted entry, its first call\u2019s'),
    method: z.string(),
    path: z.string().describe('as sent, cut at 512 characters; secrets redacted'),
    query: z.string().describe('the query string without "?", "" for none; secrets redacted'),
    status: z.number().int(),
    durationMs: z.number().int().describe('from the request arriving to the answer being ready'),
    credential: z.enum(['secret', 'publishable', 'student', 'customer']).describe('what the call presented: a secret or publishable key, a student token, or a key with a customer token'),
    rm: z.string().nullable().describe('the student the call counted for (their token, or X-Student-RM beside the secret key), or null'),
    client: z.enum(CLIENTS).describe('who made the call, by its X-Storefront-Client header: panel, teacher, or app for any other value or none'),
    fromPage: z
      .string()
      .nullable()
      .describe(
        'for a call made with the secret key: the Origin header a browser sent with it ("null" for a page opened from a file), which means the key is in a web page, where anyone who opens the page can read it; a page takes the publishable key (pk_...). null otherwise: a server\u2019s calls send no Origin',
      ),
    errorCode: z.string().nullable().describe('for an answer >= 400: its error code (HTTP when the answer was not the error envelope); null for an answer < 400'),
    errorMessage: z.string().nullable().describe('for an answer >= 400: its error message, secrets redacted; null for an answer < 400'),
    count: z
      .number()
      .int()
      .min(1)
      .describe(
        'how many calls this entry stands for: 1, or for refusals a flood repeats (429, and 401 for a credential that named the store) the calls of one source in one minute; status, path, errorCode and errorMessage are the first call\u2019s',
      ),
    lastCreatedAt: z.string().describe('when the newest call this entry counts was answered: createdAt itself when count is 1'),
  })
  .meta({ id: 'RequestEntry' })

export const RequestDetail = RequestEntry.extend({
  requestHeaders: z.record(z.string(), z.string()).describe('for an answer >= 400: the headers sent, credentials as "[redacted]"; {} otherwise'),
  requestBody: z
    .string()
    .nullable()
    .describe('for an answer >= 400: the JSON or text body sent, cut at 8 KB, secrets redacted. null for a success, a call refused before its body was read (401/403/429), an upload, or when the store\u2019s body budget let it go (bodiesDropped)'),
  responseBody: z.string().nullable().describe('for an answer >= 400: the answer\u2019s body, cut at 8 KB, secrets redacted; null otherwise'),
  requestBodyTruncated: z.boolean(),
  responseBodyTruncated: z.boolean(),
  routeAuth: z
    .enum(ROUTE_AUTH)
    .nullable()
    .describe('for an answer >= 400: the credential the route takes (shop: a store key; secret: the secret key; student: a student token; customer: a store key plus a customer token; admin: the teacher\u2019s token); null otherwise or for a path no route has'),
  bodiesDropped: z.boolean().describe('true when the bodies were let go to keep the newest failures\u2019 bodies within the store\u2019s budget'),
}).meta({ id: 'RequestDetail' })

export const RequestList = Page(RequestEntry)

export const RequestParams = z.object({ requestId: z.string() })
export const GroupParams = z.object({ id: z.string() })
export const GroupRequestParams = z.object({ id: z.string(), requestId: z.string() })

export type RequestEntry = z.infer<typeof RequestEntry>
export type RequestDetail = z.infer<typeof RequestDetail>
