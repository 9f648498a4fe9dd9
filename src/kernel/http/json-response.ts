/** JSON made before the request: its text, or its UTF-8 bytes (a kept answer, kept-bodies.ts). */
export type JsonBody = string | Uint8Array

/**
 * JSON made before the request (a kept answer, catalog/read-cache.ts): the kernel answers it as it
 * is, with its own headers, instead of parsing or stringifying it again.
 */
export class JsonText {
  constructor(readonly body: JsonBody) {}
}

/**
 * A JSON body as the answer: `body` is JSON already, as text or as UTF-8 bytes. Typed as the Response it becomes, which is
 * what a route's declaration accepts besides its schema's object; only the kernel (kernel.ts,
 * toAnswer) receives it, and turns it into one.
 */
export const jsonResponse = (body: JsonBody): Response => new JsonText(body) as unknown as Response
