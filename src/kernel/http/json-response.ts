/**
 * JSON text made before the request (a kept answer, catalog/read-cache.ts): the kernel answers it as
 * it is, with its own headers, instead of parsing or stringifying it again.
 */
export class JsonText {
  constructor(readonly text: string) {}
}

/**
 * A JSON body as the answer: `body` is JSON text already. Typed as the Response it becomes, which is
 * what a route's declaration accepts besides its schema's object; only the kernel (kernel.ts,
 * toAnswer) receives it, and turns it into one.
 */
export const jsonResponse = (body: string): Response => new JsonText(body) as unknown as Response
