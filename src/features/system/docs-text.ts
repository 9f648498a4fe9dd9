import { MAX_JSON_DEPTH, MAX_JSON_VALUES_TEXT } from '../../kernel/http/json-shape'
import { MAX_DETAILS } from '../../kernel/http/validation'
import { FILE_GUARDS } from '../media'
import { MAX_CART_LINES, MAX_LINE_QUANTITY, MAX_PRICE } from '../../kernel/money'

/** The prose of the OpenAPI document: what a student reads first on /docs. */
export const API_DESCRIPTION = `
A teaching commerce backend. Each student group owns one store; your app calls this API over the LAN.

## Base URL and versions
Every business route starts with \`/v1\`. \`GET /health\` (no \`/v1\`, no authentication) says whether the
service is up.

## The web panel
\`/panel\` (same server) is a web page for your store (settings, API keys, members, catalog, orders,
reviews, webhooks, media) and for the teacher (groups, activity). It calls only the routes below, with
the same credentials as your app: open the browser's network tab to see a worked example of each call.

## Credentials
| header | who | where it comes from |
|---|---|---|
| \`X-API-Key: sk_...\` (secret key) | your group's app on its server: every store route | created in the store panel, shown once |
| \`X-API-Key: pk_...\` (publishable key) | your shop front in the browser: the shop-front routes only | created in the store panel, shown once |
| \`Authorization: Bearer stu_...\` | a student in the store panel; also accepted in place of the secret key | \`POST /v1/store/auth/login\` |
| \`Authorization: Bearer ctk_...\` plus \`X-API-Key\` (either kind) | a logged-in customer (cart, orders, own reviews) | \`POST /v1/customers/login\` |
| \`X-Admin-Token\` | the teacher | printed when the server first starts |

**Which key goes where.** Anything in a browser page can be copied by whoever opens it, so a shop front
that runs in the browser holds only a publishable key. It opens the shop-front routes: catalog reads
(products, variants, categories, brands, collections, a product's public reviews and summary), customer
register, login and \`me\`, and with a customer token the cart, checkout, payment, the customer's own orders,
\`can-review\` and the customer's own reviews. It sees PUBLISHED products only: a DRAFT or ARCHIVED product
(its variants, reviews and images too) is \`404\` as an unknown id, lists leave it out, and
\`state=DRAFT\` or \`ARCHIVED\` on the product list is \`403 SECRET_KEY_REQUIRED\`. Every other route that
the secret key opens (managing the catalog, stock, orders, refunds, customers' data, webhooks and their
\`sign\` helper, media) answers a publishable key \`403 SECRET_KEY_REQUIRED\`: call it from your app's
server, with the secret key. Neither kind of key opens the store panel's routes (settings, API keys,
members), which take a student token.
Each operation below lists the credentials it takes.

Send \`X-Student-RM: <your RM>\` with the secret key so your calls count for you. Calls with the
publishable key count for your group's shop front, never for a student, whatever \`X-Student-RM\` says:
whoever opens your shop page can copy that key.

## Errors
Every error has the same body, whatever the route:
\`{"error": {"code": "UPPER_SNAKE", "message": "what went wrong and what to do next", "details": [...]}}\`.
\`details\` appears on validation errors (\`[{path, message}]\`) and on stock and media conflicts.
A \`405\` means the path exists but not for that method; its \`Allow\` header lists the methods it takes.
Every response carries \`X-Request-Id\`; quote it when asking about an internal error (500).
Two answers come from the HTTP server itself, before the request reaches any route, and carry no body
and no \`X-Request-Id\`; both close the connection: \`431\` when the request's line and headers together
pass 16 KiB (a query string grown in a loop, a token pasted twice: send a shorter URL or fewer headers), and
\`400\` when what was sent is not an HTTP request (a broken request line or header line, a
\`Content-Length\` that is not a number): use an HTTP client rather than a raw socket.

## What each operation may answer
Each operation below lists every status it may answer. Besides the ones of its own feature, some come
from what every request goes through, in this order:
- \`401\` where the operation takes a credential and it is missing, unknown, revoked, expired or of
  another kind. Such a request is not counted for your group and not held against your rate limit.
- \`429 RATE_LIMITED\` where it takes a store credential (not the teacher's), when your store sent more
  than its limit; wait \`Retry-After\` seconds. The teacher may turn the limit off. Calls with the
  publishable key have a limit of their own for each client address (the same size; an IPv6 client
  counts by its /64 network), so a shop page flooded from one browser slows neither its other visitors
  nor your server's secret key and the panel; all the shop front's clients together may send at most
  four times the store's limit. A large answer counts as more than one request: one more for every
  full 64 KiB of it (a page of 100 products with many variants can weigh megabytes, and costs the
  server what a hundred small calls do). Nearly every answer is smaller and counts as one; the one that
  passes what is left is still given, and the calls after it wait (the 429 says so).
- \`403 PASSWORD_CHANGE_REQUIRED\` where a student token is taken (until the first password is changed),
  and \`403 SECRET_KEY_REQUIRED\` for a publishable key where the secret key is needed.
- \`400\`, \`413\` and \`415\` where it takes a body; \`400\` where its query has rules, a parameter it does not
  take among them (the message lists those it takes: \`search\`, not \`q\`). A parameter sent empty
  (\`categoryId=\`, as an "All" option sends it) is one not sent. An operation of another
  method than GET that takes no body answers \`400\` to one that says something (an empty body or \`{}\` says
  nothing), and \`413\` past 1 MiB: a field it does not take is never dropped without a word.
- \`404\` where its path names something (an id of another store is not found either).
- \`500\` (a fault in the server: quote the \`requestId\`) and \`507\` (the server's disk is full and nothing
  was saved: tell the teacher) on every operation.

The \`404\` of a path that no route has, and the \`405\` of a method a path does not take, belong to no
operation. \`HEAD\` is answered like \`GET\`, without the body.

Every answer carries \`X-Request-Id\`. Every answer to a store credential, once it is known, carries
\`RateLimit-Limit\`, \`RateLimit-Remaining\` and \`RateLimit-Reset\` while the limit is on. A \`201\`
carries \`Location\` when what it created has a GET of its own: the path to read it again
(\`POST /v1/products\` → \`Location: /v1/products/prod_...\`; a variant, a category, brand or
collection, an order at checkout and the teacher's new group likewise). The body is the resource either way.

## Conventions
- Ids are strings with a type prefix (\`prod_\`, \`var_\`, \`ord_\`, ...) and 20 characters of [0-9a-z]. Treat them as
  opaque: they begin with the time they were made (so the database keeps new rows together), but an
  app that needs a time reads \`createdAt\`.
- Money is a JSON number with at most 2 decimals (kept as integer cents inside). A price is at most
  ${MAX_PRICE}, a cart line at most ${MAX_LINE_QUANTITY} units and a cart at most ${MAX_CART_LINES} lines, so every total is exact.
- Times are ISO 8601 strings in UTC.
- Lists take \`page\` (default 1) and \`pageSize\` (default 20, at most 100) and answer
  \`{data, page, pageSize, total}\`. The short ones (a store's API keys, a group's members, the event
  names) default to 100, so that without the two they come whole.
- JSON bodies need \`Content-Type: application/json\` and may be up to 1 MiB, nested at most
  ${MAX_JSON_DEPTH} levels and holding at most ${MAX_JSON_VALUES_TEXT} values (no route needs anything close); fields the route
  does not know, or may not change, are a 400 that names them (the first ${MAX_DETAILS} problems, with the count),
  and so is a key named \`__proto__\` anywhere in the body.
- An answer given without reading the whole request body (an error, or a body the route does not take)
  carries \`Connection: close\`: the client sends its next request on a new connection.
- A query parameter the operation does not take is a 400 naming the ones it takes (or saying it takes
  none). Operations that take no credential ignore their query: a file's URL (\`?v=2\` may refresh a
  browser's copy of an image), \`/health\`, the student login. \`_\` is never a parameter (jQuery's
  \`cache: false\` adds \`_=<time>\`), and the live streams take the \`lastEventId\` an EventSource
  polyfill adds when it reconnects.
`.trim()

