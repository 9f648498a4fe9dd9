import { z } from 'zod'

/** Every id this server makes is far shorter (a prefix and 20 characters): a longer one names nothing. */
export const MAX_ID_LENGTH = 64

/**
 * An id sent in a body or a query string, named `name` in the message: at most MAX_ID_LENGTH characters,
 * a bound the OpenAPI document states like every string's. Whether it may be empty is the caller's to say.
 */
export const idRef = (name: string) => z.string().max(MAX_ID_LENGTH, `${name} has at most ${MAX_ID_LENGTH} characters; copy ids from this API's answers`)
