import { AppError, ERROR_STATUS, ErrorEnvelope } from '../errors'
import { kernelErrors } from './kernel-answers'
import type { Log } from '../log'
import type { RouteEntry } from './route-table'
import type { BodySchema } from './validation'

/**
 * The switch that has every JSON answer checked against its route's schema. The test suite sets it
 * (test/setup.ts), for the app in the test process and the executables it starts; a server in class
 * does not check its answers at run time: the schemas write the OpenAPI document, and the suite holds
 * every answer to them.
 */
export const CHECK_ANSWERS_ENV = 'STOREFRONT_CHECK_ANSWERS'

/**
 * A checker of answers, or undefined when the switch is off. A JSON answer must be what the schema its
 * route declares for its status (the error envelope for an error the route does not list) gives back
 * unchanged: no field the schema does not name, which would reach clients undocumented, none missing,
 * no value of another type. A mismatch is the server's fault: logged with the route and the problems,
 * and answered as a 500, so that the test that made it fails.
 */
export function answerChecker(log: Log): ((route: RouteEntry | undefined, response: Response) => Response | Promise<Response>) | undefined {
  if (process.env[CHECK_ANSWERS_ENV] !== '1') return undefined
  return (route, response) => {
    if (!route || !response.headers.get('content-type')?.startsWith('application/json')) return response
    // A route that declares no answers (the document itself, a test's probe) has its errors checked only.
    if (!route.response && response.status < 400) return response
    // An error status the OpenAPI document does not list for the operation reaches a generated client undocumented.
    const undocumented = route.response !== undefined && response.status >= 400 && !documentedErrors(route).has(response.status)
    const schema = route.response?.[response.status] ?? (response.status >= 400 ? (ErrorEnvelope as BodySchema) : undefined)
    return response
      .clone()
      .text()
      .then((text) => {
        const problem = undocumented
          ? `status ${response.status} is not among the errors its OpenAPI operation lists (declare it in the route's response map)`
          : schema
            ? mismatch(schema, JSON.parse(text))
            : `status ${response.status} is not among the answers the route declares`
        if (problem === undefined) return response
        log.error('an answer does not match its schema', { route: `${route.method} ${route.path}`, status: response.status, problem, answer: text.slice(0, 2000) })
        throw new AppError('INTERNAL_ERROR', `The answer of ${route.method} ${route.path} (${response.status}) does not match its schema: ${problem}`)
      })
  }
}

/** The error statuses the OpenAPI document lists for a route: its own declared ones and those the kernel adds (kernel-answers.ts). */
function documentedErrors(route: RouteEntry): Set<number> {
  const own = Object.keys(route.response ?? {}).map(Number).filter((status) => status >= 400)
  return new Set([...own, ...kernelErrors(route).map((code) => ERROR_STATUS[code])])
}

function mismatch(schema: BodySchema, value: unknown): string | undefined {
  const result = schema['~standard'].validate(value)
  if (result instanceof Promise) return 'its schema is asynchronous'
  if (result.issues) return JSON.stringify(result.issues).slice(0, 1000)
  if (!Bun.deepEquals(result.value, value)) return `the schema gives back another value: ${JSON.stringify(result.value).slice(0, 1000)}`
  return undefined
}
