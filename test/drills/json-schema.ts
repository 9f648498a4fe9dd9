import fc from 'fast-check'

/**
 * The part of JSON Schema that the OpenAPI document uses (zod's output): a checker for responses and
 * a fast-check generator of valid values for requests. Small on purpose; an unknown keyword is ignored
 * by the checker and the generator, never guessed at.
 */
export type Schema = Record<string, any>
type Components = Record<string, Schema>

const resolve = (schema: Schema, components: Components): Schema =>
  typeof schema.$ref === 'string' ? resolve(components[schema.$ref.split('/').pop()!]!, components) : schema

const typeOf = (v: unknown) =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v

/** The problems of `value` against `schema`, each with its JSON path; empty when it matches. */
export function check(schema: Schema, value: unknown, components: Components, path = '$'): string[] {
  const s = resolve(schema, components)
  const errors: string[] = []
  if (s.anyOf && !s.anyOf.some((alt: Schema) => check(alt, value, components, path).length === 0)) {
    errors.push(`${path}: matches none of anyOf`)
  }
  if (s.oneOf && s.oneOf.filter((alt: Schema) => check(alt, value, components, path).length === 0).length !== 1) {
    errors.push(`${path}: does not match exactly one of oneOf`)
  }
  if (s.not && check(s.not, value, components, path).length === 0) errors.push(`${path}: matches a 'not'`)
  if (s.type !== undefined) {
    const types: string[] = [s.type].flat()
    const t = typeOf(value)
    if (!types.includes(t) && !(t === 'integer' && types.includes('number'))) return [...errors, `${path}: ${t} is not ${types.join('|')}`]
  }
  if (s.const !== undefined && value !== s.const) errors.push(`${path}: not the constant ${JSON.stringify(s.const)}`)
  if (s.enum && !s.enum.includes(value)) errors.push(`${path}: ${JSON.stringify(value)} not in enum`)
  if (typeof value === 'string') {
    if (s.minLength !== undefined && [...value].length < s.minLength) errors.push(`${path}: shorter than ${s.minLength}`)
    if (s.maxLength !== undefined && [...value].length > s.maxLength) errors.push(`${path}: longer than ${s.maxLength}`)
    if (s.pattern && !new RegExp(s.pattern, 'u').test(value)) errors.push(`${path}: does not match ${s.pattern}`)
  }
  if (typeof value === 'number') {
    if (s.minimum !== undefined && value < s.minimum) errors.push(`${path}: below ${s.minimum}`)
    if (s.maximum !== undefined && value > s.maximum) errors.push(`${path}: above ${s.maximum}`)
  }
  if (Array.isArray(value)) {
    if (s.minItems !== undefined && value.length < s.minItems) errors.push(`${path}: fewer than ${s.minItems} items`)
    if (s.maxItems !== undefined && value.length > s.maxItems) errors.push(`${path}: more than ${s.maxItems} items`)
    if (s.items) value.forEach((item, i) => errors.push(...check(s.items, item, components, `${path}[${i}]`)))
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>
    const props: Record<string, Schema> = s.properties ?? {}
    for (const key of s.required ?? []) if (!(key in obj)) errors.push(`${path}.${key}: required but missing`)
    for (const [key, v] of Object.entries(obj)) {
      if (props[key]) errors.push(...check(props[key]!, v, components, `${path}.${key}`))
      else if (s.additionalProperties === false) errors.push(`${path}.${key}: not documented`)
      else if (s.additionalProperties && typeof s.additionalProperties === 'object') {
        errors.push(...check(s.additionalProperties, v, components, `${path}.${key}`))
      }
    }
  }
  return errors
}

const HARD_STRINGS = ['', ' ', 'a'.repeat(300), '🦄'.repeat(70), 'ç\u0301ã\u0000\u202e\uFEFF', '<script>alert(1)</script>', "'; DROP TABLE products; --", '../../etc/passwd', '%00', '\\u0000', '{{7*7}}']

/** Values that the schema accepts (or, for patterns and formats it cannot honour, plausible ones). */
export function valid(schema: Schema, components: Components, depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(schema, components)
  if (s.const !== undefined) return fc.constant(s.const)
  if (s.enum) return fc.constantFrom(...s.enum)
  if (s.anyOf) return fc.oneof(...s.anyOf.map((alt: Schema) => valid(alt, components, depth + 1)))
  const types: string[] = [s.type ?? 'string'].flat()
  return fc.oneof(...types.map((t) => validOfType(t, s, components, depth)))
}

function validOfType(type: string, s: Schema, components: Components, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null)
    case 'boolean':
      return fc.boolean()
    case 'integer':
      return fc.integer({ min: s.minimum ?? -1_000_000, max: s.maximum ?? 1_000_000 })
    case 'number':
      return fc.oneof(
        fc.integer({ min: Math.ceil(s.minimum ?? -1_000_000), max: Math.floor(s.maximum ?? 1_000_000) }),
        fc.integer({ min: Math.ceil(s.minimum ?? -100_000), max: Math.floor(Math.min(s.maximum ?? 100_000, 100_000)) }).map((n) => n + 0.25),
      )
    case 'string': {
      if (s.format === 'uri' || s.format === 'url') return fc.webUrl()
      if (s.format === 'email') return fc.emailAddress()
      const min = s.minLength ?? 0
      const max = Math.min(s.maxLength ?? 40, Math.max(min, 40))
      if (s.pattern) {
        const re = new RegExp(s.pattern, 'u')
        return fc.stringMatching(re).filter((v) => v.length >= min && v.length <= (s.maxLength ?? Infinity))
      }
      return fc.oneof(fc.string({ minLength: min, maxLength: max }), fc.string({ unit: 'grapheme', minLength: min, maxLength: max }))
    }
    case 'array': {
      if (depth > 3) return fc.constant([])
      return fc.array(valid(s.items ?? {}, components, depth + 1), { minLength: s.minItems ?? 0, maxLength: Math.min(s.maxItems ?? 3, 3) })
    }
    case 'object': {
      const props: Record<string, Schema> = s.properties ?? {}
      if (depth > 3) return fc.constant({})
      const required = new Set<string>(s.required ?? [])
      const record: Record<string, fc.Arbitrary<unknown>> = {}
      for (const [k, v] of Object.entries(props)) record[k] = valid(v, components, depth + 1)
      return fc.record(record, { requiredKeys: [...required].filter((k) => k in props) })
    }
    default:
      return fc.anything()
  }
}

/** Values meant to break a field: wrong types, huge and negative numbers, long and odd Unicode. */
export const hostile: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    null, true, 0, -1, -0.0001, 1e308, -1e308, 2 ** 53 + 1, -(2 ** 63), 1.005, 0.1 + 0.2, [], {}, [[[]]],
    { __proto__: { polluted: true } }, { constructor: { prototype: { polluted: true } } },
    ...HARD_STRINGS,
  ),
  fc.string({ unit: 'grapheme', maxLength: 300 }),
  fc.string({ unit: 'binary', maxLength: 50 }),
  fc.double(),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map((n) => Number(n)),
  fc.integer().map((n) => String(n)),
  fc.string({ minLength: 5000, maxLength: 6000 }).map((s) => s || 'x'.repeat(5001)),
)
