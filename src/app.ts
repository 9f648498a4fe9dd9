import type { Server } from 'bun'
import { Elysia, type AnyElysia } from 'elysia'
import { createKernel } from './kernel/http/kernel'
import { RouteTable } from './kernel/http/route-table'
import { activityRoutes } from './features/activity'
import { apiKeyRoutes } from './features/api-keys'
import { cartRoutes } from './features/cart'
import { classroomRoutes } from './features/classroom'
import { customerRoutes } from './features/customers'
import { productRoutes, variantRoutes } from './features/catalog'
import { groupRoutes } from './features/groups'
import { inspectorRoutes } from './features/inspector'
import { overviewRoutes } from './features/overview'
import { mediaRoutes } from './features/media'
import { productImageRoutes } from './features/product-images'
import { memberRoutes } from './features/members'
import { orderRoutes, storeOrderRoutes } from './features/orders'
import { reviewRoutes, storeReviewRoutes } from './features/reviews'
import { storeAuthRoutes } from './features/store-auth'
import { storeSettingsRoutes } from './features/store-settings'
import { taxonomyRoutes } from './features/taxonomy'
import { docsRoutes, healthRoutes } from './features/system'
import { panelRoutes } from './features/panel'
import { webhookRoutes } from './features/webhooks'
import type { AppDeps } from './wiring'

/** The HTTP application: tests call `handle(request)`, the server (server.ts) calls `listen`. */
export interface App {
  handle(request: Request): Promise<Response>
  /** Starts listening; `server` is then Bun's server. */
  listen(options: { hostname: string; port: number; maxRequestBodySize?: number }): App
  /** Stops listening, letting the answers in flight end. */
  stop(): Promise<void>
  /** The listening server; null before listen (tests may stand in for it with what tells the client's address). */
  server: Server<unknown> | null
  /** The routes as the features declared them. */
  routes: AnyElysia['routes']
}

/**
 * Builds the whole HTTP application from its dependencies. The features declare their routes on
 * Elysia instances, which also write the OpenAPI document; the kernel (kernel/http/kernel.ts) runs them.
 */
export function createApp(deps: AppDeps, extraRoutes?: AnyElysia): App {
  const routes = new RouteTable()
  const app: AnyElysia = new Elysia()
    .use(healthRoutes(deps))
    .use(docsRoutes(deps.version, () => app, routes))
    .use(panelRoutes())
    .group('/v1', (v1) =>
      v1
        .use(groupRoutes(deps))
        .use(activityRoutes(deps))
        .use(classroomRoutes(deps))
        .use(storeAuthRoutes(deps))
        .use(storeSettingsRoutes(deps))
        .use(apiKeyRoutes(deps))
        .use(memberRoutes(deps))
        .use(customerRoutes(deps))
        .use(mediaRoutes(deps))
        .use(productImageRoutes(deps))
        .use(webhookRoutes(deps))
        .use(productRoutes(deps))
        .use(variantRoutes(deps))
        .use(taxonomyRoutes(deps, 'categories'))
        .use(taxonomyRoutes(deps, 'brands'))
        .use(taxonomyRoutes(deps, 'collections'))
        .use(cartRoutes(deps))
        .use(orderRoutes(deps))
        .use(storeOrderRoutes(deps))
        .use(reviewRoutes(deps))
        .use(storeReviewRoutes(deps))
        .use(inspectorRoutes(deps))
        .use(overviewRoutes(deps)),
    )
  // Tests mount probe routes here: routes no feature has, that exercise the kernel (bodies, errors, credentials).
  if (extraRoutes) app.use(extraRoutes)
  routes.fill(app.routes)
  const kernel = createKernel(routes, deps)
  const served: App = {
    server: null,
    routes: app.routes,
    stop: async () => void (await served.server?.stop()),
    handle: async (request) => kernel.fetch(request, served.server),
    listen(options) {
      // A port is this server's alone: shared (reusePort, as Elysia listened), a second server on it would
      // take half the connections of the first. An idle connection ends after 30 s.
      served.server = Bun.serve({ reusePort: false, idleTimeout: 30, development: false, ...options, fetch: (request, server) => kernel.fetch(request, server) })
      return served
    },
  }
  return served
}
