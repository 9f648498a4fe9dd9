import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createTestApp } from '../helpers/app'
import { ID_OF, matrixWorld, type World } from '../helpers/rich-world'
import { admin, apiKey, bearer, FIXTURES } from '../helpers/world'
import { check, hostile, valid, type Schema } from './json-schema'
import { LONG, operationsOf, type Operation } from './openapi-ops'
import { storeSnapshot } from './snapshot'

/**
 * Fuzz from the OpenAPI document: for every operation it lists, requests made by
 * fast-check — valid, boundary and malformed (wrong types, huge and negative numbers, long and odd
 * Unicode, __proto__ keys, missing and extra fields, wrong content types). Every answer must be
 * below 500, carry a request id, have a status the document lists for the operation (and of the
 * headers the document describes, only those it declares for that status), be the error envelope when
 * it is an error, and match the schema the document gives for its status; store B, whose credentials
 * are never used, must not change.
 */
const RUNS = LONG ? 300 : 50

function credentialFor(auth: string | undefined, w: World): Record<string, string> {
  switch (auth) {
    case 'admin':
      return admin
    case 'student':
    case 'studentSelf':
      return bearer(w.A.student)
    case 'customer':
      return { ...apiKey(w.publishable.A.apiKey), ...bearer(w.A.customer.token) }
    case 'shop':
      // What a browser shop front holds: the shop routes are fuzzed as its users would reach them.
      return apiKey(w.publishable.A.apiKey)
    case 'secret':
      return apiKey(w.A.key.apiKey)
    case undefined:
      return {}
    default:
      throw new Error(`no credential for routes declared auth: '${auth}'; add it here`)
  }
}

const asText = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v) ?? 'undefined')

type BodyPlan =
  | { kind: 'json'; value: unknown; contentType: string; proto: boolean }
  | { kind: 'raw'; text: string; contentType: string }
  | { kind: 'form'; parts: { name: string; file?: { bytes: Uint8Array; filename: string }; value?: string }[] }
  | { kind: 'none' }

const CONTENT_TYPES = ['application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', '']
const MALFORMED = ['{', '{"a":', '[1,2', 'null', '"just a string"', '12', 'true', '{"a":1}}', '\u0000', '{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"admin":true}}}']

