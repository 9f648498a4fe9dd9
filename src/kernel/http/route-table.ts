import { AUTH_EXTENSION, UPLOAD_EXTENSION } from '../auth/macro'
import type { AuthKind } from '../auth/kinds'
import { NOT_INSPECTED_EXTENSION } from './inspection'
import { TEXT_BODY_EXTENSION, type TextBody } from './text-body'
import type { BodySchema } from './validation'

// What the app knows about its own routes once they are all registered: used to tell a wrong
// method (405 with `Allow`) from an unknown path (404 with a suggestion), and which routes take a
// JSON body. Filled by createApp after the features are mounted.

export interface RouteEntry {
  method: string
  path: string
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
  /** The route declared a query schema: a query string that breaks it is a 400. */
  checksQuery: boolean
  /** Calls of this route are not kept by the request inspector (the inspector's own routes). */
  notInspected: boolean
}

/**
 * Marks a route whose writes commit in groups (groupedWrite, kernel/db/database.ts): it runs while a
 * commit group is open and joins it. Every other request starts once no group is open.
 */
export const GROUPED_WRITES_EXTENSION = 'x-storefront-grouped-writes'

type RouteHooks = { body?: unknown; query?: unknown; detail?: Record<string, unknown> }

export class RouteTable {
  private entries: (RouteEntry & { pattern: RegExp })[] = []
  private byKey = new Map<string, RouteEntry>()
  private longest = 0

  fill(routes: { method: string; path: string; hooks?: RouteHooks }[]) {
    const seen = new Set<string>()
    for (const r of routes) {
      const path = trimSlash(r.path)
      if (r.method === 'OPTIONS' || path.includes('*') || seen.has(`${r.method} ${path}`)) continue
      seen.add(`${r.method} ${path}`)
      const entry: RouteEntry = {
        method: r.method,
        path,
        body: bodySchemaOf(r.method, path, r.hooks?.body),
        auth: r.hooks?.detail?.[AUTH_EXTENSION] as AuthKind | undefined,
        upload: r.hooks?.detail?.[UPLOAD_EXTENSION] === true,
        textBody: r.hooks?.detail?.[TEXT_BODY_EXTENSION] as TextBody | undefined,
        groupedWrites: r.hooks?.detail?.[GROUPED_WRITES_EXTENSION] === true,
        checksQuery: r.hooks?.query !== undefined,
        notInspected: r.hooks?.detail?.[NOT_INSPECTED_EXTENSION] === true,
      }
      this.entries.push({ ...entry, pattern: toPattern(path) })
      this.longest = Math.max(this.longest, path.length)
      this.byKey.set(`${r.method} ${path}`, entry)
    }
    // The router prefers static segments, so the matcher tries routes with fewer parameters first.
    this.entries.sort((a, b) => paramCount(a.path) - paramCount(b.path))
  }

  /** The route Elysia will run for this request, found before it runs (authentication needs it first). */
  match(rawMethod: string, rawPath: string): RouteEntry | undefined {
    // HEAD is answered by the GET route (without the body), so it takes the GET route's credential.
    const method = rawMethod === 'HEAD' ? 'GET' : rawMethod
    const path = trimSlash(rawPath)
    const exact = this.byKey.get(`${method} ${path}`)
    if (exact) return exact
    return this.entries.find((e) => e.method === method && e.pattern.test(path))
  }

  all(): RouteEntry[] {
    return [...this.byKey.values()]
  }

  get(method: string, routePath: string): RouteEntry | undefined {
    return this.byKey.get(`${method} ${trimSlash(routePath)}`)
  }

  /** Methods that do have a route for this concrete path. */
  methodsFor(rawPath: string): string[] {
    const path = trimSlash(rawPath)
    const methods = this.entries.filter((e) => e.pattern.test(path)).map((e) => e.method)
    if (methods.includes('GET') && !methods.includes('HEAD')) methods.push('HEAD')
    return [...new Set(methods)]
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

/** Every body is a Standard Schema (zod): the kernel validates with it before Elysia does. */
function bodySchemaOf(method: string, path: string, schema: unknown): BodySchema | undefined {
  if (schema === undefined) return undefined
  if (typeof schema === 'object' && schema !== null && '~standard' in schema) return schema as BodySchema
  throw new Error(`${method} ${path}: its body schema is not a Standard Schema; declare it with zod`)
}

/** How much longer than the longest route a path may be and still be compared (an id in place of `:id`). */
const SUGGEST_SLACK = 40

/** Elysia answers `/a` and `/a/` alike; so does the table. */
const trimSlash = (path: string) => (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path)

const paramCount = (path: string) => path.split('/:').length - 1

const toPattern = (path: string) =>
  new RegExp('^' + path.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/:[^/]+/g, '[^/]+') + '$')

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
