import type { Schema } from './json-schema'

/** How long the drills run: the quick variant always, the long one with DRILLS=long (docs/guarantees.md, "Reliability and security drills"). */
export const LONG = process.env.DRILLS === 'long'

export interface Operation {
  method: string
  /** The route path as the app declares it, `/v1/products/:id`. */
  path: string
  auth: string | undefined
  params: { name: string; in: 'path' | 'query' | 'header'; required?: boolean; schema: Schema }[]
  body: { type: 'json' | 'multipart'; schema: Schema } | { type: 'text'; mediaType: string } | undefined
  /** Every status the operation may answer, shared responses (`$ref`) read from the components. */
  responses: Record<string, { content?: Record<string, { schema: Schema }>; headers?: Record<string, unknown> }>
}

/** Every operation of the OpenAPI document the app serves, so routes added later are fuzzed too. */
export function operationsOf(doc: any): Operation[] {
  const ops: Operation[] = []
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      const content = op.requestBody?.content ?? {}
      const body = content['application/json']
        ? { type: 'json' as const, schema: content['application/json'].schema ?? {} }
        : content['multipart/form-data']
          ? { type: 'multipart' as const, schema: content['multipart/form-data'].schema ?? {} }
          : Object.keys(content).length > 0
            ? { type: 'text' as const, mediaType: Object.keys(content)[0]! }
            : undefined
      ops.push({
        method: method.toUpperCase(),
        path: path.replace(/\{([^}]+)\}/g, ':$1'),
        auth: op['x-storefront-auth'],
        params: op.parameters ?? [],
        body,
        responses: Object.fromEntries(
          Object.entries<any>(op.responses ?? {}).map(([status, r]) => [status, r.$ref ? doc.components.responses[r.$ref.split('/').pop()] : r]),
        ),
      })
    }
  }
  return ops
}
