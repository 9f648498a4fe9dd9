import scalarBundle from '@scalar/api-reference/browser/standalone.js' with { type: 'file' }
import { Elysia, type AnyElysia } from 'elysia'
import { jsonResponse } from '../../kernel/http/json-response'
import type { RouteTable } from '../../kernel/http/route-table'
import type { SECURITY_SCHEMES } from './docs-text'
import { buildOpenApiDocument } from './openapi-document'

// `GET /openapi.json` and `GET /docs`, the interactive reference. The reference's script is embedded
// in the executable (the import above is a file import), because a classroom may have no internet:
// nothing on the page comes from a CDN.

/**
 * What the reference is told besides the document. Its code samples fill each credential with these
 * values, which say what belongs there (a shop front's calls show a publishable key and a customer
 * token), where the reference would otherwise write YOUR_SECRET_TOKEN for every header alike. They are
 * keyed by the names of the document's security schemes.
 */
export const SCALAR_CONFIGURATION = {
  withDefaultFonts: false,
  showDeveloperTools: 'never',
  // 'Ask AI' needs Scalar's cloud service; a classroom may be offline.
  agent: { disabled: true },
  authentication: {
    securitySchemes: {
      secretKey: { value: 'sk_...' },
      publishableKey: { value: 'pk_...' },
      studentToken: { token: 'stu_...' },
      customerToken: { token: 'ctk_...' },
      adminToken: { value: 'adm_...' },
    } satisfies Record<keyof typeof SECURITY_SCHEMES, { value: string } | { token: string }>,
  },
}

// The configuration goes in as JSON in a data attribute; `<` is escaped so no value can end the script.
const DOCS_PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Storefront API reference</title>
    <style>
      body { margin: 0 }
      /*
        The samples' credentials are the placeholders above, not secrets: shown, where the reference
        would mask them. body raises the rules above the reference's own, which it adds after these.
      */
      body .scalar-app .credential .credential-value { color: inherit; font-size: inherit }
      body .scalar-app .credential:after { content: none }
    </style>
  </head>
  <body>
    <script id="api-reference" data-url="/openapi.json"></script>
    <script>
      document.getElementById('api-reference').dataset.configuration = ${JSON.stringify(JSON.stringify(SCALAR_CONFIGURATION)).replaceAll('<', '\\u003c')}
    </script>
    <script src="/docs/assets/scalar.js"></script>
  </body>
</html>`

/**
 * `getApp` gives the whole app once every route is mounted, and `routes` is filled by then too; the
 * document is built on first request, and its JSON kept.
 */
export const docsRoutes = (version: string, getApp: () => AnyElysia, routes: RouteTable) => {
  // Kept as its bytes: made again for every request, the 280 KB document took 4 ms each, for anyone.
  let document: Promise<Uint8Array> | undefined
  const bytes = async () => new TextEncoder().encode(JSON.stringify(await buildOpenApiDocument(getApp(), routes, version)))
  return new Elysia()
    .get('/openapi.json', async () => jsonResponse(await (document ??= bytes())), { detail: { hide: true } })
    .get('/docs', () => new Response(DOCS_PAGE, { headers: { 'content-type': 'text/html; charset=utf-8' } }), {
      detail: { hide: true },
    })
    .get(
      '/docs/assets/scalar.js',
      () =>
        new Response(Bun.file(scalarBundle), {
          headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'public, max-age=86400' },
        }),
      { detail: { hide: true } },
    )
}