export const TAGS = [
  { name: 'System', description: 'Health and this reference.' },
  {
    name: 'Catalog',
    description:
      'Products, their variants (the sellable unit: carts take variant ids), categories, brands and collections. A product\'s price is its cheapest variant\'s; its stock, the sum of what its variants have available.',
  },
  {
    name: 'Stock',
    description:
      'Stock changes only here (receive, adjust) and through orders (reserve, release, sale, return); every change is in the ledger of its variant. available = stock - reserved; product.low_stock is sent when available falls to minStock or below.',
  },
  {
    name: 'Store panel',
    description: 'For the students of a group, with a student token: login, settings, API keys, members. API keys do not open these routes.',
  },
  { name: 'Customers', description: "The shop's buyers, per store: register, log in, and the customer token for cart and orders." },
  {
    name: 'Cart and orders',
    description:
      "The buyer's side, with a key and the customer token: the cart, checkout (which reserves the stock), paying with PIX or a credit card (simulated, with a simulated decline), and the customer's own orders. The store manages its orders under Store panel.",
  },
  { name: 'Media', description: "The store's library of pictures and videos, product images, and the public files behind media URLs." },
  { name: 'Reviews', description: 'Reviews by buyers (a paid order containing the product), one per product, with photos from the library; moderation hides them from the shop front and the summary.' },
  { name: 'Webhooks', description: 'Signed notifications of events (orders, stock, reviews) sent to your app, with a log of every attempt.' },
  {
    name: 'Request inspector',
    description: "The store's recent calls as the server saw them: what your app sent and what came back, failed ones with both bodies (secrets redacted), and a live stream. For debugging your app.",
  },
  { name: 'Admin', description: "For the teacher, with X-Admin-Token: groups, students' passwords, activity for grading." },
]

