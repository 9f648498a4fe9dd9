import scalarBundle from '@scalar/api-reference/browser/standalone.js' with { type: 'file' }
import { Elysia, type AnyElysia } from 'elysia'
import type { RouteTable } from '../../kernel/http/route-table'
import { buildOpenApiDocument } from './openapi-document'

// `GET /openapi.json` and `GET /docs`, the interactive reference. The reference's script is embedded
// in the executable (the import above is a file import), because a classroom may have no internet:
// nothing on the page comes from a CDN.

const DOCS_PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Storefront API reference</title>
    <style>body { margin: 0 }</style>
  </head>
  <body>
    <script id="api-reference" data-url="/openapi.json"></script>
    <script>
      document.getElementById('api-reference').dataset.configuration = JSON.stringify({
        withDefaultFonts: false,
        showDeveloperTools: 'never',
        // 'Ask AI' needs Scalar's cloud service; a classroom may be offline.
        agent: { disabled: true },
      })
    </script>
    <script src="/docs/assets/scalar.js"></script>
  </body>
</html>`

/**
 * `getApp` gives the whole app once every route is mounted, and `routes` is filled by then too; the
 * document is built on first request.
 */
export const docsRoutes = (version: string, getApp: () => AnyElysia, routes: RouteTable) => {
  let document: ReturnType<typeof buildOpenApiDocument> | undefined
  return new Elysia()
    .get('/openapi.json', () => (document ??= buildOpenApiDocument(getApp(), routes, version)), { detail: { hide: true } })
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
