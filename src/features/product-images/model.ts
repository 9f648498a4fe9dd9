import { z } from 'zod'
import { idRef } from '../../kernel/id-schema'

const mediaId = idRef('mediaId').min(1, 'mediaId must not be empty').describe('an image already in the store library (POST /v1/uploads)')
const url = z
  .url({ protocol: /^https?$/, error: 'url must be an http:// or https:// address' })
  .max(2048, 'url can be at most 2048 characters: link a shorter address, or upload the image (POST /v1/uploads) and link its mediaId')
  .describe('an image hosted elsewhere')
const isPrimary = z.boolean().optional().describe('make it the cover; the first image of a product is the cover anyway')

/**
 * The two bodies the route takes, as the OpenAPI document shows them (`oneOf`): written the first time
 * JSON Schema of the body is (the document, the check for secret fields), not at start, where it took
 * a few milliseconds of every start; then the same each time, as when it was made at start.
 */
let linkShapes: object[] | undefined

/**
 * One object with both fields optional and a refinement, not a union of the two shapes: a union answers a
 * body with both fields, or neither, "Invalid input" where this names the fix. The document still
 * shows the two shapes as a `oneOf`, so a generated client takes exactly one of them.
 */
export const LinkImageBody = z
  .object({ mediaId: mediaId.optional(), url: url.optional(), isPrimary })
  .strict()
  .refine((b) => (b.mediaId === undefined) !== (b.url === undefined), {
    message: 'send exactly one of mediaId (a library image) or url (an external image)',
  })
  .meta({
    // zod keeps the getter and reads it when it writes JSON Schema, so the shapes are made then.
    get oneOf() {
      return (linkShapes ??= [
        z.object({ mediaId, isPrimary }).strict().meta({ title: 'A library image' }),
        z.object({ url, isPrimary }).strict().meta({ title: 'An external image' }),
      ].map((shape) => z.toJSONSchema(shape)))
    },
  })

export const UpdateImageBody = z
  .object({
    isPrimary: z.literal(true, 'isPrimary can only be set to true: to change the cover, make another image primary').optional(),
    position: z.number().int().min(0, 'position starts at 0').optional().describe('0-based place among the product images'),
  })
  .strict()

export const ImageIdParams = z.object({ id: z.string() })
export const ProductIdParams = z.object({ id: z.string() })