export const SECURITY_SCHEMES = {
  secretKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: "Your store's secret key (sk_...): every store route. Keep it on your app's server, never in a browser page.",
  },
  publishableKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: "Your store's publishable key (pk_...): the shop-front routes only, so it may sit in a browser page. Elsewhere 403 SECRET_KEY_REQUIRED.",
  },
  studentToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'Student token (stu_...) from POST /v1/store/auth/login. Accepted in place of the secret key.',
  },
  customerToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'Customer token (ctk_...) from POST /v1/customers/login, sent together with X-API-Key (publishable or secret).',
  },
  adminToken: { type: 'apiKey', in: 'header', name: 'X-Admin-Token', description: "The teacher's token." },
} as const

/**
 * X-Student-RM as the operations that honour it declare it (`components.parameters`): read by the gate,
 * never checked, so it is told here and not declared as a route's header schema (which would refuse a
 * request for it).
 */
export const STUDENT_RM_PARAMETER = {
  name: 'X-Student-RM',
  in: 'header',
  required: false,
  description:
    "The RM of the student who wrote the calling code, so that the call counts for them (the teacher's activity report, the request inspector's `rm`). It counts only beside the secret key (sk_...), alone or with a customer token, and only for a member of the store's group: another RM counts as unattributed. With the publishable key (pk_...) the call counts for the group's shop front whatever it says; with a student token, for that student. It changes nothing else: no call is refused for it.",
  schema: { type: 'string' },
  example: '12345',
} as const

/**
 * The error answers shared by the operations (`components.responses`), each with what it means. Every
 * one has the error envelope as its body; `headers` names the headers of RESPONSE_HEADERS it may carry.
 */
