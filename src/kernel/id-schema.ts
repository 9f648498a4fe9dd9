import { z } from 'zod'
import { idMixUp } from './errors'

/** Every id this server makes is far shorter (a prefix and 20 characters): a longer one names nothing. */
export const MAX_ID_LENGTH = 64

/**
 * An id sent in a body or a query string, named `name` in the message: at most MAX_ID_LENGTH characters,
 * a bound the OpenAPI document states like every string's. Whether it may be empty is the caller's to say.
 */
export const idRef = (name: string) => z.string().max(MAX_ID_LENGTH, `${name} has at most ${MAX_ID_LENGTH} characters; copy ids from this API's answers`)

/**
 * An id of one kind (`what`, as ids.ts names it) in a filter: another kind's id ("brd_…" as categoryId) is
 * a 400 saying so, where it would only have matched nothing. An unknown id of the right kind, or with no
 * known prefix, is left to match nothing.
 */
export const idOfKind = (name: string, what: string) =>
  idRef(name).superRefine((id, issues) => {
    // One problem at a time: an id too long is told its length first.
    const mixUp = id.length <= MAX_ID_LENGTH ? idMixUp(id, what) : undefined
    if (mixUp) issues.addIssue({ code: 'custom', message: mixUp })
  })
