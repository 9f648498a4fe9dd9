import { AUTH_EXTENSION, UPLOAD_EXTENSION } from '../auth/macro'
import type { AuthKind } from '../auth/kinds'
import { NOT_INSPECTED_EXTENSION } from './inspection'
import { TEXT_BODY_EXTENSION, type TextBody } from './text-body'
import { NO_QUERY, type BodySchema } from './validation'

// What the app knows about its own routes once they are all registered: what each one declared (its
// credential, its body, its schemas, its handler), which the kernel compiles into one path per route
// (kernel.ts); the router that finds a request's route; and what tells a wrong method (405 with
// `Allow`) from an unknown path (404 with a suggestion). Filled by createApp after the features are mounted.

export interface RouteEntry {
  method: string
  path: string
  /** The names of the path's parameters, in order (`/products/:id/images/:imageId`: id, imageId). */
  paramNames: readonly string[]
  /** The body schema the route declared, undefined when it takes none; the kernel checks a JSON body against it (validation.ts). */
  body: BodySchema | undefined
  /** The credential the route declared with the auth macro; undefined for public routes. */
  auth: AuthKind | undefined
  /** The route streams a multipart upload itself (its body must not be parsed). */
  upload: boolean
  /** The route takes a plain-text file of this media type as its body instead of JSON (text-body.ts). */
  textBody: TextBody | undefined
  /** The route's writes join the open commit group (GROUPED_WRITES_EXTENSION). */
  groupedWrites: boolean
  /** The route checks its query (the schema it declared, or NO_QUERY for a route with a credential): a query string that breaks it is a 400. */
  checksQuery: boolean
  /** Calls of this route are not kept by the request inspector (the inspector's own routes). */
  notInspected: boolean
  /** The schemas of the path's parameters, the query string and the headers the route declared, if any. */
  params: BodySchema | undefined
  query: BodySchema | undefined
  headers: BodySchema | undefined
  /** The schema of each answer the route declares, by status. */
  response: Record<string, BodySchema> | undefined
  /** The route's handler, as the feature wrote it; the kernel calls it with the request's context. */
  handler: unknown
}

/**
 * A route found for a request, with the values of its path's parameters, decoded (`%20` is a space).
 * Found matches are kept and shared: whoever hands the values on copies them first.
 */
export interface RouteMatch {
  route: RouteEntry
  readonly params: Readonly<Record<string, string>>
}

/** How many paths with parameters the route table remembers before it starts again. */
const RECENT_PATHS = 4096
const RECENT_PATH_LENGTH = 256

/** A parameter's value as the client meant it: `%20` is a space; a broken escape is kept as sent. */
function decoded(value: string): string {
  if (!value.includes('%')) return value
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}

/**
 * Marks a route whose writes commit in groups (groupedWrite, kernel/db/database.ts): it runs while a
 * commit group is open and joins it. Every other request starts once no group is open.
 */
export const GROUPED_WRITES_EXTENSION = 'x-storefront-grouped-writes'

type RouteHooks = { body?: unknown; query?: unknown; params?: unknown; headers?: unknown; response?: unknown; detail?: Record<string, unknown> }

/** A node of the router: one segment of a path, its static children, the child that takes any value, and the routes that end here by method. */
interface Node {
  statics: Map<string, Node>
  param: Node | undefined
  routes: Map<string, { route: RouteEntry; names: readonly string[] }>
}

const node = (): Node => ({ statics: new Map(), param: undefined, routes: new Map() })

export class RouteTable {
  private entries: RouteEntry[] = []
  private byKey = new Map<string, RouteEntry>()
  /** The routes without parameters, by `METHOD path`: most requests are found here at once. */
  private statics = new Map<string, RouteMatch>()
  private root = node()
  /** The matches of paths with parameters asked for lately, null for none (match). */
  private recent = new Map<string, RouteMatch | null>()
  private longest = 0

  fill(routes: { method: string; path: string; hooks?: RouteHooks; handler?: unknown }[]) {
    const seen = new Set<string>()
    for (const r of routes) {
      const path = trimSlash(r.path)
      if (r.method === 'OPTIONS' || path.includes('*') || seen.has(`${r.method} ${path}`)) continue
      seen.add(`${r.method} ${path}`)
      const auth = r.hooks?.detail?.[AUTH_EXTENSION] as AuthKind | undefined
      // A call with a credential takes only the query it declares; the public URLs (a file's, the pages,
      // /health, the logins) ignore any, so that a cache-busting ?v=2 on an image still works.
      const query = schemaOf(r.method, path, 'query', r.hooks?.query) ?? (auth ? NO_QUERY : undefined)
      const entry: RouteEntry = {
        method: r.method,
        path,
        paramNames: path.split('/').flatMap((segment) => (segment.startsWith(':') ? [segment.slice(1)] : [])),
        body: bodySchemaOf(r.method, path, r.hooks?.body),
        auth,
        upload: r.hooks?.detail?.[UPLOAD_EXTENSION] === true,
        textBody: r.hooks?.detail?.[TEXT_BODY_EXTENSION] as TextBody | undefined,
        groupedWrites: r.hooks?.detail?.[GROUPED_WRITES_EXTENSION] === true,
        checksQuery: query !== undefined,
        notInspected: r.hooks?.detail?.[NOT_INSPECTED_EXTENSION] === true,
        params: schemaOf(r.method, path, 'params', r.hooks?.params),
        query,
        headers: schemaOf(r.method, path, 'headers', r.hooks?.headers),
        response: r.hooks?.response as Record<string, BodySchema> | undefined,
        handler: r.handler,
      }
      this.entries.push(entry)
      this.longest = Math.max(this.longest, path.length)
      this.byKey.set(`${r.method} ${path}`, entry)
      this.add(entry)
    }
  }