export const ERROR_RESPONSES = {
  BadRequest: {
    status: 400,
    description: `\`VALIDATION_ERROR\`: the request breaks a rule of this operation (its body, query or a header), or the body is not JSON. The message says what to fix; a body or query that breaks its schema gets \`details\`, one {path, message} per problem (the first ${MAX_DETAILS}).`,
  },
  Unauthenticated: {
    status: 401,
    description:
      '`UNAUTHENTICATED`: no credential, or one that is unknown, revoked or expired (a login with a wrong password too); `WRONG_CREDENTIAL`: a credential of another kind than this operation takes. The message says which credential to send and where to get it.',
  },
  PaymentDeclined: {
    status: 402,
    description: '`PAYMENT_DECLINED`: the simulated payment was declined (`simulate: "decline"`); the order stays PENDING and may be paid again.',
    headers: ['Idempotent-Replayed'],
  },
  SecretKeyRequired: {
    status: 403,
    description:
      "`SECRET_KEY_REQUIRED`: a publishable key (pk_...) on an operation that takes the store's secret key, or asking for what only the secret key reads (`state=DRAFT` or `ARCHIVED` on the product list): call it from your app's server with the secret key (sk_...). `PASSWORD_CHANGE_REQUIRED`: a student token whose first password was not changed yet (POST /v1/store/auth/change-password).",
  },
  PasswordChangeRequired: {
    status: 403,
    description: '`PASSWORD_CHANGE_REQUIRED`: a student token whose first password was not changed yet: change it first (POST /v1/store/auth/change-password).',
  },
  Forbidden: {
    status: 403,
    description: 'The caller is known but may not do this (`FORBIDDEN`: another customer\'s review; `REVIEW_NOT_ALLOWED`: no paid order with the product). The message says why.',
  },
  NotFound: {
    status: 404,
    description: "`NOT_FOUND`: nothing with that id in this store (another store's ids are not found either). The message says where the right ids are listed, and names the kind of id sent when it is another kind.",
  },
  Conflict: {
    status: 409,
    description: 'The request is well formed but clashes with what is stored now (a code such as `CONFLICT`, `INSUFFICIENT_STOCK`, `INVALID_TRANSITION`; `LIMIT_REACHED` when a store or group already has as many of something as it may: webhook endpoints, members, live streams, uploads at once; the operation\'s description lists them). The message says what to do instead.',
  },
  PayloadTooLarge: {
    status: 413,
    description: '`PAYLOAD_TOO_LARGE`: a JSON or text body over 1 MiB; on uploads `FILE_TOO_LARGE` (over the size for its kind) or `QUOTA_EXCEEDED` (the store\'s library is full). Nothing was kept.',
  },
  UnsupportedMediaType: {
    status: 415,
    description: '`UNSUPPORTED_MEDIA_TYPE`: the body is not of the type this operation takes (JSON needs Content-Type: application/json), or an upload is not a file type the library takes. The message names the type to send.',
  },
  RangeNotSatisfiable: {
    status: 416,
    description: '`RANGE_NOT_SATISFIABLE`: the Range asked for bytes the file does not have; Content-Range gives its size.',
    headers: ['Content-Range'],
  },
  IdempotencyKeyReused: {
    status: 422,
    description: '`IDEMPOTENCY_KEY_REUSED`: this Idempotency-Key was used for a different request in the last 24 h; use a new key for a new payment.',
  },
  RateLimited: {
    status: 429,
    description: '`RATE_LIMITED`: your store (with the publishable key: this client address of its shop front; on a login: this account or address) sent more requests than its limit allows; other stores are not slowed. Wait Retry-After seconds, then slow your loop down.',
    headers: ['Retry-After'],
  },
  InternalError: {
    status: 500,
    description: '`INTERNAL_ERROR`: a fault in the server, not in your request. Try again; if it keeps failing, give the teacher the `requestId` of the body.',
  },
  ServiceUnavailable: {
    status: 503,
    description: '`SERVICE_UNAVAILABLE`: the server is up but cannot read its database. Tell the teacher.',
  },
  InsufficientStorage: {
    status: 507,
    description: "`INSUFFICIENT_STORAGE`: the server's disk is full, so nothing this request would have saved was saved. Tell the teacher; once there is room, send it again.",
  },
} as const satisfies Record<string, { status: number; description: string; headers?: readonly ResponseHeader[] }>