function jsonBody(schema: Schema, components: Record<string, Schema>): fc.Arbitrary<BodyPlan> {
  const props = Object.keys(schema.properties ?? {})
  const base = valid(schema, components) as fc.Arbitrary<Record<string, unknown>>
  const mutated = fc.oneof(
    base,
    // one field made hostile
    props.length ? fc.tuple(base, fc.constantFrom(...props), hostile).map(([b, k, v]) => ({ ...b, [k]: v })) : base,
    // one required field missing
    props.length ? fc.tuple(base, fc.constantFrom(...props)).map(([b, k]) => Object.fromEntries(Object.entries(b ?? {}).filter(([x]) => x !== k))) : base,
    // an extra field
    fc.tuple(base, fc.string({ minLength: 1, maxLength: 20 }), hostile).map(([b, k, v]) => ({ ...b, [k]: v })),
    hostile,
  )
  return fc.oneof(
    { weight: 6, arbitrary: fc.record({ value: mutated, contentType: fc.constantFrom('application/json', 'application/json', 'application/merge-patch+json'), proto: fc.boolean() }).map((r) => ({ kind: 'json' as const, ...r })) },
    { weight: 1, arbitrary: fc.record({ text: fc.oneof(fc.constantFrom(...MALFORMED), fc.string({ unit: 'binary', maxLength: 200 })), contentType: fc.constantFrom(...CONTENT_TYPES) }).map((r) => ({ kind: 'raw' as const, ...r })) },
    { weight: 1, arbitrary: fc.record({ value: base, contentType: fc.constantFrom(...CONTENT_TYPES.slice(2)), proto: fc.constant(false) }).map((r) => ({ kind: 'json' as const, ...r })) },
    { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
  )
}

const fixture = (name: string) => new Uint8Array(readFileSync(join(FIXTURES, name)))
const FIXTURE_FILES = ['sample.png', 'sample.jpg'].map((name) => ({ name, bytes: fixture(name) }))

function formBody(): fc.Arbitrary<BodyPlan> {
  const file = fc.oneof(
    fc.constantFrom(...FIXTURE_FILES).map((f) => ({ bytes: f.bytes, filename: f.name })),
    fc.record({ bytes: fc.uint8Array({ maxLength: 2000 }), filename: fc.oneof(fc.string({ maxLength: 300 }), fc.constantFrom('../../x.png', 'a\u0000.png', '🦄.gif', '.png', '')) }),
  )
  const part = fc.oneof(
    fc.record({ name: fc.constantFrom('file', 'file', 'files', 'image', '__proto__', ''), file }),
    fc.record({ name: fc.constantFrom('file', 'alt', '__proto__', 'x'.repeat(300)), value: fc.string({ maxLength: 100 }) }),
  )
  return fc.oneof(
    { weight: 4, arbitrary: fc.array(part, { minLength: 0, maxLength: 3 }).map((parts) => ({ kind: 'form' as const, parts })) },
    { weight: 1, arbitrary: fc.record({ text: fc.oneof(fc.constantFrom(...MALFORMED), fc.string({ unit: 'binary', maxLength: 200 })), contentType: fc.constantFrom(...CONTENT_TYPES) }).map((r) => ({ kind: 'raw' as const, ...r })) },
    { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
  )
}

/** A file sent as a text body (the class list): good rows and hostile cells, odd line breaks, any content type. */
function textBody(mediaType: string): fc.Arbitrary<BodyPlan> {
  const cell = fc.oneof(fc.stringMatching(/^[A-Za-z0-9 ]{0,12}$/), hostile.map(asText), fc.constantFrom('"', '""', '"a,b"', '=1+1', ''))
  // Well-formed rows too, so that some files get past validation and are imported.
  const row = fc.tuple(fc.integer({ min: 1, max: 3 }), fc.stringMatching(/^[0-9]{3,8}$/)).map(([g, rm]) => `Fuzz ${g},fz${rm},Student ${rm}`)
  const line = fc.oneof(row, fc.array(cell, { minLength: 0, maxLength: 5 }).map((cells) => cells.join(',')))
  const file = fc.tuple(fc.array(line, { maxLength: 6 }), fc.constantFrom('\n', '\r\n', '\r', '')).map(([lines, br]) => lines.join(br))
  return fc.oneof(
    { weight: 4, arbitrary: fc.record({ text: file, contentType: fc.constant(mediaType) }).map((r) => ({ kind: 'raw' as const, ...r })) },
    { weight: 1, arbitrary: fc.record({ text: fc.oneof(file, fc.constantFrom(...MALFORMED)), contentType: fc.constantFrom(...CONTENT_TYPES) }).map((r) => ({ kind: 'raw' as const, ...r })) },
    { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
  )
}

interface Plan {
  path: Record<string, { choice: 'own' | 'guess' | 'hostile'; value: string }>
  query: [string, string][]
  body: BodyPlan
}

function planFor(op: Operation, components: Record<string, Schema>): fc.Arbitrary<Plan> {
  const pathParams = op.params.filter((p) => p.in === 'path')
  const queryParams = op.params.filter((p) => p.in === 'query')
  const path: Record<string, fc.Arbitrary<Plan['path'][string]>> = {}
  for (const p of pathParams) {
    path[p.name] = fc.oneof(
      { weight: 3, arbitrary: fc.constant({ choice: 'own' as const, value: '' }) },
      { weight: 1, arbitrary: fc.stringMatching(/^[a-z]{3}_[0-9a-z]{8,24}$/).map((value) => ({ choice: 'guess' as const, value })) },
      { weight: 1, arbitrary: hostile.map((v) => ({ choice: 'hostile' as const, value: asText(v).slice(0, 2000) || 'x' })) },
    )
  }
  const query = fc
    .tuple(
      ...queryParams.map((p) =>
        fc.option(fc.oneof({ weight: 3, arbitrary: valid(p.schema, components) }, { weight: 1, arbitrary: hostile }).map((v) => [p.name, asText(v)] as [string, string]), { nil: undefined }),
      ),
      fc.array(fc.tuple(fc.constantFrom('__proto__', 'constructor', 'page', 'extra', '__proto__[admin]'), hostile.map(asText)), { maxLength: 2 }),
    )
    .map((parts) => {
      const extra = parts.pop() as [string, string][]
      return [...(parts.filter(Boolean) as [string, string][]), ...extra]
    })
  const body =
    op.body?.type === 'json'
      ? jsonBody(op.body.schema, components)
      : op.body?.type === 'multipart'
        ? formBody()
        : op.body?.type === 'text'
          ? textBody(op.body.mediaType)
          : fc.constant<BodyPlan>({ kind: 'none' })
  return fc.record({ path: fc.record(path), query, body })
}

function requestFor(op: Operation, plan: Plan, w: World): { url: string; init: RequestInit } {
  const path = op.path.replace(/\/:([^/]+)/g, (_, name: string, offset: number) => {
    const p = plan.path[name]!
    if (p.choice !== 'own') return `/${encodeURIComponent(p.value)}`
    const segment = op.path.slice(0, offset).split('/').pop()!
    return `/${encodeURIComponent(ID_OF[segment]?.(w) ?? 'unknown')}`
  })
  const search = new URLSearchParams(plan.query).toString()
  // A copy: the shared `admin` headers must not take this request's content type.
  const headers: Record<string, string> = { ...credentialFor(op.auth, w) }
  let body: RequestInit['body']
  const b = plan.body
  if (b.kind === 'json') {
    let text = JSON.stringify(b.value) ?? ''
    if (b.proto && text.startsWith('{')) text = `{"__proto__":{"polluted":true},${text.slice(1)}`.replace(',}', '}')
    body = text
    if (b.contentType) headers['content-type'] = b.contentType
  } else if (b.kind === 'raw') {
    body = b.text
    if (b.contentType) headers['content-type'] = b.contentType
  } else if (b.kind === 'form') {
    const form = new FormData()
    for (const part of b.parts) {
      if (part.file) form.append(part.name, new Blob([part.file.bytes]), part.file.filename)
      else form.append(part.name, part.value ?? '')
    }
    body = form
  }
  return { url: `http://localhost${path}${search ? `?${search}` : ''}`, init: { method: op.method, headers, body } }
}

/** A path written with `.` or `..` as a parameter is another path once the URL is read: no operation's. */
const isOperationPath = (op: Operation, url: string) =>
  new RegExp(`^${op.path.replace(/:[^/]+/g, '[^/]+')}$`).test(new URL(url).pathname.replace(/(.)\/$/, '$1'))

/** What is wrong with one answer; empty when it breaks none of the rules above. */
function problems(op: Operation, url: string, status: number, headers: Headers, text: string, components: Record<string, Schema>, apiHeaders: string[]): string[] {
  const out: string[] = []
  if (status >= 500) out.push(`status ${status}`)
  if (!headers.get('x-request-id')) out.push('no X-Request-Id')
  let body: unknown
  try {
    body = text ? JSON.parse(text) : undefined
  } catch {
    body = undefined
  }
  if (status >= 400) out.push(...check(components.Error!, body, components, 'error body').slice(0, 3))
  const documented = op.responses[String(status)]
  if (!documented && !(isOperationPath(op, url) ? [] : [404, 405]).includes(status)) out.push(`status ${status} is not documented`)
  const undocumented = apiHeaders.filter((name) => headers.has(name) && documented && !(name in (documented.headers ?? {})))
  if (undocumented.length) out.push(`header ${undocumented.join(', ')} is not documented for ${status}`)
  if (status < 400) {
    const schema = documented?.content?.['application/json']?.schema
    // A documented alternative format (CSV of the activity report) is not JSON to check.
    const isJson = (headers.get('content-type') ?? '').includes('json')
    if (schema && isJson) out.push(...check(schema, body, components, 'body').slice(0, 3))
  }
  return out
}

describe(`fuzz from the OpenAPI document (${RUNS} requests per operation${LONG ? ', long' : ''})`, () => {
  test(
    'every operation answers generated requests without a 5xx, only with statuses it documents, with the envelope and its documented schema, and store B never changes',
    async () => {
      // A rate limit no run reaches: every store answer carries its headers, and none is a 429.
      const t = createTestApp({ settings: { rateLimitRps: '1000000', rateLimitBurst: '1000000' } })
      const w = await matrixWorld(t)
      const doc = (await t.call('GET', '/openapi.json')).body
      const components = doc.components.schemas as Record<string, Schema>
      // The headers the document describes may come only with the answers that declare them.
      const apiHeaders = Object.keys(doc.components.headers)
      const ops = operationsOf(doc)
      expect(ops.length).toBeGreaterThan(50)
      const storeB = { storeId: w.B.group.storeId, groupId: w.B.group.id }
      t.deps.activity.flush() // B's own setup calls are counted in memory until a flush
      const before = storeSnapshot(t.database.sqlite, storeB)
      const failures: string[] = []
      const seed = Number(process.env.DRILLS_SEED ?? Date.now() % 2 ** 31)
      let sent = 0
      const tally: Record<string, Record<number, number>> = {}
      // Routes that end a credential the rest of the run needs are fuzzed last.
      const last = (op: Operation) => (op.path.includes('change-password') || op.path.includes('reset-password') ? 1 : 0)
      for (const op of [...ops].sort((a, b) => last(a) - last(b))) {
        const result = await fc.check(
          fc.asyncProperty(planFor(op, components), async (plan) => {
            const { url, init } = requestFor(op, plan, w)
            const response = await t.app.handle(new Request(url, init))
            // A live stream never ends: its status and headers are checked, and the client hangs up.
            const live = response.headers.get('content-type')?.startsWith('text/event-stream')
            const text = live ? (await response.body?.cancel(), '') : await response.text()
            sent++
            const k = `${op.method} ${op.path}`; (tally[k] ??= {})[response.status] = (tally[k]![response.status] ?? 0) + 1
            const found = problems(op, url, response.status, response.headers, text, components, apiHeaders)
            if (found.length) throw new Error(`${response.status} ${text.slice(0, 300)} :: ${found.join('; ')}`)
          }),
          { numRuns: RUNS, endOnFailure: true, seed },
        )
        if (result.failed) {
          const plan = JSON.stringify(result.counterexample?.[0]).slice(0, 600)
          failures.push(`${op.method} ${op.path} (DRILLS_SEED=${seed}): ${String((result.errorInstance as Error)?.message ?? result.errorInstance)}\n    plan: ${plan}`)
        }
      }
      if (process.env.DRILLS_VERBOSE) for (const [k, v] of Object.entries(tally)) console.log(k, JSON.stringify(v))
      expect(failures).toEqual([])
      expect(({} as Record<string, unknown>).polluted).toBeUndefined()
      t.deps.activity.flush()
      expect(storeSnapshot(t.database.sqlite, storeB)).toEqual(before)
      expect(sent).toBeGreaterThanOrEqual(ops.length * RUNS)
    },
    LONG ? 900_000 : 120_000,
  )
})
