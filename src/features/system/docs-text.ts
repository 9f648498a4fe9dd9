import { MAX_JSON_DEPTH, MAX_JSON_VALUES } from '../../kernel/http/json-shape'
import { MAX_DETAILS } from '../../kernel/http/validation'
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
\`can-review\` and the customer's own reviews. Every other route that the secret key opens (managing the
catalog, stock, orders, refunds, customers' data, webhooks and their \`sign\` helper, media) answers a
publishable key \`403 SECRET_KEY_REQUIRED\`: call it from your app's server, with the secret key. Neither
kind of key opens the store panel's routes (settings, API keys, members), which take a student token.
Each operation below lists the credentials it takes.

Send \`X-Student-RM: <your RM>\` with either key so your calls count for you.

## Errors
Every error has the same body, whatever the route:
\`{"error": {"code": "UPPER_SNAKE", "message": "what went wrong and what to do next", "details": [...]}}\`.
\`details\` appears on validation errors (\`[{path, message}]\`) and on stock and media conflicts.
A \`405\` means the path exists but not for that method; its \`Allow\` header lists the methods it takes.
Every response carries \`X-Request-Id\`; quote it when asking about an internal error (500).

## Conventions
- Ids are strings with a type prefix (\`prod_\`, \`var_\`, \`ord_\`, ...).
- Money is a JSON number with at most 2 decimals (kept as integer cents inside). A price is at most
  ${MAX_PRICE}, a cart line at most ${MAX_LINE_QUANTITY} units and a cart at most ${MAX_CART_LINES} lines, so every total is exact.
- Times are ISO 8601 strings in UTC.
- Lists take \`page\` (default 1) and \`pageSize\` (default 20, at most 100) and answer
  \`{data, page, pageSize, total}\`.
- JSON bodies need \`Content-Type: application/json\` and may be up to 1 MiB, nested at most
  ${MAX_JSON_DEPTH} levels and holding at most ${MAX_JSON_VALUES.toLocaleString('en')} values (no route needs anything close); fields the route
  does not know, or may not change, are a 400 that names them (the first ${MAX_DETAILS} problems, with the count).
- An answer given without reading the whole request body (an error, or a body the route does not take)
  carries \`Connection: close\`: the client sends its next request on a new connection.
- Query parameters the route does not know are ignored.
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
  { name: 'Media', description: "The store's library of pictures and videos, product images, and the public files behind media URLs." },
  { name: 'Reviews', description: 'Reviews by buyers (a paid order containing the product), one per product, with photos from the library; moderation hides them from the shop front and the summary.' },
  { name: 'Webhooks', description: 'Signed notifications of events (orders, stock, reviews) sent to your app, with a log of every attempt.' },
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
