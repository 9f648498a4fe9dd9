import { z } from 'zod'

export const LinkImageBody = z
  .object({
    mediaId: z.string().min(1, 'mediaId must not be empty').optional().describe('an image already in the store library (POST /v1/uploads)'),
    url: z
      .url({ protocol: /^https?$/, error: 'url must be an http:// or https:// address' })
      .max(2048)
      .optional()
      .describe('an image hosted elsewhere'),
    isPrimary: z.boolean().optional().describe('make it the cover; the first image of a product is the cover anyway'),
  })
  .strict()
  .refine((b) => (b.mediaId === undefined) !== (b.url === undefined), {
    message: 'send exactly one of mediaId (a library image) or url (an external image)',
  })

export const UpdateImageBody = z
  .object({
    isPrimary: z.literal(true, 'isPrimary can only be set to true: to change the cover, make another image primary').optional(),
    position: z.number().int().min(0, 'position starts at 0').optional().describe('0-based place among the product images'),
  })
  .strict()

export const ImageIdParams = z.object({ id: z.string() })
export const ProductIdParams = z.object({ id: z.string() })