  private add(route: RouteEntry) {
    const segments = route.path.split('/').slice(1)
    if (route.paramNames.length === 0) this.statics.set(`${route.method} ${route.path}`, { route, params: {} })
    let at = this.root
    for (const segment of segments) {
      if (segment.startsWith(':')) {
        at = at.param ??= node()
      } else {
        let next = at.statics.get(segment)
        if (!next) at.statics.set(segment, (next = node()))
        at = next
      }
    }
    at.routes.set(route.method, { route, names: route.paramNames })
  }

  /**
   * The route that answers this request, and its path's parameters: a static segment is preferred to a
   * parameter at the same place (`/products/search` before `/products/:id`). HEAD is answered by the GET
   * route (without the body), so it takes the GET route's credential.
   */
  match(rawMethod: string, rawPath: string): RouteMatch | undefined {
    const method = rawMethod === 'HEAD' ? 'GET' : rawMethod
    const path = trimSlash(rawPath)
    const key = `${method} ${path}`
    const exact = this.statics.get(key)
    if (exact) return exact
    const seen = this.recent.get(key)
    if (seen !== undefined) return seen ?? undefined
    const segments = path.split('/')
    const values: string[] = []
    const found = walk(this.root, segments, 1, values, (n) => n.routes.get(method))
    let match: RouteMatch | null = null
    if (found) {
      const params: Record<string, string> = {}
      for (let i = 0; i < found.names.length; i++) params[found.names[i]!] = decoded(values[i]!)
      match = { route: found.route, params }
    }
    // A class asks for the same few hundred products again and again; any path at all may be sent, so
    // the memory of recent paths is bounded, in number and in length.
    if (key.length > RECENT_PATH_LENGTH) return match ?? undefined
    if (this.recent.size >= RECENT_PATHS) this.recent.clear()
    this.recent.set(key, match)
    return match ?? undefined
  }

  all(): RouteEntry[] {
    return [...this.byKey.values()]
  }

  get(method: string, routePath: string): RouteEntry | undefined {
    return this.byKey.get(`${method} ${trimSlash(routePath)}`)
  }

  /** Methods that do have a route for this concrete path. */
  methodsFor(rawPath: string): string[] {
    const segments = trimSlash(rawPath).split('/')
    const methods = new Set<string>()
    walk(this.root, segments, 1, [], (n) => {
      for (const method of n.routes.keys()) methods.add(method)
      return undefined
    })
    if (methods.has('GET')) methods.add('HEAD')
    return [...methods]
  }

  /**
   * The route path closest to a mistyped one, when one is close enough to be a likely typo. Anyone may
   * send any path, so the work is bounded: a path far longer than every route cannot be a typo of
   * one and is not compared, and a route whose length alone puts it past the threshold is skipped.
   */
  suggest(method: string, path: string): string | undefined {
    if (path.length > this.longest + SUGGEST_SLACK) return undefined
    const typed = normalise(path)
    const threshold = Math.max(2, Math.floor(path.length / 6))
    let best: { path: string; distance: number } | undefined
    for (const e of this.entries) {
      const known = normalise(e.path)
      if (Math.abs(known.length - typed.length) > threshold) continue
      const distance = editDistance(typed, known) + (e.method === method ? 0 : 1)
      if (!best || distance < best.distance) best = { path: e.path, distance }
    }
    return best && best.distance <= threshold ? best.path : undefined
  }
}

/** Every schema is a Standard Schema (zod): the kernel validates with it. */
function schemaOf(method: string, path: string, part: string, schema: unknown): BodySchema | undefined {
  if (schema === undefined) return undefined
  if (typeof schema === 'object' && schema !== null && '~standard' in schema) return schema as BodySchema
  throw new Error(`${method} ${path}: its ${part} schema is not a Standard Schema; declare it with zod`)
}

const bodySchemaOf = (method: string, path: string, schema: unknown) => schemaOf(method, path, 'body', schema)

/**
 * Follows `segments` from `at`, static children first, and returns the first `found` gives at a node
 * where the path ends; `values` collects the segments taken by parameters on the way.
 */
function walk<T>(at: Node, segments: string[], i: number, values: string[], found: (n: Node) => T | undefined): T | undefined {
  if (i === segments.length) return found(at)
  const segment = segments[i]!
  const next = at.statics.get(segment)
  if (next) {
    const result = walk(next, segments, i + 1, values, found)
    if (result !== undefined) return result
  }
  if (at.param && segment !== '') {
    values.push(segment)
    const result = walk(at.param, segments, i + 1, values, found)
    if (result !== undefined) return result
    values.pop()
  }
  return undefined
}

/** How much longer than the longest route a path may be and still be compared (an id in place of `:id`). */
const SUGGEST_SLACK = 40

/** Elysia answers `/a` and `/a/` alike; so does the table. */
const trimSlash = (path: string) => (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path)


/** Concrete ids are compared as the parameter they stand for. */
const normalise = (path: string) => path.replace(/\/(:[^/]+|[a-z]+_[0-9a-z]+)(?=\/|$)/g, '/:id')

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const cur = [i]
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    prev = cur
  }
  return prev[b.length]!
}