export type ErrorResponseName = keyof typeof ERROR_RESPONSES

/** What a success answer means, by status (and for 200, by whether the operation reads or changes). */
export const SUCCESS_DESCRIPTIONS: Record<string, string> = {
  read: 'What was asked for.',
  '200': 'Done; the body is the result as it is stored now.',
  '201': 'Created; the body is what was created, with its id.',
  '202': 'Accepted; the rest happens in the background (the description says where to follow it).',
  '204': 'Done; no body.',
}

const integer = { type: 'integer', minimum: 0 }

/** Every response header the API documents (`components.headers`), with when it is sent. */
export const RESPONSE_HEADERS = {
  'X-Request-Id': {
    description: 'The id of this request: the X-Request-Id you sent (1 to 64 letters, digits or . : _ -), or a new `req_...`. Quote it when asking about an answer.',
    schema: { type: 'string' },
  },
  'RateLimit-Limit': {
    description:
      "How many requests your store may send at once (with the publishable key: this client address of its shop front, which has a limit of its own). Sent on every answer to a store credential once the credential is known (so not on a 401 about the credential), while the teacher's rate limit is on.",
    schema: integer,
  },
  'RateLimit-Remaining': {
    description: 'How many more requests your store (or this shop-front client) may send right now before a 429, after this one (an answer of 64 KiB or more counts as one more request for every full 64 KiB); sent with RateLimit-Limit.',
    schema: integer,
  },
  'RateLimit-Reset': {
    description: "Seconds until your store's (or this shop-front client's) allowance is full again; sent with RateLimit-Limit.",
    schema: integer,
  },
  'Retry-After': { description: 'Seconds to wait before sending again.', schema: { type: 'integer', minimum: 1 } },
  'Idempotent-Replayed': {
    description:
      'Sent as `true` when this is the kept answer to an earlier request with the same Idempotency-Key: nothing was done again. A replayed refusal (400, 402, 404, 409) carries it too; a first answer does not.',
    schema: { type: 'string', const: 'true' },
  },
  ETag: { description: "The file's tag (its id in quotes): send it back in If-None-Match to get a 304 instead of the bytes.", schema: { type: 'string' } },
  'Cache-Control': {
    description: 'How long the answer may be kept: a file never changes under its URL (`public, max-age=31536000, immutable`); a live stream is never stored (`no-cache`).',
    schema: { type: 'string' },
  },
  'Accept-Ranges': { description: '`bytes`: a Range header may ask for one part of the file.', schema: { type: 'string', const: 'bytes' } },
  'Content-Range': {
    description: 'On a 206, which bytes of the file the body holds (`bytes 0-99/5000`); on a 416, the size of the file (`bytes */5000`).',
    schema: { type: 'string' },
  },
  'X-Content-Type-Options': {
    description: 'On a file: the browser takes its type from Content-Type and never guesses another from the bytes.',
    schema: { type: 'string', const: FILE_GUARDS['X-Content-Type-Options'] },
  },
  'Content-Security-Policy': {
    description: 'On a file: opened on its own in a browser, it loads nothing and runs no script, whatever its bytes hold. An <img> or <video> tag on your page shows it as usual.',
    schema: { type: 'string', const: FILE_GUARDS['Content-Security-Policy'] },
  },
  'Content-Disposition': { description: 'The report comes as a file to save: `attachment; filename="activity.csv"`.', schema: { type: 'string' } },
} as const

export type ResponseHeader = keyof typeof RESPONSE_HEADERS
