import { z } from 'zod'
import { isSecretName } from '../secret-names'

/** How many checked values are remembered, all routes together, before it starts again, and the longest text kept. */
export const MAX_REMEMBERED = 8192
export const REMEMBERED_LENGTH = 256

/**
 * The checks of a request's parts (path parameters, query string, a small JSON body) remembered by the
 * text they were given: a class asks for the same products and pages and adds the same variants again
 * and again, and a schema gives the same value for the same text, so the parsing and the schema's check
 * run once per text (docs/architecture.md, "The request path").
 *
 * A value that passed is kept frozen (deeply), so no handler can change what the next request is given;
 * one that failed is checked again each time. All the routes of an app share one bound: at most `max`
 * texts of at most `maxLength` characters (then every route starts again), so whatever is sent, what
 * is kept stays small.
 */
export class RememberedChecks {
  private readonly routes: Map<string, unknown>[] = []
  private count = 0

  constructor(
    private readonly max = MAX_REMEMBERED,
    private readonly maxLength = REMEMBERED_LENGTH,
  ) {}

  /** `check` of a text, remembered by the text; of another value, by its text `keyOf(value)`. */
  of(check: (text: string) => unknown): (text: string) => unknown
  of<V>(check: (value: V) => unknown, keyOf: (value: V) => string): (value: V) => unknown
  of<V>(check: (value: V) => unknown, keyOf: (value: V) => string = (value) => value as string): (value: V) => unknown {
    const kept = new Map<string, unknown>()
    this.routes.push(kept)
    return (value) => {
      const key = keyOf(value)
      const known = kept.get(key)
      if (known !== undefined) return known
      const checked = check(value)
      if (key.length > this.maxLength) return checked
      if (this.count >= this.max) this.forget()
      kept.set(key, deepFreeze(checked))
      this.count++
      return checked
    }
  }

  private forget() {
    for (const kept of this.routes) kept.clear()
    this.count = 0
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const inner of Object.values(value)) deepFreeze(inner)
  }
  return value
}

/**
 * Whether a body schema has a field named like a secret (a password, a token), at any depth: such a
 * route's bodies are not remembered, so that no password stays in memory after its request. A schema
 * that cannot be read as JSON Schema counts as one.
 */
export function namesASecret(schema: unknown): boolean {
  let document: unknown
  try {
    document = z.toJSONSchema(schema as z.ZodType, { io: 'input', unrepresentable: 'any' })
  } catch {
    return true
  }
  const walk = (node: unknown): boolean => {
    if (node === null || typeof node !== 'object') return false
    const properties = (node as { properties?: unknown }).properties
    if (properties && typeof properties === 'object' && Object.keys(properties).some(isSecretName)) return true
    return Object.values(node).some(walk)
  }
  return walk(document)
}
